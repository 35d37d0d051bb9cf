"""NumPy's side of ops' BenchmarkMathF32: the same float32 ops, sizes and
value ranges, as ufuncs writing into a preallocated out= (NumPy at its
best: no allocation per call), best of several runs. Reads `go test
-bench MathF32` output on stdin and prints both with the ratio
NumPy time / ops time (> 1: ops is faster), twice: "best" compares the
fastest single call on each side (Go's best-ns/op, the minimum over its
-count runs, against NumPy's best of its runs), "mean" the typical call
(the median over -count runs of Go's ns/op against NumPy's mean over its
runs). On a loaded machine the best is the steadier. Run by
bench/math-numpy.sh."""
import re
import sys
import time

import numpy as np


def timed(f, n):
    """NumPy's best and mean time of one call of f."""
    f()
    reps = max(3, min(200, int(2e7 // n)))
    ts = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        ts.append(time.perf_counter() - s)
    return min(ts), sum(ts) / len(ts)


def go_times(lines, pattern, key):
    """Go's times from `go test -bench` output: pattern matches a line up
    to its ns/op (the last group), key makes a row's key of the other
    groups. Returns the median ns/op over the -count runs and the best
    best-ns/op, in seconds, by key."""
    mean, best = {}, {}
    for line in lines:
        m = re.match(pattern + r"-\d+\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            k = key(*m.groups()[:-1])
            mean.setdefault(k, []).append(float(m.groups()[-1]) * 1e-9)
            b = re.search(r"([\d.]+) best-ns/op", line)
            if b:
                best[k] = min(best.get(k, float("inf")), float(b.group(1)) * 1e-9)
    return {k: sorted(v)[len(v) // 2] for k, v in mean.items()}, best


def main():
    go, best = go_times(sys.stdin, r"BenchmarkMathF32/(\w+)/n=(\d+)", lambda op, n: (op, int(n)))
    simd = np.core._multiarray_umath.__cpu_features__
    print("numpy", np.__version__, "SIMD dispatch found:",
          " ".join(k for k in ("SSE42", "AVX", "FMA3", "AVX2", "AVX512F", "AVX512_SKX") if simd.get(k)))
    print(f"{'op':15s} {'n':>9s} {'best: ops ms':>12s} {'numpy ms':>9s} {'numpy/ops':>9s}"
          f" {'mean: ops ms':>12s} {'numpy ms':>9s} {'numpy/ops':>9s}")
    rng = np.random.default_rng(1)
    for n in sorted({k[1] for k in go}):
        x = (rng.random(n, dtype=np.float32) * 8 - 4)
        y = rng.random(n, dtype=np.float32) + 0.5
        z = y - np.float32(1)
        o = np.empty(n, np.float32)
        ob, o64, oi = np.empty(n, np.bool_), np.empty(n, np.float64), np.empty(n, np.int32)
        cb = rng.random(n) < 0.5
        gen = np.random.default_rng(1)

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
            "abs": lambda: np.abs(z, out=o),
            "negative": lambda: np.negative(z, out=o),
            "sqrt": lambda: np.sqrt(y, out=o),
            "log": lambda: np.log(y, out=o),
            "log1p": lambda: np.log1p(z, out=o),
            "expm1": lambda: np.expm1(z, out=o),
            "tan": lambda: np.tan(z, out=o),
            "arcsin": lambda: np.arcsin(z, out=o),
            "arccos": lambda: np.arccos(z, out=o),
            "arctan": lambda: np.arctan(z, out=o),
            "sinh": lambda: np.sinh(z, out=o),
            "cosh": lambda: np.cosh(z, out=o),
            "sign": lambda: np.sign(z, out=o),
            "cos": lambda: np.cos(x, out=o),
            "ceil": lambda: np.ceil(x, out=o),
            "trunc": lambda: np.trunc(x, out=o),
            "relu": lambda: np.maximum(z, 0, out=o),
            "softplus": lambda: np.logaddexp(0, x, out=o),
            "subtract": lambda: np.subtract(x, y, out=o),
            "multiply": lambda: np.multiply(x, y, out=o),
            "divide": lambda: np.divide(x, y, out=o),
            "minimum": lambda: np.minimum(x, y, out=o),
            "less": lambda: np.less(x, y, out=ob),
            "isnan": lambda: np.isnan(x, out=ob),
            "clip": lambda: np.clip(x, -1, 1, out=o),
            "multiply_scalar": lambda: np.multiply(x, np.float32(2), out=o),
            "astype_f64": lambda: np.copyto(o64, x),
            "astype_i32": lambda: np.copyto(oi, x, casting="unsafe"),
            "isinf": lambda: np.isinf(x, out=ob),
            "isfinite": lambda: np.isfinite(x, out=ob),
            "where": lambda: np.where(cb, x, y),  # no out=: NumPy allocates the result
            "copyto": lambda: np.copyto(o, x),
            "fill": lambda: o.fill(1.5),
            "random": lambda: gen.random(out=o, dtype=np.float32),
            "standard_normal": lambda: gen.standard_normal(out=o, dtype=np.float32),
        }
        for name, f in fs.items():
            if (name, n) not in go:
                continue
            tb, tm = timed(f, n)
            g, gb = go[(name, n)], best.get((name, n), float("nan"))
            print(f"{name:15s} {n:9d} {gb*1e3:12.3f} {tb*1e3:9.3f} {tb/gb:9.2f}"
                  f" {g*1e3:12.3f} {tm*1e3:9.3f} {tm/g:9.2f}")


if __name__ == "__main__":
    main()
