#!/bin/sh
# ops' float32 elementwise math against NumPy on this machine, in one go:
# the Go benchmark (BenchmarkMathF32), then NumPy on the same ops, sizes
# and values (bench/numpy_math.py), printing the ratios (each side's best
# of its runs: -count 5 for Go). NumPy runs with
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (this command only), at its
# best. Figures: bench/results/host-math-numpy.txt.
#
#	sh bench/math-numpy.sh [benchtime]
set -e
cd "$(dirname "$0")/.."
bt=${1:-1s}
out=$(go test -run '^$' -bench 'MathF32' -benchtime "$bt" -count 5 -benchmem ./ops)
echo "$out"
echo
echo "$out" | env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/numpy_math.py
