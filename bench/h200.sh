#!/usr/bin/env bash
# The H200 part of the residency benchmark (issue 6). Run from the repo root
# on the accelerator machine, which has no Go: it uses binaries built here
# by `bash bench/build-bins.sh` (bin/ is gitignored; carry it).
#
#   bash bench/h200.sh            # results under $OUT (default ./h200-out)
#
# Steps, each with a time limit and its output tee'd to $OUT/NAME.log:
# clinfo, PyTorch's chain (torch.json), our chain on NVIDIA OpenCL compared
# with it (h200.md/csv/json/png, for bench/results/), the mixed chain
# (brighter → float32 → scale → sum) the same way (mixed-torch:
# torch-mixed.json, mixed-residency: h200-mixed.*), then the opencl and
# halide test benchmarks when their binaries are present, and last every
# test binary in full. Total well under 8 minutes (plus up to 12 for the
# mlp steps and the test binaries' own time). STEPS=mixed runs just the
# mixed chain's two steps, STEPS=ops the ops benchmark against PyTorch,
# STEPS=mlp the MLP training step (issue 23), STEPS=reduce the full
# reduction's variants against PyTorch's sum, STEPS=test the test binaries:
#
#   STEPS=mixed bash bench/h200.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/h200-out}
mkdir -p "$OUT"
PY=${PY:-/opt/torch/.venv/bin/python3}
export HL_OCL_PLATFORM_NAME=${HL_OCL_PLATFORM_NAME:-NVIDIA}
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-/tmp/pocl-cache}
# bench/build-bins.sh compresses the binaries to fit the carried tree.
for f in bin/*.xz; do
	[ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"
done
summary=$OUT/summary.txt
: >"$summary"

# step NAME LIMIT CMD...: runs CMD under timeout, logs to $OUT/NAME.log and
# records its exit status and time in summary.txt; failures don't stop us.
# STEPS (a space-separated list of step names, prefixes allowed) runs
# only those; default all.
step() {
	local name=$1 limit=$2
	shift 2
	if [ -n "${STEPS:-}" ]; then
		case " $STEPS " in
		*" $name "* | *" ${name%%-*} "*) ;;
		*) return ;;
		esac
	fi
	echo "== $name: $*" | tee -a "$summary"
	local t0=$SECONDS
	timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.log"
	local rc=${PIPESTATUS[0]}
	echo "== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$summary"
}

step machine 30 bash -c 'uname -a; nproc; free -g; nvidia-smi || true; ls -la bin/'
step clinfo 30 clinfo -l
step torch 120 "$PY" bench/torch_chain.py --json "$OUT/torch.json"

torch_flag=()
[ -s "$OUT/torch.json" ] && torch_flag=(-torch "$OUT/torch.json")
step residency 150 bin/residency -out "$OUT" -name h200 -q "${torch_flag[@]}"

# The mixed chain: a Halide stage, then ops on float32. Named mixed-* so
# that STEPS=torch or STEPS=residency runs only the steps above.
step mixed-torch 120 "$PY" bench/torch_chain.py --chain mixed --json "$OUT/torch-mixed.json"
mixed_flag=()
[ -s "$OUT/torch-mixed.json" ] && mixed_flag=(-torch "$OUT/torch-mixed.json")
step mixed-residency 150 bin/residency -chain mixed -out "$OUT" -name h200-mixed -q "${mixed_flag[@]}"
# cast → scale → sum fused into one kernel (ops.Expr), streamed too: each
# band's sum comes home and the host adds them.
step mixed-fused 150 bin/residency -chain mixed -fuse -out "$OUT" -name h200-mixed-fused -q "${mixed_flag[@]}"

# Issue 14's two-GPU run: the chain split in bands of rows over two GPUs of
# one context against the whole image on one (only where two GPUs are
# lent, the nvidia-h200-x2 kind): STEPS=split.
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
	step split 240 bin/residency -devices 2 -type gpu -out "$OUT" -name h200x2 -q
	step split-mixed 240 bin/residency -devices 2 -type gpu -chain mixed -out "$OUT" -name h200x2-mixed -q
fi

# ops on the device against PyTorch's same ops (bench/cmd/opsbench: add,
# sum, copy, SGEMM/DGEMM with the tilings tuned, launch overhead).
step ops-torch 120 "$PY" bench/torch_ops.py "$OUT/torch_ops.json"
ops_flag=()
[ -s "$OUT/torch_ops.json" ] && ops_flag=(-torch "$OUT/torch_ops.json")
[ -x bin/opsbench ] && step ops-bench 420 bin/opsbench -json "$OUT/ops.json" "${ops_flag[@]}"

# Issue 23: time per training step of the gorgonia MLP (784-1024-1024-10,
# batch 1024, SGD) in PyTorch eager and torch.compile (mlp-torch:
# torch-mlp.json), then on our device engine on NVIDIA OpenCL and on
# gorgonia's standard engine on the CPU cores, compared with it (mlp:
# mlp.log, mlp.json, mlp.cpu.pprof, a Go CPU profile of the device
# engine's timed steps: `go tool pprof -top bin/mlp mlp.cpu.pprof` here).
# STEPS=mlp runs just these two.
step mlp-torch 300 "$PY" bench/torch_mlp.py --json "$OUT/torch-mlp.json" --warmup 10 --steps 100
mlp_flag=()
[ -s "$OUT/torch-mlp.json" ] && mlp_flag=(-torch "$OUT/torch-mlp.json")
if [ -x bin/mlp ]; then
	step mlp 420 env HL_OCL_PLATFORM_NAME=NVIDIA bin/mlp -bench -batch 1024 -warmup 5 -steps 50 -std -std-steps 10 \
		-json "$OUT/mlp.json" -cpuprofile "$OUT/mlp.cpu.pprof" "${mlp_flag[@]}"
	# The same engine on device/cuda (ops through NVRTC, GEMM through
	# cuBLAS): mlp-cuda.log.
	step mlp-cuda 120 env LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64 bin/mlp -device cuda -bench -batch 1024 -warmup 30 -steps 300 "${mlp_flag[@]}"
	# gorgonia's own recipe unchanged (issue 33: SoftMax and Log for the
	# loss, its VanillaSolver): mlp-stock.log on NVIDIA OpenCL beside the
	# standard engine on the CPU cores, mlp-stock-cuda.log on CUDA.
	step mlp-stock 300 env HL_OCL_PLATFORM_NAME=NVIDIA bin/mlp -stock -bench -batch 1024 -warmup 5 -steps 50 -std -std-steps 10 \
		-json "$OUT/mlp-stock.json" "${mlp_flag[@]}"
	step mlp-stock-cuda 120 env LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64 bin/mlp -stock -device cuda -bench -batch 1024 -warmup 30 -steps 300 "${mlp_flag[@]}"
	# The same step recorded once and replayed (engine.Capture, issue 35):
	# mlp-replay.log (NVIDIA OpenCL), mlp-replay-cuda.log (a CUDA graph).
	step mlp-replay 120 env HL_OCL_PLATFORM_NAME=NVIDIA bin/mlp -stock -replay -bench -batch 1024 -warmup 5 -steps 100 "${mlp_flag[@]}"
	step mlp-replay-cuda 120 env LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64 bin/mlp -stock -replay -device cuda -bench -batch 1024 -warmup 30 -steps 300 "${mlp_flag[@]}"
fi

# The first transfers into a fresh allocation run at half speed on NVIDIA,
# so transfer benchmarks run by time (many iterations), not 10x.
if [ -x bin/opencl.test ]; then
	step opencl-test 180 bin/opencl.test -test.run '^$' -test.bench 'H2D|D2H|D2D|Kernel' -test.benchtime 0.4s -bench.max=1073741824
fi
# Transfers size by size against PyTorch's pageable and pinned copies
# (issue 24): needs opencl-test's log.
[ -s "$OUT/opencl-test.log" ] && step transfers 120 "$PY" bench/torch_transfers.py --go "$OUT/opencl-test.log" --json "$OUT/transfers.json"
# Host transpose against a dense copy at each core count (issue 24; ops'
# worker pool takes GOMAXPROCS at first use, so one process per count).
if [ -x bin/ops.test ]; then
	step transpose 120 bash -c 'for c in 1 2 4 8 16; do echo "GOMAXPROCS=$c"; GOMAXPROCS=$c bin/ops.test -test.run "^$" -test.bench "BenchmarkTranspose$" -test.benchtime 300ms; done'
fi
if [ -x bin/halide.test ]; then
	step halide-test 60 bin/halide.test -test.run '^$' -test.bench .
fi
# Issue 25: the CUDA device (driver API + cuBLAS, dlopened): its tests
# (transfers, cache, Close, Arrays, MatMul in every precision, MoveTo
# between OpenCL and CUDA), then its benchmarks: the H2D/D2H ladder from
# pinned and Go memory, 4096³ GEMM in fp32/TF32/fp16/bf16/fp64 (TFLOP/s),
# memset + sync, and package ops' kernels built by NVRTC (BenchmarkOps:
# Add, Copy, Sum, SumAll, Softmax at 2^24 float32 and a tiny op + Sync, with
# NVIDIA OpenCL as the peer in the same run); the brighter chain on CUDA. cuda-ops runs ops' tests on
# the CUDA device: where each op family ran and its values (TestCUDAOps),
# a build failure's log; cuda-diff the cuda side of the differential
# tests (-diff.n cases, default 800: each new program is an NVRTC
# build). Programs NVRTC rejects land in $OUT/cuda-rejected (N.cu, N.log;
# TestCUDAKernelErrors leaves one on purpose).
# STEPS=cuda runs just these.
if [ -x bin/cuda.test ]; then
	export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64
	step cuda-test 240 bin/cuda.test -test.count=1 -test.v -cuda.verbose
	step cuda-bench 300 bin/cuda.test -test.run '^$' -test.bench . -test.benchtime 0.4s
	# Full reductions: BenchmarkOps' Sum (2^24 float32 into a 0-D Array
	# kept on the device) and SumAll on CUDA and NVIDIA OpenCL over ops'
	# ops.ReduceTuning variants (cuda.test's -reduce=ONEPASS,GROUPS,WG,UNROLL,
	# 0 a default: GROUPS 4, WG 256, UNROLL 4; ONEPASS 0 two passes), PyTorch's sum (sum_gbs) in the same
	# job; then the one-pass path's repeated-sum check on both devices and
	# the reduction tests. STEPS=reduce runs just these.
	step reduce-torch 120 "$PY" bench/torch_ops.py "$OUT/torch_ops_reduce.json" --n 24 --gemm 1024 --no-compile --no-shapes
	step reduce-sweep 540 bash -c 'for v in "1 8 0 4" "0 8 0 4" "1 8 0 1" "1 8 0 8" "1 4 0 4" "1 6 0 4" "1 16 0 4" "1 8 128 4" "1 4 512 4" "1 2 1024 4"; do
		set -- $v; echo "== ONEPASS=$1 GROUPS=$2 WG=$3 UNROLL=$4"
		bin/cuda.test -test.run "^$" -test.bench "^BenchmarkOps$/./^Sum" -test.benchtime 0.3s -test.count 2 -reduce=$1,$2,$3,$4
	done'
	[ -x bin/ops.test ] && step reduce-test 300 bin/ops.test -test.run '^(TestDeviceReduceOnePassRepeated|TestDeviceReduceOnePass|TestDeviceReduceJoinGroup|TestDeviceReduce|TestCUDAOps)$' -test.count=1 -test.v
	if [ -x bin/ops.test ]; then
		step cuda-ops 180 bin/ops.test -test.run '^(TestCUDAOps|TestCUDAKernelErrors)$/^cuda$' -test.count=1 -test.v -cuda.verbose -cuda.keep="$OUT/cuda-rejected"
		step cuda-diff 540 bin/ops.test -test.run '^(TestDiff|TestAlongDiff|TestDiffFuse)$/^cuda$' -test.count=1 -test.v -cuda.verbose -cuda.keep="$OUT/cuda-rejected"
	fi
	step cuda-torch-gemm 120 "$PY" bench/torch_gemm.py --n 4096 --json "$OUT/torch_gemm.json"
	# Its transfer ladder against PyTorch's pageable and pinned copies.
	[ -s "$OUT/cuda-bench.log" ] && step cuda-transfers 120 "$PY" bench/torch_transfers.py --ours device/cuda --go "$OUT/cuda-bench.log" --json "$OUT/cuda-transfers.json"
	# Issue 25 item 2: the brighter chain with brighter_cuda (Halide's CUDA
	# runtime on the Device's context and stream), the residency step's
	# table and files (h200-cuda.*) compared with PyTorch as it is; then
	# package halide's CUDA tests, both resident chains in one process
	# (BrighterChain = OpenCL, BrighterChainCUDA), and brighter's tour.
	step cuda-residency 150 bin/residency -device cuda -out "$OUT" -name h200-cuda -q "${torch_flag[@]}"
	if [ -x bin/halide.test ]; then
		step cuda-halide 180 bin/halide.test -test.run 'CUDA' -test.count=1 -test.v
		step cuda-halide-chain 120 bin/halide.test -test.run '^$' -test.bench 'BrighterChain(CUDA)?/resident' -test.benchtime 2s -test.count 3
	fi
	[ -x bin/brighter.test ] && step cuda-brighter 60 bin/brighter.test -test.run 'Tour' -test.count=1 -test.v
	# Streamed on CUDA (package stream on the Device's stream plus an
	# upload and a download stream): the brighter chain in 4 bands (2 for
	# Go memory, whose staging copies favour fewer), the mixed chains,
	# and stream's tests on the GPU (h200-cuda-streamed*.md). STEPS=cuda.
	step cuda-streamed 120 bin/residency -device cuda -modes resident,streamed -bands 4 -ladder=false -out "$OUT" -name h200-cuda-streamed -q "${torch_flag[@]}"
	# Thin first and last bands (stream.Cut), with the stream's timeline.
	step cuda-streamed-cut 120 bin/residency -device cuda -modes resident,streamed -bands 6 -first 0.25 -last 0.25 -ladder=false -out "$OUT" -name h200-cuda-streamed-cut -q -trace "$OUT/h200-cuda-streamed-cut-trace.txt" "${torch_flag[@]}"
	step cuda-streamed-go2 90 bin/residency -device cuda -modes streamed -bands 2 -memory go -ladder=false -out "$OUT" -name h200-cuda-streamed-go2 -q "${torch_flag[@]}"
	step cuda-mixed-streamed 120 bin/residency -device cuda -chain mixed -modes resident,streamed -bands 4 -ladder=false -out "$OUT" -name h200-cuda-mixed-streamed -q "${mixed_flag[@]}"
	step cuda-mixed-fused-streamed 120 bin/residency -device cuda -chain mixed -fuse -modes resident,streamed -bands 4 -memory pinned -ladder=false -out "$OUT" -name h200-cuda-mixed-fused-streamed -q "${mixed_flag[@]}"
	step cuda-mixed-fused-cut 120 bin/residency -device cuda -chain mixed -fuse -modes resident,streamed -bands 2 -last 0.25 -memory pinned -ladder=false -out "$OUT" -name h200-cuda-mixed-fused-cut -q -trace "$OUT/h200-cuda-mixed-fused-cut-trace.txt" "${mixed_flag[@]}"
	[ -x bin/stream.test ] && step cuda-stream-test 120 bin/stream.test -test.run 'CUDA|Matches' -test.count=1 -test.v
fi
# Every test binary in full (no -test.run subset, no -test.short), on
# NVIDIA OpenCL (HL_OCL_PLATFORM_NAME above) and CUDA: a test that holds
# only where NVIDIA is absent fails here, where it is seen. Each runs in
# its package's folder, as go test runs it (testdata). STEPS=test.
# bench/build-tests.sh names each binary after its folder ('+' for '/').
for b in bin/*.test; do
	[ -x "$b" ] || continue
	t=$(basename "$b" .test)
	dir=${t//+//}
	[ "$t" = root ] && dir=.
	[ -d "$dir" ] || dir=.
	step "test-$t" 900 env -C "$dir" "$PWD/$b" -test.count=1 -test.v
done
echo "results in $OUT:" && ls -la "$OUT"
