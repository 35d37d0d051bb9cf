"""NumPy's side of ops' BenchmarkMathF64 and BenchmarkBinaryF64: the
same float64 ops, sizes and value ranges (unary: x = 3·standard normal;
e^x for log, sqrt and log1p; tanh x for arcsin and arccos; binary: x in
[−4, 4), y in [0.5, 1.5), power y^x) as ufuncs writing into a
preallocated out=. Reads `go test -bench MathF64` output on stdin and prints, per
row, the fastest of Go's -count runs (ns/op) against NumPy's best call,
and the median of Go's runs against NumPy's mean: NumPy time / ops time
(> 1: ops is faster). Sigmoid has no ufunc: NumPy's four into one out=.
Run by bench/math64-numpy.sh."""
import re
import sys

import numpy as np

from numpy_math import timed


def main():
    runs = {}
    for line in sys.stdin:
        m = re.match(r"Benchmark(?:Math|Binary)F64/(\w+)/n=(\d+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            runs.setdefault((m.group(1), int(m.group(2))), []).append(float(m.group(3)) * 1e-9)
    print("numpy", np.__version__)
    print(f"{'op':9s} {'n':>9s} {'best: ops ms':>12s} {'numpy ms':>9s} {'numpy/ops':>9s}"
          f" {'mean: ops ms':>12s} {'numpy ms':>9s} {'numpy/ops':>9s}")

    def sigmoid(x, o):
        np.negative(x, out=o)
        np.exp(o, out=o)
        np.add(o, 1, out=o)
        np.reciprocal(o, out=o)

    ufunc = {"Exp": np.exp, "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Log": np.log, "Abs": np.abs,
             "Sqrt": np.sqrt, "Floor": np.floor, "Round": np.rint, "Tanh": np.tanh, "Sinh": np.sinh,
             "Cosh": np.cosh, "Expm1": np.expm1, "Log1p": np.log1p, "Atan": np.arctan, "Asin": np.arcsin,
             "Acos": np.arccos, "Sign": np.sign, "Relu": lambda x, out: np.maximum(x, 0, out=out),
             "Softplus": lambda x, out: np.logaddexp(0, x, out=out), "Sigmoid": lambda x, out: sigmoid(x, out)}
    binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Minimum": np.minimum,
              "Maximum": np.maximum, "Pow": lambda x, y, out: np.power(y, x, out=out), "Mod": np.remainder,
              "MulScalar": lambda x, y, out: np.multiply(x, 2.0, out=out),
              "PowScalar2": lambda x, y, out: np.square(x, out=out)}  # x**2 is np.square in NumPy
    order = list(ufunc) + list(binary)
    for (op, n), ts in sorted(runs.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        o = np.empty(n)
        if op in binary:
            rng = np.random.default_rng(1)
            x, y = rng.random(n) * 8 - 4, rng.random(n) + 0.5
            tb, tm = timed(lambda: binary[op](x, y, out=o), n)
        else:
            x = np.random.default_rng(1).standard_normal(n) * 3
            if op in ("Log", "Sqrt", "Log1p"):
                x = np.exp(x)
            elif op in ("Asin", "Acos"):
                x = np.tanh(x)
            tb, tm = timed(lambda: ufunc[op](x, out=o), n)
        gb, gm = min(ts), sorted(ts)[len(ts) // 2]
        print(f"{op:9s} {n:9d} {gb*1e3:12.3f} {tb*1e3:9.3f} {tb/gb:9.2f} {gm*1e3:12.3f} {tm*1e3:9.3f} {tm/gm:9.2f}")


if __name__ == "__main__":
    main()
