// Command opsbench measures package ops on an OpenCL device, next to
// PyTorch on the same machine: float32 add on 2^28 elements (GB/s at 12
// bytes per element), sum (4 bytes per element), a device-to-device copy
// (8 bytes per element, read + write), SGEMM and DGEMM 4096 (TFLOP/s; the
// tilings of ops' MatMul are measured and the best kept, as printed, with
// NVIDIA's ptxas register and spill counts; DGEMM's best portable and best
// inline-PTX tensor-core tilings are reported apart), SGEMM and DGEMM at
// M×N×K 1000³, 4096×4096×64 and 64×4096×4096 with that tiling (-shapes;
// the note names the best tiling for the shape), a probe of inline PTX
// (asm) in NVIDIA's OpenCL C (a %laneid read, one mma of each float64
// shape checked against the host; -ptx=auto|on|off chooses whether the
// DGEMM tuning includes the PTX kernels), a
// tiny op's launch overhead against a bare kernel enqueue on the same
// queue (µs, each followed by a sync). Every figure is checked for
// correctness as it is measured. The chain that mixes a Halide stage with
// ops (brighter → cast to float32 → scale → sum) is the residency
// benchmark's: `residency -chain mixed`, compared with
// `bench/torch_chain.py --chain mixed` (bench/h200.sh, STEPS=mixed).
//
// It prints a markdown table of ours, PyTorch's and the ratio of speeds
// (ours / PyTorch, above 1 is faster) to stdout, progress to stderr.
//
// On the H200 (no Go there: build here, carry bin/):
//
//	(cd bench && go build -o ../bin/opsbench ./cmd/opsbench)   # here
//	/opt/torch/.venv/bin/python3 bench/torch_ops.py torch_ops.json   # there
//	HL_OCL_PLATFORM_NAME=NVIDIA bin/opsbench -torch torch_ops.json | tee ops-device.md
//
// The device tests of package ops run there too, on NVIDIA's compiler:
//
//	go test -c -o bin/ops.test ./ops                       # here
//	HL_OCL_PLATFORM_NAME=NVIDIA bin/ops.test -test.run 'Device|ExampleOn' -test.v   # there
//
// The benchmark takes two to three minutes on the H200 (the GEMM tuning
// dominates; -tune=false measures the default tiling only; record the
// best tiling it prints in ops' gemmNVIDIA32/gemmNVIDIA64). Locally on
// PoCL, with small sizes:
//
//	cd bench && POCL_CACHE_DIR=$PWD/../.cache/pocl go run ./cmd/opsbench -n 20 -gemm 256 -time 50ms
package main
