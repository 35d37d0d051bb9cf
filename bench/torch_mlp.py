#!/usr/bin/env python3
"""PyTorch's figures for the mlp module's -bench mode (issue 23).

    /opt/torch/.venv/bin/python3 bench/torch_mlp.py --json torch-mlp.json
    python3 bench/torch_mlp.py --device cpu --batch 64 --steps 5   # quick check of the script

The same MLP as ops/engine/mlp: widths 784-1024-1024-10 (--sizes), no
biases, ReLU between layers, softmax cross-entropy (mean over the batch),
plain SGD (lr 0.05, no momentum), batch 1024, Glorot-uniform weights; data
by the same recipe (inputs uniform in [0, 1), labels the argmax of a fixed
random normal linear map of them; one fixed batch), though from torch's
generator, not Go's, so the numbers differ, not their kind. float32, with
TF32 off (as our SGEMM is plain fp32; --tf32 turns it on).

One step: zero the gradients, forward and loss, backward, SGD update, then
read the loss home (loss.item(), as the Go step reads its loss; --no-read-loss
leaves it out). Timing: --warmup steps, then --steps steps each between
torch.cuda.synchronize() calls (median, p10, p90 in ms); then "pipelined":
--steps steps queued back to back without reading the loss, one synchronize,
per step. Two modes, each on a fresh model: eager, and torch.compile of the
loss (forward and, through AOTAutograd, backward) and of the optimizer step
(--compile-mode picks a mode, e.g. reduce-overhead for CUDA graphs). A mode
that fails records its error and the other still runs.

The JSON (what `mlp -bench -torch FILE` reads): torch, device, sizes,
batch, lr, tf32, read_loss, and per mode (eager, compile): median_ms,
p10_ms, p90_ms, steps_per_s, pipelined_ms, steps, warmup_s (warm-up time,
compilation included), first_loss, last_loss, times_ms, error.
"""
import argparse
import json
import math
import sys
import time
import traceback

import torch
import torch.nn.functional as F


def make_data(sizes, batch, seed, device):
    g = torch.Generator().manual_seed(seed)
    inp, classes = sizes[0], sizes[-1]
    proj = torch.randn(inp, classes, generator=g)
    x = torch.rand(batch, inp, generator=g)
    labels = (x @ proj).argmax(dim=1)
    return x.to(device), labels.to(device)


def make_weights(sizes, seed, device):
    ws = []
    for k in range(len(sizes) - 1):
        g = torch.Generator().manual_seed(seed * 1000 + 100 + k)
        lim = math.sqrt(6 / (sizes[k] + sizes[k + 1]))
        w = (torch.rand(sizes[k], sizes[k + 1], generator=g) * 2 - 1) * lim
        ws.append(w.to(device))
    return ws


class MLPLoss(torch.nn.Module):
    """x·w1 → ReLU → … → ·wL, then softmax cross-entropy against labels."""

    def __init__(self, ws):
        super().__init__()
        self.ws = torch.nn.ParameterList([torch.nn.Parameter(w.detach().clone()) for w in ws])

    def forward(self, x, labels):
        h = x
        for k, w in enumerate(self.ws):
            h = h @ w
            if k + 1 < len(self.ws):
                h = F.relu(h)
        return F.cross_entropy(h, labels)


def percentile(sorted_ms, q):
    return sorted_ms[int(q * (len(sorted_ms) - 1) + 0.5)]


def summary(times_ms):
    s = sorted(times_ms)
    n = len(s)
    med = s[n // 2] if n % 2 == 1 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"median_ms": med, "p10_ms": percentile(s, 0.1), "p90_ms": percentile(s, 0.9),
            "steps_per_s": 1000 / med if med > 0 else 0.0}


def run_mode(mode, a, x, labels, ws, sync):
    model = MLPLoss(ws)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    loss_fn, opt_step = model, opt.step
    if mode == "compile":
        kw = {"mode": a.compile_mode} if a.compile_mode else {}
        loss_fn = torch.compile(model, **kw)

        @torch.compile(fullgraph=False, **kw)
        def opt_step():  # as PyTorch's "compiling the optimizer" recipe
            opt.step()

    # reduce-overhead replays CUDA graphs whose outputs the next replay
    # overwrites: each step tells it a new iteration begins.
    graphs = mode == "compile" and a.compile_mode == "reduce-overhead"

    def step(read):
        if graphs:
            torch.compiler.cudagraph_mark_step_begin()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(x, labels)
        loss.backward()
        opt_step()
        return loss.item() if read else loss

    r = {"steps": a.steps, "error": ""}
    t0 = time.perf_counter()
    first = None
    for i in range(a.warmup):
        v = step(True)
        first = v if first is None else first
    sync()
    r["warmup_s"] = time.perf_counter() - t0
    times = []
    last = first
    for _ in range(a.steps):
        sync()
        t0 = time.perf_counter()
        v = step(a.read_loss)
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
        last = v
    sync()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        step(False)
    sync()
    r["pipelined_ms"] = (time.perf_counter() - t0) * 1e3 / a.steps
    r.update(summary(times))
    r["first_loss"] = float(first) if first is not None else None
    r["last_loss"] = float(last) if last is not None else None
    r["times_ms"] = times
    return r


def gemm_floor(x, ws, sync, reps=200):
    """The step's matrix products alone, as autograd runs them (forward h@w;
    backward h.T@g for each weight and g@w.T for each hidden input), queued
    reps times back to back with one synchronize: the step's GEMM time on
    the device, a floor for any fp32 step that uses the same library."""
    hs, h = [], x
    for w in ws:
        hs.append(h)
        h = h @ w
    gs = [torch.randn_like(h0 @ w) for h0, w in zip(hs, ws)]
    prods = []
    for k, (h0, w, g) in enumerate(zip(hs, ws, gs)):
        prods.append(("fwd %dx%dx%d" % (h0.shape[0], h0.shape[1], w.shape[1]), lambda h0=h0, w=w: h0 @ w))
        prods.append(("dW %dx%dx%d" % (h0.shape[1], h0.shape[0], g.shape[1]), lambda h0=h0, g=g: h0.t() @ g))
        if k > 0:
            prods.append(("dX %dx%dx%d" % (g.shape[0], g.shape[1], w.shape[0]), lambda g=g, w=w: g @ w.t()))

    def timed(fs):
        for f in fs:
            f()
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            for f in fs:
                f()
        sync()
        return (time.perf_counter() - t0) * 1e3 / reps

    out = {"total_ms": timed([f for _, f in prods]), "gemms": {}}
    for name, f in prods:
        out["gemms"][name] = timed([f])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", default="torch-mlp.json", help="output file")
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (a quick check)")
    p.add_argument("--sizes", default="784,1024,1024,10")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--modes", default="eager,compile")
    p.add_argument("--compile-mode", default="", help="torch.compile mode (default: its default)")
    p.add_argument("--tf32", action="store_true", help="allow TF32 matmuls (default: plain fp32)")
    p.add_argument("--gemm-floor", action="store_true",
                   help="also time the step's matrix products alone (gemm_floor in the JSON)")
    p.add_argument("--no-read-loss", dest="read_loss", action="store_false",
                   help="don't read the loss home in the timed steps")
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    dev = torch.device(a.device)
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    torch.backends.cudnn.allow_tf32 = a.tf32
    if dev.type == "cuda":
        name = torch.cuda.get_device_name(dev)
        sync = torch.cuda.synchronize
    else:
        name = "cpu (%d threads)" % torch.get_num_threads()
        sync = lambda: None
    x, labels = make_data(sizes, a.batch, a.seed, dev)
    ws = make_weights(sizes, a.seed, dev)
    out = {"torch": torch.__version__, "device": name, "sizes": sizes, "batch": a.batch, "lr": a.lr,
           "tf32": a.tf32, "read_loss": a.read_loss, "compile_mode": a.compile_mode or "default"}
    if a.gemm_floor:
        out["gemm_floor"] = g = gemm_floor(x, ws, sync)
        print("gemm floor %.3f ms/step (%s)" % (g["total_ms"], ", ".join("%s %.3f" % kv for kv in g["gemms"].items())))
    for mode in a.modes.split(","):
        try:
            out[mode] = run_mode(mode, a, x, labels, ws, sync)
        except Exception as e:  # a mode that fails (say, no compiler for torch.compile) is recorded
            traceback.print_exc()
            out[mode] = {"error": "%s: %s" % (type(e).__name__, e)}
        r = out[mode]
        if r.get("error"):
            print("%-8s failed: %s" % (mode, r["error"].splitlines()[0] if r["error"] else ""))
        else:
            print("%-8s median %.3f ms/step (p10 %.3f, p90 %.3f), %.1f steps/s, pipelined %.3f ms/step, "
                  "warm-up %.1f s, loss %.4f → %.4f" % (mode, r["median_ms"], r["p10_ms"], r["p90_ms"], r["steps_per_s"],
                                                      r["pipelined_ms"], r["warmup_s"], r["first_loss"], r["last_loss"]))
    with open(a.json, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print("wrote", a.json, "(%s, torch %s)" % (name, torch.__version__))
    return 0 if all(not out[m].get("error") for m in a.modes.split(",")) else 1


if __name__ == "__main__":
    sys.exit(main())
