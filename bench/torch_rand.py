"""PyTorch's device RNG fills beside ops' (device/cuda BenchmarkOps'
RandUniform and RandNormal, 2^24 float32 by default): torch.rand_ and
torch.randn_ into a resident tensor (Philox, as ours), and a device copy of
the same size, each queued back to back and timed by CUDA events.

    /opt/torch/.venv/bin/python3 bench/torch_rand.py [--n 24]
"""
import argparse

import torch


def timed(f, reps):
    f()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        f()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / reps  # µs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=24, help="log2 of the elements")
    p.add_argument("--reps", type=int, default=2000)
    a = p.parse_args()
    n = 1 << a.n
    x, y = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(7)
    for name, f, moved in (("copy", lambda: y.copy_(x), 8 * n),
                           ("rand", lambda: x.uniform_(generator=g), 4 * n),
                           ("randn", lambda: x.normal_(generator=g), 4 * n)):
        us = timed(f, a.reps)
        print(f"torch {name:6s} 2^{a.n} float32: {us:9.2f} µs  {moved / us / 1e3:8.1f} GB/s")


if __name__ == "__main__":
    main()
