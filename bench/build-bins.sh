#!/usr/bin/env bash
# Builds what runs on the accelerator machine (no Go there): bin/residency
# and the opencl and halide test binaries, whose benchmarks bench/h200.sh
# runs, plus bin/bench.test for running this package's tests there. Run from
# anywhere on the build machine; bin/ is gitignored (carry it).
set -eu
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/residency ./bench/cmd/residency
go test -c -o bin/bench.test ./bench
go test -c -o bin/opencl.test ./device/opencl
go test -c -o bin/halide.test ./halide
go test -c -o bin/array.test ./array
if [ -d bench/cmd/opsbench ]; then go build -o bin/opsbench ./bench/cmd/opsbench; go test -c -o bin/ops.test ./ops; fi
ls -la bin
