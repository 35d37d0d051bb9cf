#!/usr/bin/env python3
"""Host↔device transfers in PyTorch beside ours, size by size (issue 24:
Go memory ≥ 1.0× PyTorch pageable at every size from 64 KiB up; pinned
against pinned).

    /opt/torch/.venv/bin/python3 bench/torch_transfers.py --go opencl-bench.log --json transfers.json

PyTorch: a uint8 tensor of each size, pageable (torch.empty) and pinned
(pin_memory()), copied to and from a CUDA tensor with copy_ and a
synchronize, median of repeated timings after a warm-up. Ours: the
BenchmarkH2D/BenchmarkD2H lines of device/opencl's test binary (-test.bench
'H2D|D2H'), whose host kinds are "go" (Go memory, staged through pinned
chunks above StagingMin) and "pinned" (the device's host memory). The
table pairs go with pageable and pinned with pinned.
"""
import argparse
import json
import re
import statistics
import time

import torch

SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20]


def size_name(n):
    return f"{n >> 20}MiB" if n >= 1 << 20 else f"{n >> 10}KiB"


def median_gbs(fn, n, min_time=0.2):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    t_end = time.perf_counter() + min_time
    while len(ts) < 7 or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return n / statistics.median(ts) / 1e9


def torch_ladder():
    out = {}
    for n in SIZES:
        d = torch.empty(n, dtype=torch.uint8, device="cuda")
        page = torch.ones(n, dtype=torch.uint8)
        pin = torch.ones(n, dtype=torch.uint8).pin_memory()
        out[size_name(n)] = {
            "h2d_pageable": median_gbs(lambda: d.copy_(page), n),
            "d2h_pageable": median_gbs(lambda: page.copy_(d), n),
            "h2d_pinned": median_gbs(lambda: d.copy_(pin), n),
            "d2h_pinned": median_gbs(lambda: pin.copy_(d), n),
        }
    return out


LINE = re.compile(r"^Benchmark(H2D|D2H)/(go|pinned)/(\w+?)-\d+\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) MB/s")


def go_ladder(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                d, kind, size, mbs = m.groups()
                out.setdefault(size, {})[f"{d.lower()}_{kind}"] = float(mbs) / 1e3
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--go", help="output of the device/opencl test binary's H2D and D2H benchmarks")
    p.add_argument("--json", default="transfers.json")
    p.add_argument("--ours", default="device/opencl", help="which device package's benchmarks --go holds, for the table's title")
    a = p.parse_args()
    t = torch_ladder()
    g = go_ladder(a.go) if a.go else {}
    res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "torch_gbs": t, "ours_gbs": g}
    print(f"transfers, GB/s: ours (resident, {a.ours}) against PyTorch {torch.__version__} on {res['device']}")
    print("| size | dir | ours go | PyTorch pageable | ratio | ours pinned | PyTorch pinned | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    worst = None
    for n in SIZES:
        s = size_name(n)
        for d in ("h2d", "d2h"):
            og, op = g.get(s, {}).get(f"{d}_go"), g.get(s, {}).get(f"{d}_pinned")
            tg, tp = t[s][f"{d}_pageable"], t[s][f"{d}_pinned"]
            rg = og / tg if og else None
            rp = op / tp if op else None
            if rg is not None:
                worst = rg if worst is None else min(worst, rg)
            f = lambda x: f"{x:.2f}" if x is not None else "–"
            print(f"| {s} | {d.upper()} | {f(og)} | {tg:.2f} | {f(rg)}× | {f(op)} | {tp:.2f} | {f(rp)}× |")
    if worst is not None:
        print(f"Go memory ÷ PyTorch pageable, worst size: {worst:.2f}× (goal ≥ 1.0×)")
    res["worst_go_over_pageable"] = worst
    with open(a.json, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
