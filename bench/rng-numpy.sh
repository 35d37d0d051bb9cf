#!/bin/sh
# ops' host random fills (BenchmarkRand: uniform and normal, float32 and
# float64, 2^10…2^24 elements) against NumPy's Generator.random and
# standard_normal on this machine, in one go, printing the ratios (best
# of -count 5 for Go). Figures: bench/results/rng-local.txt.
#
#	sh bench/rng-numpy.sh [benchtime] [count]
set -e
cd "$(dirname "$0")/.."
bt=${1:-1s}
n=${2:-5}
out=$(go test -run '^$' -bench '^BenchmarkRand$' -benchtime "$bt" -count "$n" -benchmem ./ops)
echo "$out"
echo
echo "$out" | env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/numpy_rng.py
