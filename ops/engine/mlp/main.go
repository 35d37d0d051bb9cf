// Command mlp trains a multi-layer perceptron, a gorgonia ExprGraph, on an
// OpenCL device through package engine (github.com/resident-go/resident/ops/engine):
// gorgonia.NewTapeMachine(g, gorgonia.WithEngine(e)) with every value a
// Dense of the device engine. It lives in its own module so that
// gorgonia's dependencies stay out of the library's graph. Run it from
// this directory:
//
//	go run .                      # 784-1024-1024-10, a few steps
//	go run . -sizes 64,32,32,10 -steps 20 -std   # small, and against tensor's standard engine
//	go test -race .
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

func main() {
	var cfg Config
	sizes := flag.String("sizes", "784,1024,1024,10", "layer widths: input, hidden…, classes")
	flag.IntVar(&cfg.Batch, "batch", 64, "examples in the (fixed, full) batch")
	flag.IntVar(&cfg.Steps, "steps", 5, "training steps")
	flag.Float64Var(&cfg.LearnRate, "lr", 0.05, "SGD learning rate")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the synthetic data and the weights")
	std := flag.Bool("std", false, "also train on tensor's standard engine and compare")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "mlp: -sizes %q: want positive integers\n", *sizes)
			os.Exit(2)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	if err := run(os.Stdout, cfg, *std); err != nil {
		fmt.Fprintln(os.Stderr, "mlp:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, cfg Config, std bool) error {
	dev, err := opencl.Default()
	if err != nil {
		return err
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
	fmt.Fprintf(w, "steps 2..%d under the transfer guard: %d uploads (%d B), %d downloads (%d B)\n", cfg.Steps, got.Moved.H2DCalls, got.Moved.H2DBytes, got.Moved.D2HCalls, got.Moved.D2HBytes)
	if !std {
		return nil
	}
	want, err := Train(cfg, nil)
	if err != nil {
		return err
	}
	l, wt := got.Compare(want)
	fmt.Fprintf(w, "against the standard engine: loss differs by %.3g (relative), weights by %.3g (max abs / max |w|)\n", l, wt)
	return nil
}
