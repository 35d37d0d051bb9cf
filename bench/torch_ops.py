#!/usr/bin/env python3
"""PyTorch's figures for bench/cmd/opsbench: the same ops at the same sizes.

    /opt/torch/.venv/bin/python3 bench/torch_ops.py torch_ops.json

float32 add on 2^28 elements (GB/s at 12 bytes/element), sum (4 bytes per
element), a device-to-device copy (8 bytes per element, read + write),
SGEMM 4096 fp32 with TF32 off and DGEMM 4096 (TFLOP/s), both also at
M×N×K 1000³, 4096×4096×64 and 64×4096×4096 (sgemm_1000_tflops,
sgemm_k64_tflops, sgemm_m64_tflops, dgemm_…), a tiny op
(x.add_(1) on 256 float32, then synchronize) in µs; add and sum once more
through torch.compile (add_gbs_compiled, sum_gbs_compiled). Timing: CUDA
synchronize around a loop of at least 0.3 s, after a warm-up, as opsbench
does. Flags: --n LOG2, --gemm N. The mixed chain (brighter → float32 →
scale → sum) is torch_chain.py --chain mixed, beside `residency -chain
mixed`.
"""
import argparse
import json
import sys
import time

import torch


def timeit(fn, min_time=0.3):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        el = time.perf_counter() - t0
        if el >= min_time or n >= 1 << 20:
            return el / n
        n = max(n * 2, int(n * min_time / max(el, 1e-9) / 2))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out", nargs="?", default="torch_ops.json")
    p.add_argument("--n", type=int, default=28)
    p.add_argument("--gemm", type=int, default=4096)
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile figures")
    p.add_argument("--no-shapes", action="store_true", help="skip the GEMM shapes besides --gemm")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    r = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}

    n = 1 << a.n
    x = torch.arange(n, device=dev, dtype=torch.float32) / n
    y = torch.ones(n, device=dev, dtype=torch.float32)
    z = torch.empty_like(x)
    t = timeit(lambda: torch.add(x, y, out=z))
    r["add_gbs"] = 12 * n / t / 1e9
    s = torch.empty((), device=dev, dtype=torch.float32)
    t = timeit(lambda: torch.sum(x, 0, out=s))
    r["sum_gbs"] = 4 * n / t / 1e9
    t = timeit(lambda: z.copy_(x))
    r["copy_gbs"] = 8 * n / t / 1e9
    if not a.no_compile:
        # torch.compile of the same ops (inductor's generated kernels), as
        # "<key>_compiled" beside the eager figure.
        cadd = torch.compile(lambda u, v: u + v, dynamic=False)
        csum = torch.compile(lambda u: u.sum(), dynamic=False)
        r["add_gbs_compiled"] = 12 * n / timeit(lambda: cadd(x, y)) / 1e9
        r["sum_gbs_compiled"] = 4 * n / timeit(lambda: csum(x)) / 1e9
    del x, y, z

    g = a.gemm
    for key, dt in (("sgemm_tflops", torch.float32), ("dgemm_tflops", torch.float64)):
        A = torch.rand(g, g, device=dev, dtype=dt)
        B = torch.rand(g, g, device=dev, dtype=dt)
        C = torch.empty(g, g, device=dev, dtype=dt)
        t = timeit(lambda: torch.matmul(A, B, out=C))
        r[key] = 2 * g**3 / t / 1e12
        del A, B, C
    # The other shapes opsbench measures (M×N×K), under the same keys.
    if not a.no_shapes:
        for tag, (m, nn, k) in (("1000", (1000, 1000, 1000)), ("k64", (4096, 4096, 64)), ("m64", (64, 4096, 4096)), ("mlp", (1024, 784, 1024))):
            for pre, dt in (("sgemm", torch.float32), ("dgemm", torch.float64)):
                A = torch.rand(m, k, device=dev, dtype=dt)
                B = torch.rand(k, nn, device=dev, dtype=dt)
                C = torch.empty(m, nn, device=dev, dtype=dt)
                t = timeit(lambda: torch.matmul(A, B, out=C))
                r[f"{pre}_{tag}_tflops"] = 2 * m * nn * k / t / 1e12
                del A, B, C

    tiny = torch.zeros(256, device=dev, dtype=torch.float32)

    def tiny_op():
        tiny.add_(1)
        torch.cuda.synchronize()

    r["tiny_op_us"] = timeit(tiny_op) * 1e6

    with open(a.out, "w") as fh:
        json.dump(r, fh, indent=2)
    json.dump(r, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
