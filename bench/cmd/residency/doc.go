// Command residency runs the GPU-residency benchmark: a chain of stages
// over one uint8 image, resident on the device, round trip through the
// host at every stage, with explicit sync points, and streamed in -bands
// bands of rows whose upload, stages and download overlap (package
// stream, on OpenCL; a chain that ends in a sum brings home each band's
// sum and adds them on the host), with Go and pinned host memory. It
// prints a markdown table and writes NAME.md, NAME.csv, NAME.json and
// NAME.png (time against stages) under -out.
//
// -chain picks the chain: brighter (default), -stages × the Halide
// brighter stage on uint8; or mixed, a Halide stage followed by ops —
// brighter → cast to float32 → × -scale → sum — where resident mode
// uploads the image once and only the 4-byte sum comes back. The sum is
// checked against a float64 host computation within bench.SumTol
// (relative). -fuse (with -chain mixed) runs cast → scale → sum as one
// fused stage, ops.EvalSum of an ops.Expr: one kernel that reads the image
// once, instead of three ops that write and read a float32 image.
//
//	cd bench   # its own module
//	go run ./cmd/residency -out out
//	go run ./cmd/residency -modes resident,streamed -bands 16 -out out -name streamed
//	go run ./cmd/residency -chain mixed -out out -name mixed
//	go run ./cmd/residency -chain mixed -fuse -out out -name mixed-fused
//	bin/residency -platform NVIDIA -torch torch.json -out $OUT
//	bin/residency -platform NVIDIA -chain mixed -torch torch-mixed.json -out $OUT -name h200-mixed
//	bin/residency -device cuda -torch torch.json -out $OUT -name h200-cuda
//	bin/residency -device cuda -chain mixed -fuse -modes streamed -bands 2 -last 0.25 -trace trace.txt
//
// -first and -last make the streamed mode's first or last band thinner
// than the others (stream.Cut); -trace FILE writes the timeline of three
// more streamed runs (stream.Trace: per band the host's queueing and, on
// CUDA, each queue's upload, compute and download and each step's time).
//
// -device cuda runs the chains with brighter_cuda (the same generator
// built for CUDA) and ops through NVRTC on the CUDA device
// $RESIDENT_CUDA_DEVICE (default 0): the same modes, streamed included
// (on the Device's stream plus an upload and a download stream), and the
// same table and files, so its run compares with the OpenCL run's line by
// line.
package main
