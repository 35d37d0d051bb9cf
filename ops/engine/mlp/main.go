// Command mlp trains a multi-layer perceptron, a gorgonia ExprGraph, on an
// OpenCL device through package engine (github.com/resident-go/resident/ops/engine):
// gorgonia.NewTapeMachine(g, gorgonia.WithEngine(e)) with every value a
// Dense of the device engine. It lives in its own module so that
// gorgonia's dependencies stay out of the library's graph. Run it from
// this directory:
//
//	go run .                      # 784-1024-1024-10, a few steps
//	go run . -sizes 64,32,32,10 -steps 20 -std   # small, and against tensor's standard engine
//	go run . -bench -batch 1024 -warmup 3 -steps 20 -std -std-steps 5   # time per step (issue 23)
//	go test -race .
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
	"github.com/resident-go/resident/ops/tune"
)

func main() {
	var cfg Config
	sizes := flag.String("sizes", "784,1024,1024,10", "layer widths: input, hidden…, classes")
	flag.IntVar(&cfg.Batch, "batch", 64, "examples in the (fixed, full) batch")
	flag.IntVar(&cfg.Steps, "steps", 5, "training steps")
	flag.Float64Var(&cfg.LearnRate, "lr", 0.05, "SGD learning rate")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the synthetic data and the weights")
	flag.BoolVar(&cfg.Stock, "stock", false, "gorgonia's own recipe: SoftMax and Log for the loss, its VanillaSolver on the device too")
	flag.BoolVar(&cfg.Replay, "replay", false, "record one step (engine.Capture) and replay it: with -bench the timed device steps are replays; else steps 4.. replay step 3")
	std := flag.Bool("std", false, "also train on tensor's standard engine and compare (with -bench: and time it)")
	flag.BoolVar(&gemmModel, "gemm-model", false, "device GEMM tilings from ops' model only, none measured (ops.Tuning.Gemm.ModelOnly)")
	flag.StringVar(&gemmTiling, "gemm-tiling", "", "one device GEMM tiling for every float32 product, TM,TN,TK,RM,RN,V (package ops/tune), no split-K")
	flag.IntVar(&stdSpread, "std-spread", 0, "with -std: also train the standard engine this many times with every initial weight one ulp away, and print how far those runs drift from it (rounding's own effect)")
	flag.IntVar(&gemmSplit, "gemm-split", 0, "split every device float32 product's K in this many parts (package ops/tune)")
	var b benchFlags
	flag.StringVar(&deviceKind, "device", deviceKind, "the engine's device: opencl, cuda or sim (kernels as Go on the host: the step is host work)")
	flag.BoolVar(&b.on, "bench", false, "time training steps instead: -warmup steps, then -steps timed ones (default 20), and print a table")
	flag.IntVar(&b.warmup, "warmup", 3, "with -bench: untimed steps first")
	flag.IntVar(&b.stdSteps, "std-steps", 0, "with -bench -std: timed steps on the standard engine (default -steps)")
	flag.StringVar(&b.torch, "torch", "", "with -bench: JSON from bench/torch_mlp.py, to compare with")
	flag.StringVar(&b.json, "json", "", "with -bench: write the report as JSON to this file")
	flag.StringVar(&b.cpuprofile, "cpuprofile", "", "with -bench: write a Go CPU profile of the device engine's timed steps")
	flag.StringVar(&b.trace, "trace", "", "with -bench: write a Go execution trace of the device engine's timed steps")
	flag.IntVar(&b.gogc, "gogc", 400, "with -bench: the Go collector's GOGC for the run (debug.SetGCPercent; the GOGC variable still wins when set); gorgonia's tape machine makes 27.6 MB of registers per step, so at 100 the collector runs every step")
	flag.Parse()
	stepsSet := false
	flag.Visit(func(f *flag.Flag) { stepsSet = stepsSet || f.Name == "steps" })
	if b.on && !stepsSet {
		cfg.Steps = 20
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "mlp: -sizes %q: want positive integers\n", *sizes)
			os.Exit(2)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	run := run
	if b.on {
		run = func(w io.Writer, cfg Config, std bool) error { return runBench(w, cfg, std, b) }
	}
	if err := run(os.Stdout, cfg, *std); err != nil {
		fmt.Fprintln(os.Stderr, "mlp:", err)
		os.Exit(1)
	}
}

// deviceKind is -device: "opencl" (the default OpenCL device) or "cuda"
// (device/cuda's default GPU, whose ops compile with NVRTC).
var deviceKind = "opencl"

// -gemm-model, -gemm-tiling, -gemm-split and -std-spread (run, not -bench).
var (
	gemmModel  bool
	gemmTiling string
	gemmSplit  int
	stdSpread  int
)

// open returns the -device's default device.
func open() (device.Device, error) {
	switch deviceKind {
	case "opencl":
		return opencl.Default()
	case "cuda":
		return cuda.Default()
	case "sim":
		// Kernels run as Go on the host: a step's time is host work.
		return sim.NewCompute("sim", 0), nil
	}
	return nil, fmt.Errorf("-device %q: want opencl, cuda or sim", deviceKind)
}

func run(w io.Writer, cfg Config, std bool) error {
	dev, err := open()
	if err != nil {
		return err
	}
	k, kernels := dev.(device.Kernels)
	if gemmModel {
		t := ops.TuningOf(dev)
		t.Gemm.ModelOnly = true
		ops.SetTuning(dev, t)
	}
	if gemmTiling != "" && kernels {
		var c [6]int
		if _, err := fmt.Sscanf(gemmTiling, "%d,%d,%d,%d,%d,%d", &c[0], &c[1], &c[2], &c[3], &c[4], &c[5]); err != nil {
			return fmt.Errorf("-gemm-tiling %q: want TM,TN,TK,RM,RN,V: %w", gemmTiling, err)
		}
		if err := tune.Gemm.Set(k, 4, c); err != nil {
			return err
		}
	}
	if gemmSplit > 0 && kernels {
		tune.Gemm.Split(k, 4, gemmSplit)
	}
	e := engine.New(dev)
	defer e.Close()
	fmt.Fprintf(w, "MLP %v, batch %d, %d steps of SGD (lr %g) on %s\n", cfg.Sizes, cfg.Batch, cfg.Steps, cfg.LearnRate, dev.Name())
	got, err := Train(cfg, e)
	if err != nil {
		return err
	}
	for i, l := range got.Losses {
		fmt.Fprintf(w, "step %d: loss %.6f\n", i+1, l)
	}
	homes, guarded := "registers too small to let go", "under the transfer guard"
	if !uffd.Available() {
		homes, guarded = "every block each call wrote, without userfaultfd", "unguarded"
	}
	fmt.Fprintf(w, "steps 2..%d %s: %d uploads (%d B), %d downloads (%d B; %d of them %s, copied home, and %d fills)\n", cfg.Steps, guarded, got.Moved.H2DCalls, got.Moved.H2DBytes, got.Moved.D2HCalls, got.Moved.D2HBytes, got.Host.Homed, homes, got.Fills)
	if !std {
		return nil
	}
	want, err := Train(cfg, nil)
	if err != nil {
		return err
	}
	for i := range min(len(got.Losses), len(want.Losses)) {
		g, s := float64(got.Losses[i]), float64(want.Losses[i])
		fmt.Fprintf(w, "step %d: standard engine's loss %.6f, relative difference %.3g\n", i+1, s, math.Abs(g-s)/math.Abs(s))
	}
	if kernels {
		// the forward products: their operands are row-major, as Choice's
		fmt.Fprint(w, "GEMM tilings of the forward products (empty: not tuned):")
		for i := range len(cfg.Sizes) - 1 {
			m, n, kk := cfg.Batch, cfg.Sizes[i+1], cfg.Sizes[i]
			fmt.Fprintf(w, " %d×%d×%d: %q", m, n, kk, tune.Gemm.Choice(k, 4, m, n, kk))
		}
		fmt.Fprintln(w)
	}
	l, wt := got.Compare(want)
	fmt.Fprintf(w, "against the standard engine: loss differs by %.3g (relative), weights by %.3g (max abs / max |w|)\n", l, wt)
	if stdSpread > 0 {
		nudges := make([]uint64, stdSpread)
		for i := range nudges {
			nudges[i] = uint64(i + 1)
		}
		ls, ws, err := StdSpread(cfg, nudges...)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "the standard engine against itself, every initial weight one ulp away (%d draws): loss %.3g, weights %.3g\n", stdSpread, ls, ws)
	}
	return nil
}

type benchFlags struct {
	on                             bool
	warmup, stdSteps, gogc         int
	torch, json, cpuprofile, trace string
}

// runBench times cfg.Steps steps on the default OpenCL device and, with
// std, on the standard engine, and prints the comparison.
func runBench(w io.Writer, cfg Config, std bool, b benchFlags) error {
	rep := BenchReport{Sizes: cfg.Sizes, Batch: cfg.Batch, Warmup: b.warmup}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(b.gogc)
	}
	rep.GOGC = debug.SetGCPercent(-1)
	debug.SetGCPercent(rep.GOGC)
	if b.torch != "" {
		t, err := ReadTorch(b.torch)
		if err != nil {
			return err
		}
		rep.Torch = t
	}
	dev, err := open()
	if err != nil {
		return err
	}
	e := engine.New(dev)
	defer e.Close()
	bc := BenchConfig{Config: cfg, Warmup: b.warmup, Steps: cfg.Steps, CPUProfile: b.cpuprofile, Trace: b.trace}
	d, err := Bench(bc, e)
	if err != nil {
		return fmt.Errorf("device engine: %w", err)
	}
	rep.Device = row(d)
	if std {
		bc.CPUProfile, bc.Trace = "", ""
		if b.stdSteps > 0 {
			bc.Steps = b.stdSteps
		}
		s, err := Bench(bc, nil)
		if err != nil {
			return fmt.Errorf("standard engine: %w", err)
		}
		rep.Standard = row(s)
	}
	rep.Print(w)
	if b.json != "" {
		j, err := json.MarshalIndent(&rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(b.json, append(j, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
