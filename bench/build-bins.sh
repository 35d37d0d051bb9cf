#!/usr/bin/env bash
# Builds what runs on the accelerator machine (no Go there): bin/residency,
# bin/opsbench, bin/mlp and the test binaries whose tests and benchmarks
# bench/h200.sh runs (bin/cuda.test: device/cuda's tests, which need no
# CUDA to build: the driver and cuBLAS are dlopened there). Stripped
# (-s -w) and compressed with xz (bench/h200.sh decompresses them), so bin/
# fits what the device run carries (64 MiB; uncompressed it is over 80).
# Run from anywhere on the build machine; bin/ is gitignored (carry it).
set -eu
cd "$(dirname "$0")/.."
mkdir -p bin
ld=(-ldflags=-s\ -w)
# bench is its own module: its commands build from its folder.
(cd bench && go build "${ld[@]}" -o ../bin/residency ./cmd/residency)
for p in device/opencl device/cuda halide array halide/stream halide/examples/brighter; do
	go test -c "${ld[@]}" -o "bin/$(basename $p).test" ./$p
done
# The gorgonia MLP (issue 23): its own module, built from its directory.
(cd ops/engine/mlp && CGO_ENABLED=1 go build "${ld[@]}" -o ../../../bin/mlp .)
if [ -d bench/cmd/opsbench ]; then
	(cd bench && go build "${ld[@]}" -o ../bin/opsbench ./cmd/opsbench)
	go test -c "${ld[@]}" -o bin/ops.test ./ops
fi
rm -f bin/*.xz
xz -T0 -3 bin/*
ls -la bin
du -sh bin
