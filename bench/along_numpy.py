"""NumPy peer of ops' Along benchmarks (ops/along_bench_test.go): the same
ops on the same float32 data shapes (n elements; rows of a sqrt(n) x
sqrt(n) matrix), best of several runs, printed as Go benchmark lines
(ns/op) so that the two sets read side by side. Run by the command in
ops/along_bench_test.go with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset."""
import ctypes, os, sys, time
import numpy as np

def corename():
    """The BLAS library NumPy loaded and, if it is OpenBLAS, the kernel
    (core) it picked: np.linalg.norm's dot runs there."""
    np.dot(np.ones(4, np.float32), np.ones(4, np.float32))
    libs = sorted({l.split()[-1] for l in open('/proc/self/maps') if 'blas' in l.lower() and '/' in l})
    for p in libs:
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for f in ('openblas_get_corename', 'openblas_get_corename64_', 'scipy_openblas_get_corename'):
            if hasattr(lib, f):
                fn = getattr(lib, f)
                fn.restype = ctypes.c_char_p
                return 'OpenBLAS core ' + fn().decode(), p
    return 'no OpenBLAS (no openblas_get_corename: reference BLAS)', ' '.join(libs)

def best(f, reps):
    f()
    t = 1e30
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t * 1e9

def lse(x, axis=None):
    m = x.max(axis=axis, keepdims=axis is not None)
    r = np.log(np.exp(x - m).sum(axis=axis))
    return r + (m if axis is None else m.squeeze(axis))

def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1 << 24]
    core, lib = corename()
    print('# numpy %s, BLAS: %s (%s), OPENBLAS_CORETYPE=%r OPENBLAS_L2_SIZE=%r' % (
        np.__version__, core, lib, os.environ.get('OPENBLAS_CORETYPE'), os.environ.get('OPENBLAS_L2_SIZE')))
    try:
        feats = np.core._multiarray_umath.__cpu_features__
        print('# numpy SIMD:', ' '.join(k for k, v in feats.items() if v))
    except AttributeError:
        pass
    rng = np.random.default_rng(1)
    for n in sizes:
        x = rng.standard_normal(n).astype(np.float32)
        side = 1
        while side * side < n:
            side *= 2
        m = x.reshape(n // side, side)  # rows of side elements: Go's dimension 0
        reps = 5 if n <= 1 << 20 else 3
        cases = [
            ('AlongAll/VarAll', lambda: x.var()),
            ('AlongAll/StdAll', lambda: x.std()),
            ('AlongAll/NormL1All', lambda: np.linalg.norm(x, 1)),
            ('AlongAll/NormL2All', lambda: np.linalg.norm(x)),
            ('AlongAll/NormMaxAll', lambda: np.linalg.norm(x, np.inf)),
            ('AlongAll/LogSumExpAll', lambda: lse(x)),
            ('AlongAll/CountNonzeroAll', lambda: np.count_nonzero(x)),
            ('AlongAll/AnyAll', lambda: x.any()),
            ('AlongDim/Var', lambda: m.var(axis=1)),
            ('AlongDim/NormL2', lambda: np.linalg.norm(m, axis=1)),
            ('AlongDim/LogSumExp', lambda: lse(m, 1)),
            ('AlongDim/Softmax', lambda: softmax(m)),
            ('AlongDim/CumSum', lambda: np.cumsum(m, axis=1)),
            ('AlongDim/SortRows', lambda: np.sort(m, axis=1)),
            ('AlongSort/Sort', lambda: np.sort(x)),
            ('AlongSort/ArgSort', lambda: np.argsort(x)),
            ('AlongSort/TopK100', lambda: np.sort(np.partition(x, n - 100)[n - 100:])[::-1]),
        ]
        for name, f in cases:
            r = reps if 'Sort' not in name else 2
            t = best(f, r)
            print('NumPy%s/n=%d\t%d\t%.0f ns/op\t%.2f MB/s' % (name, n, r, t, 4 * n / t * 1e3))

main()
