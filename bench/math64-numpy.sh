#!/bin/sh
# ops' float64 elementwise math against NumPy on this machine, in one
# go: BenchmarkMathF64 and BenchmarkBinaryF64 (-count 3), then NumPy on
# the same ops, sizes and values (bench/numpy_math64.py), printing the
# ratios. Figures:
# bench/results/host-math64.txt.
#
#	sh bench/math64-numpy.sh [benchtime]
set -e
cd "$(dirname "$0")/.."
out=$(go test -run '^$' -bench 'MathF64|BinaryF64' -benchtime "${1:-0.3s}" -count 3 ./ops)
echo "$out"
echo
echo "$out" | env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/numpy_math64.py
