"""NumPy's side of ops' BenchmarkRand: Generator.random and
standard_normal (its ziggurat) into a preallocated out= of float32 and
float64, the same sizes, best of several runs. Reads `go test -bench
Rand` output on stdin and prints both with the ratio NumPy time / ops
time (> 1: ops is faster): "best" compares the fastest call on each side
(Go's best-ns/op, the minimum over its -count runs), "mean" the median
of Go's ns/op with NumPy's mean. Run by bench/rng-numpy.sh."""
import re
import sys
import time

import numpy as np


def timed(f, n):
    f()
    reps = max(3, min(200, int(2e7 // n)))
    ts = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        ts.append(time.perf_counter() - s)
    return min(ts), sum(ts) / len(ts)


def main():
    mean, best = {}, {}
    for line in sys.stdin:
        m = re.match(r"BenchmarkRand/(\w+)/(\w+)/n=(\d+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            k = (m.group(1), m.group(2), int(m.group(3)))
            mean.setdefault(k, []).append(float(m.group(4)) * 1e-9)
            b = re.search(r"([\d.]+) best-ns/op", line)
            if b:
                best[k] = min(best.get(k, float("inf")), float(b.group(1)) * 1e-9)
    go = {k: sorted(v)[len(v) // 2] for k, v in mean.items()}
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
