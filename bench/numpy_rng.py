"""NumPy's side of ops' BenchmarkRand: Generator.random and
standard_normal (its ziggurat) into a preallocated out= of float32 and
float64, the same sizes, best of several runs. Reads `go test -bench
Rand` output on stdin and prints both with the ratio NumPy time / ops
time (> 1: ops is faster): "best" compares the fastest call on each side
(Go's best-ns/op, the minimum over its -count runs), "mean" the median
of Go's ns/op with NumPy's mean. Run by bench/rng-numpy.sh."""
import sys

import numpy as np

from numpy_math import go_times, timed  # beside this script


def main():
    go, best = go_times(sys.stdin, r"BenchmarkRand/(\w+)/(\w+)/n=(\d+)", lambda kind, ty, n: (kind, ty, int(n)))
    print("numpy", np.__version__)
    print(f"{'fill':8s} {'type':8s} {'n':>9s} {'best: ops ms':>12s} {'numpy ms':>9s} {'numpy/ops':>9s}"
          f" {'mean: ops ms':>12s} {'numpy ms':>9s} {'numpy/ops':>9s}")
    for (kind, ty, n) in sorted(go, key=lambda k: (k[0] != "uniform", k[1], k[2])):
        o = np.empty(n, getattr(np, ty))
        gen = np.random.default_rng(1)
        if kind == "uniform":
            def f(): gen.random(out=o, dtype=o.dtype)
        else:
            def f(): gen.standard_normal(out=o, dtype=o.dtype)
        tb, tm = timed(f, n)
        g, gb = go[(kind, ty, n)], best.get((kind, ty, n), float("nan"))
        print(f"{kind:8s} {ty:8s} {n:9d} {gb*1e3:12.4f} {tb*1e3:9.4f} {tb/gb:9.2f}"
              f" {g*1e3:12.4f} {tm*1e3:9.4f} {tm/g:9.2f}")


main()
