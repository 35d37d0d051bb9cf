"""NumPy's side of ops' BenchmarkMathF32: the same float32 ops, sizes and
value ranges, as ufuncs writing into a preallocated out= (NumPy at its
best: no allocation per call), best of several runs. Reads `go test
-bench MathF32` output on stdin and prints both with the ratio
NumPy time / ops time (> 1: ops is faster). Run by bench/math-numpy.sh."""
import re
import sys
import time

import numpy as np


def best(f, n):
    f()
    reps = max(3, min(200, int(2e7 // n)))
    t = float("inf")
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


def main():
    go = {}
    for line in sys.stdin:
        m = re.match(r"BenchmarkMathF32/(\w+)/n=(\d+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            k, t = (m.group(1), int(m.group(2))), float(m.group(3)) * 1e-9
            go[k] = min(t, go.get(k, t))  # the best of -count runs, as NumPy's best of its runs
    simd = np.core._multiarray_umath.__cpu_features__
    print("numpy", np.__version__, "SIMD dispatch found:",
          " ".join(k for k in ("SSE42", "AVX", "FMA3", "AVX2", "AVX512F", "AVX512_SKX") if simd.get(k)))
    print(f"{'op':10s} {'n':>9s} {'ops ms':>9s} {'numpy ms':>9s} {'numpy/ops':>9s}")
    rng = np.random.default_rng(1)
    for n in sorted({k[1] for k in go}):
        x = (rng.random(n, dtype=np.float32) * 8 - 4)
        y = rng.random(n, dtype=np.float32) + 0.5
        o = np.empty(n, np.float32)

        def sigmoid():  # no sigmoid ufunc: the usual composition, in place
            np.negative(x, out=o)
            np.exp(o, out=o)
            np.add(o, 1, out=o)
            np.reciprocal(o, out=o)

        fs = {
            "sin": lambda: np.sin(x, out=o),
            "exp": lambda: np.exp(x, out=o),
            "tanh": lambda: np.tanh(x, out=o),
            "sigmoid": sigmoid,
            "floor": lambda: np.floor(x, out=o),
            "round": lambda: np.rint(x, out=o),
            "pow": lambda: np.power(y, x, out=o),
            "add": lambda: np.add(x, y, out=o),
            "maximum": lambda: np.maximum(x, y, out=o),
            "mod": lambda: np.remainder(x, y, out=o),
        }
        for name, f in fs.items():
            if (name, n) not in go:
                continue
            t = best(f, n)
            g = go[(name, n)]
            print(f"{name:10s} {n:9d} {g*1e3:9.3f} {t*1e3:9.3f} {t/g:9.2f}")


main()
