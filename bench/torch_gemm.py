#!/usr/bin/env python3
"""PyTorch's GEMM in the precisions device/cuda's BenchmarkGemm runs, for
the same n×n×n product (issue 25's goals: fp32 ≥ 0.95×, TF32 and fp16
≥ 0.9×, fp64 ≥ 0.9×):

    /opt/torch/.venv/bin/python3 bench/torch_gemm.py --n 4096 --json torch_gemm.json

fp32 with TF32 off, tf32 with it on, fp16, bf16 (torch's default fp32
accumulation), fp64, in TFLOP/s. Timing: after a warm-up, a loop of at
least 0.4 s with torch.cuda.synchronize() after every product, as the Go
benchmark waits for the device after each.
"""
import argparse
import json
import time

import torch


def tflops(n, dtype, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.ones(n, n, device="cuda", dtype=dtype)
    b = torch.ones(n, n, device="cuda", dtype=dtype)
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    for _ in range(3):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.4:
        torch.matmul(a, b, out=c)
        torch.cuda.synchronize()
        reps += 1
    return 2 * n**3 * reps / (time.perf_counter() - t0) / 1e12


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--json", default="torch_gemm.json")
    a = p.parse_args()
    out = {"n": a.n, "torch": torch.__version__, "device": torch.cuda.get_device_name()}
    for name, dt, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True), ("fp16", torch.float16, False),
                           ("bf16", torch.bfloat16, False), ("fp64", torch.float64, False)):
        out[name + "_tflops"] = tflops(a.n, dt, tf32)
        print(f"torch {name} {a.n}: {out[name + '_tflops']:.1f} TFLOP/s", flush=True)
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
