#!/usr/bin/env python3
"""The residency benchmark's chain in PyTorch, for comparison with ours.

--chain brighter (default): N stages of saturating +k on a W x H uint8
image. --chain mixed: the chain that mixes a Halide stage with ops in
`residency -chain mixed`: saturating +k on uint8 -> cast to float32 ->
* scale -> sum into a float32 scalar (4 stages). Upload and download
included, in two modes and with two kinds of host memory:

  resident   upload once, the stages on the device, download the last
             stage's output once (for the mixed chain, only the sum)
  compiled   resident, with the stages one torch.compile'd function
             (fused kernels; the full chain only; --no-compile skips it)
  roundtrip  every stage uploads its input and downloads its output

  pageable   ordinary host memory (torch.empty)
  pinned     page-locked host memory (pin_memory=True)

Each iteration is timed on the wall clock from a synchronized device to the
end of the (blocking) final download, as the Go benchmark times it; CUDA
events give the device-side time as well. Ceilings (H2D, D2H of the image,
D2D copy) are measured the same way, plus H2D/D2H at --copy-gib GiB.

Every result is checked once after timing against a float64 host
computation: exactly up to the cast, within 1e-6 relative after the scale
and 1e-5 for the sum (bench.ScaleTol, bench.SumTol in Go).

Prints the same markdown table as `residency`; --json writes what
`residency -torch FILE` reads. Run on the H200 with
  /opt/torch/.venv/bin/python3 bench/torch_chain.py --json $OUT/torch.json
  /opt/torch/.venv/bin/python3 bench/torch_chain.py --chain mixed --json $OUT/torch-mixed.json
"""

import argparse
import json
import statistics
import sys
import time

import torch


def saturating_add_(x, k):
    # Clamp first, then add: x <= 255-k cannot overflow, x > 255-k lands on
    # 255. Exact for every k in 0..255, in place, two kernels.
    return x.clamp_(max=255 - k).add_(k)


def quantile(sorted_xs, q):
    pos = q * (len(sorted_xs) - 1)
    i = int(pos)
    if i + 1 >= len(sorted_xs):
        return sorted_xs[-1]
    f = pos - i
    return sorted_xs[i] + f * (sorted_xs[i + 1] - sorted_xs[i])


def summarize(ms):
    s = sorted(ms)
    return {
        "median_ms": statistics.median(s),
        "p10_ms": quantile(s, 0.1),
        "p90_ms": quantile(s, 0.9),
        "min_ms": s[0],
        "max_ms": s[-1],
    }


class Timer:
    """Wall-clock and CUDA-event time of fn, after warm-up."""

    def __init__(self, dev, warmup, reps):
        self.dev, self.warmup, self.reps = dev, warmup, reps
        self.cuda = dev.type == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.dev)

    def run(self, fn):
        for _ in range(self.warmup):
            fn()
        self.sync()
        wall, events = [], []
        for _ in range(self.reps):
            if self.cuda:
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
            t = time.perf_counter()
            fn()
            if self.cuda:
                end.record()
            self.sync()
            wall.append((time.perf_counter() - t) * 1e3)
            if self.cuda:
                events.append(start.elapsed_time(end))
        out = summarize(wall)
        if events:
            out["event_median_ms"] = statistics.median(events)
        return out


def host_tensor(n, pinned):
    return torch.empty(n, dtype=torch.uint8, pin_memory=pinned)


def chain(args, dev, timer, mode, pinned, stages):
    n, k = args.width * args.height, args.k
    src = host_tensor(n, pinned)
    src.copy_(torch.arange(n, dtype=torch.int64).mul_(7).add_(torch.arange(n) // 4099).remainder_(256).to(torch.uint8))
    out = host_tensor(n, pinned)
    d = torch.empty(n, dtype=torch.uint8, device=dev)

    if mode == "resident":
        def it():
            d.copy_(src, non_blocking=pinned)
            for _ in range(stages):
                saturating_add_(d, k)
            out.copy_(d)  # blocking: the host holds the result on return
    elif mode == COMPILED:
        def stages_fn(x):
            for _ in range(stages):
                x = torch.clamp(x, max=255 - k) + k  # uint8 stays uint8
            return x
        fused = torch.compile(stages_fn, dynamic=False)

        def it():
            d.copy_(src, non_blocking=pinned)
            out.copy_(fused(d))
    else:
        tmp = host_tensor(n, pinned)

        def it():
            x = src
            for i in range(stages):
                d.copy_(x, non_blocking=pinned)
                saturating_add_(d, k)
                y = out if (stages - i) % 2 == 1 else tmp
                y.copy_(d)  # blocking, as a host-only output must be current
                x = y

    res = timer.run(it)
    # Check once, like the Go benchmark: wrong results must not get a time.
    want = torch.clamp(src.to(torch.int16) + stages * k, max=255).to(torch.uint8)
    if not torch.equal(out, want):
        bad = (out != want).nonzero()[0].item()
        sys.exit(f"torch_chain: wrong output in {mode} {pinned=} after {stages} stages at {bad}: {out[bad]} want {want[bad]}")
    one = mode in ("resident", COMPILED)
    res.update(mode=mode, memory="pinned" if pinned else "pageable", stages=stages,
               h2d_calls=1 if one else stages, d2h_calls=1 if one else stages)
    return res


# The mode of the resident chain as one torch.compile'd function (Go's
# bench.Compiled).
COMPILED = "compiled"


# Relative tolerances of the mixed chain's float outputs, as in Go's bench
# package: the scale rounds each product to float32, the sum's float32
# result holds 6e-8 and a float32 accumulation loses a little more.
SCALE_TOL, SUM_TOL = 1e-6, 1e-5


def pattern(n):
    """The input image every trial starts from, as in Go's bench.pattern."""
    return torch.arange(n, dtype=torch.int64).mul_(7).add_(torch.arange(n) // 4099).remainder_(256).to(torch.uint8)


def mixed_chain(args, dev, timer, mode, pinned, stages):
    """The first `stages` stages of brighter -> cast_f32 -> scale -> sum.

    Each stage writes its own device buffer, as the Go stages write their
    own Arrays: d (uint8, brightened in place after the upload), f (float32
    cast), g (float32 scaled), s (the float32 sum, one element like Go's).
    """
    n, k, scale = args.width * args.height, args.k, args.scale
    src = host_tensor(n, pinned)
    src.copy_(pattern(n))
    d = torch.empty(n, dtype=torch.uint8, device=dev)
    f = torch.empty(n, dtype=torch.float32, device=dev)
    g = torch.empty(n, dtype=torch.float32, device=dev)
    s = torch.empty(1, dtype=torch.float32, device=dev)
    outs = [d, f, g, s]
    ins = [d, d, f, g]  # what stage i reads (stage 0 brightens the upload in place)
    run = [
        lambda: saturating_add_(d, k),
        lambda: f.copy_(d),
        lambda: torch.mul(f, scale, out=g),  # the scalar multiplies as float32
        lambda: torch.sum(g, 0, keepdim=True, out=s),
    ]
    hosts = [torch.empty(o.numel(), dtype=o.dtype, pin_memory=pinned) for o in outs]

    if mode == "resident":
        def it():
            d.copy_(src, non_blocking=pinned)
            for i in range(stages):
                run[i]()
            hosts[stages - 1].copy_(outs[stages - 1])  # blocking
    elif mode == COMPILED:
        s32 = torch.tensor(scale, dtype=torch.float32, device=dev)

        def chain_fn(x):
            steps = [lambda v: torch.clamp(v, max=255 - k) + k, lambda v: v.to(torch.float32),
                     lambda v: v * s32, lambda v: v.sum().reshape(1)]
            for step in steps[:stages]:
                x = step(x)
            return x
        fused = torch.compile(chain_fn, dynamic=False)

        def it():
            d.copy_(src, non_blocking=pinned)
            hosts[stages - 1].copy_(fused(d))  # blocking
    else:
        def it():
            for i in range(stages):
                ins[i].copy_(src if i == 0 else hosts[i - 1], non_blocking=pinned)
                run[i]()
                hosts[i].copy_(outs[i])  # blocking, as a host-only output must be current

    res = timer.run(it)
    # Check once against float64 on the host: wrong results get no time.
    b = (src.to(torch.float64) + k).clamp_(max=255)
    s32 = float(torch.tensor(scale, dtype=torch.float32))
    want = [b, b, b * s32, (b * s32).sum().reshape(1)][stages - 1]
    tol = [0, 0, SCALE_TOL, SUM_TOL][stages - 1]
    got = hosts[stages - 1].to(torch.float64)
    bad = ((got - want).abs() > tol * want.abs()).nonzero()
    if bad.numel() > 0:
        i = bad[0].item()
        sys.exit(f"torch_chain: wrong output in mixed {mode} {pinned=} after {stages} stages at {i}: "
                 f"{got[i].item()} want {want[i].item()} (relative tolerance {tol})")
    sizes = [n, 4 * n, 4 * n, 4]  # output bytes of each stage
    up = [n] + sizes[:-1]          # input bytes of each stage
    if mode in ("resident", COMPILED):
        h2d, d2h, h2d_b, d2h_b = 1, 1, n, sizes[stages - 1]
    else:
        h2d, d2h, h2d_b, d2h_b = stages, stages, sum(up[:stages]), sum(sizes[:stages])
    res.update(mode=mode, memory="pinned" if pinned else "pageable", stages=stages,
               h2d_calls=h2d, d2h_calls=d2h, h2d_bytes=h2d_b, d2h_bytes=d2h_b,
               traffic_bytes=sum(up[:stages]) + sum(sizes[:stages]))
    return res


def copies(dev, timer, nbytes, pinned):
    h = host_tensor(nbytes, pinned)
    h.fill_(1)
    d = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    h2d = timer.run(lambda: d.copy_(h, non_blocking=pinned))
    d2h = timer.run(lambda: h.copy_(d, non_blocking=pinned))
    return {"memory": "pinned" if pinned else "pageable", "bytes": nbytes,
            "h2d_gbps": nbytes / h2d["median_ms"] / 1e6, "d2h_gbps": nbytes / d2h["median_ms"] / 1e6,
            "h2d_ms": h2d["median_ms"], "d2h_ms": d2h["median_ms"]}


def d2d(dev, timer, nbytes):
    a = torch.ones(nbytes, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    t = timer.run(lambda: b.copy_(a))
    return {"bytes": nbytes, "median_ms": t["median_ms"], "gbps_read_write": 2 * nbytes / t["median_ms"] / 1e6}


def fmt_ms(v):
    return f"{v:.1f}" if v >= 100 else f"{v:.2f}" if v >= 10 else f"{v:.3f}"


def table(rep, args, show_all):
    nbytes = args.width * args.height
    chain = f"{args.stages} × saturating +{args.k} (clamp_ + add_)"
    if args.chain == "mixed":
        chain = (f"saturating +{args.k} → float32 → × {args.scale:g} → sum ({args.stages} stages: "
                 f"clamp_ + add_, copy_, mul, sum)")
    lines = [f"**PyTorch {rep['torch']} on {rep['device']}** — {chain} "
             f"on a {args.width}×{args.height} uint8 image ({nbytes / 2**20:.1f} MiB); "
             f"median of {args.reps} repetitions after {args.warmup} warm-up.",
             f"Command: `{rep['command']}`", "",
             "| host memory | H2D GB/s | D2H GB/s | H2D+D2H GB/s | D2D GB/s (read+write) |",
             "|---|---:|---:|---:|---:|"]
    dd = rep["extra"]["d2d"]
    ceil = {}
    for c in rep["copies"]:
        if c["bytes"] != nbytes:
            continue
        ceil[c["memory"]] = c
        hd = 2 * nbytes / (c["h2d_ms"] + c["d2h_ms"]) / 1e6
        lines.append(f"| {c['memory']} | {c['h2d_gbps']:.2f} | {c['d2h_gbps']:.2f} | {hd:.2f} | {dd['gbps_read_write']:.2f} |")
    lines += ["", "| mode | host memory | stages | median ms | p10–p90 ms | H2D/iter | D2H/iter | MB moved/iter "
              "| effective GB/s | of ideal | × resident |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = {(r["memory"], r["stages"]): r["median_ms"] for r in rep["results"] if r["mode"] == "resident"}
    for r in rep["results"]:
        if not show_all and r["stages"] != args.stages:
            continue
        c = ceil[r["memory"]]
        if "traffic_bytes" in r:  # mixed: transfers and stages of their own sizes
            ideal = (r["h2d_bytes"] / nbytes * c["h2d_ms"] + r["d2h_bytes"] / nbytes * c["d2h_ms"]
                     + r["traffic_bytes"] / (2 * nbytes) * dd["median_ms"])
            eff = r["traffic_bytes"] / r["median_ms"] / 1e6
            moved = (r["h2d_bytes"] + r["d2h_bytes"]) / 1e6
        else:
            ideal = r["h2d_calls"] * c["h2d_ms"] + r["d2h_calls"] * c["d2h_ms"] + r["stages"] * dd["median_ms"]
            eff = 2 * nbytes * r["stages"] / r["median_ms"] / 1e6
            moved = (r["h2d_calls"] + r["d2h_calls"]) * nbytes / 1e6
        vs = r["median_ms"] / base[(r["memory"], r["stages"])]
        lines.append(f"| {r['mode']} | {r['memory']} | {r['stages']} | {fmt_ms(r['median_ms'])} | "
                     f"{fmt_ms(r['p10_ms'])}–{fmt_ms(r['p90_ms'])} | {r['h2d_calls']} | {r['d2h_calls']} | "
                     f"{moved:.1f} | {eff:.1f} | {100 * ideal / r['median_ms']:.0f}% | {vs:.2f} |")
    big = [c for c in rep["copies"] if c["bytes"] != nbytes]
    if big:
        lines += ["", "| host memory | copy size | H2D GB/s | D2H GB/s |", "|---|---:|---:|---:|"]
        for c in big:
            lines.append(f"| {c['memory']} | {c['bytes'] / 2**30:g} GiB | {c['h2d_gbps']:.2f} | {c['d2h_gbps']:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="4096", help="N (N×N) or WxH")
    p.add_argument("--chain", choices=("brighter", "mixed"), default="brighter",
                   help="brighter: --stages x saturating +k; mixed: +k -> float32 -> * scale -> sum")
    p.add_argument("--stages", type=int, help="stages of the brighter chain (default 8; the mixed chain has 4)")
    p.add_argument("--k", type=int, default=1, help="what each brighter stage adds, saturating, 0..255")
    p.add_argument("--scale", type=float, default=1 / 255, help="the mixed chain's scale (as float32)")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--no-ladder", action="store_true", help="only the full chain, not 1..stages")
    p.add_argument("--all", action="store_true", help="print every chain length")
    p.add_argument("--copy-gib", type=float, default=1.0, help="also time H2D/D2H of this many GiB (0: skip)")
    p.add_argument("--device", default="cuda", help="torch device (cpu only to test the script)")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile'd resident chain")
    p.add_argument("--json", help="write the results here, for residency -torch")
    args = p.parse_args()
    w, _, h = args.size.lower().partition("x")
    try:
        args.width, args.height = int(w), int(h or w)
    except ValueError:
        p.error(f"--size {args.size!r}: want N or WxH")
    if args.chain == "mixed":
        if args.stages not in (None, 4):
            p.error(f"--stages {args.stages}: the mixed chain has 4 stages (brighter, cast_f32, scale, sum)")
        args.stages = 4
    elif args.stages is None:
        args.stages = 8
    if not (args.width > 0 and args.height > 0 and 1 <= args.stages <= 64 and 0 <= args.k <= 255 and args.reps > 0):
        p.error("want size > 0, 1 <= stages <= 64, 0 <= k <= 255, reps > 0")
    dev = torch.device(args.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_chain: CUDA is not available (use --device cpu only to test the script)")
    pin = dev.type == "cuda"  # pinning needs CUDA
    timer = Timer(dev, args.warmup, args.reps)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    nbytes = args.width * args.height
    rep = {"device": name, "torch": torch.__version__, "chain": args.chain, "width": args.width, "height": args.height,
           "stages": args.stages, "reps": args.reps, "command": " ".join(["torch_chain.py"] + sys.argv[1:]),
           "results": [], "copies": [], "extra": {}}
    mems = [False, True] if pin else [False]
    for pinned in mems:
        rep["copies"].append(copies(dev, timer, nbytes, pinned))
    rep["extra"]["d2d"] = d2d(dev, timer, nbytes)
    if args.chain == "mixed":
        rep["extra"].update(k=args.k, scale=args.scale)
    run_chain = mixed_chain if args.chain == "mixed" else chain
    lengths = [args.stages] if args.no_ladder else range(1, args.stages + 1)
    for n in lengths:
        modes = ["resident", "roundtrip"]
        if n == args.stages and not args.no_compile:
            modes.insert(1, COMPILED)  # compiling every length costs minutes
        for mode in modes:
            for pinned in mems:
                rep["results"].append(run_chain(args, dev, timer, mode, pinned, n))
                print(f"torch_chain: {mode} {'pinned' if pinned else 'pageable'} {n} stages: "
                      f"{rep['results'][-1]['median_ms']:.3f} ms", file=sys.stderr)
    if args.copy_gib > 0:
        big = int(args.copy_gib * 2**30)
        big_timer = Timer(dev, 2, 10)
        for pinned in mems:
            rep["copies"].append(copies(dev, big_timer, big, pinned))
    print(table(rep, args, args.all))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rep, f, indent=2)


if __name__ == "__main__":
    main()
