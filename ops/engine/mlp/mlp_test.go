package main

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

var (
	sizesFlag = flag.String("mlp.sizes", "64,32,32,10", "layer widths for TestTrainMatchesStdEngine (784,1024,1024,10 for the full MLP)")
	stepsFlag = flag.Int("mlp.steps", 10, "training steps")
	batchFlag = flag.Int("mlp.batch", 16, "batch size")
)

// The documented tolerance: after N steps the device run's losses and
// weights are within this (relative; weights as max |Δw| / max |w|) of the
// same graph on tensor's standard engine. Float32 sums on the device add
// in another order; measured 1.3e-7 for the default sizes and 10 steps.
const tolerance = 1e-4

// The graph trains on the device through the engine: losses and weights
// match the standard engine's, the loss falls, the weights' newest copies
// are on the device, and over steps 2..N under the transfer guard the
// only transfers are, per step, the loss (one float32 home: the 0-D sum
// gorgonia reads from host memory) and the mean's gradient seed (a
// batch×1 column gorgonia fills on the host in repeatOp's preallocated
// path, uploaded once).
//
// Stock: gorgonia's own recipe (SoftMax and Log, its VanillaSolver, which
// zeroes the gradients behind the engine's back) moves the same.
func TestTrainMatchesStdEngine(t *testing.T) {
	for _, stock := range []bool{false, true} {
		t.Run(map[bool]string{false: "recipe", true: "stock"}[stock], func(t *testing.T) { trainMatches(t, stock) })
	}
}

func trainMatches(t *testing.T, stock bool) {
	dev, err := opencl.Default()
	if err != nil {
		t.Skip(err)
	}
	cfg := Config{Batch: *batchFlag, Steps: *stepsFlag, LearnRate: 0.05, Seed: 1, Stock: stock}
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	e := engine.New(dev)
	defer e.Close()
	got, err := Train(cfg, e)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Train(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, w := got.Compare(want)
	t.Logf("losses %v (standard engine %v)", got.Losses, want.Losses)
	t.Logf("max relative loss difference %.3g, weight difference %.3g; steps 2..%d moved %v", l, w, cfg.Steps, got.Moved)
	if l > tolerance || w > tolerance {
		t.Fatalf("device run differs from the standard engine's: losses by %.3g, weights by %.3g (tolerance %g)", l, w, tolerance)
	}
	if first, last := got.Losses[0], got.Losses[len(got.Losses)-1]; !(last < first) {
		t.Fatalf("the loss did not fall: %v", got.Losses)
	}
	if !got.OnDevice && uffd.Available() {
		t.Fatal("the weights' newest copies are not on the device: the updates did not run there")
	}
	n := int64(cfg.Steps - 1)
	m := got.Moved
	// Besides the loss: registers too small to let go come home after the
	// ops that write them, and gradients whose host copies were let go are
	// filled when the stock solver zeroes them.
	if d := m.D2HCalls - got.Host.Homed - got.Fills; d != n || got.Fills > 0 && !stock {
		t.Fatalf("steps 2..%d copied home %d times (%d B): %d small registers, %d fills; want once per step, the 4-byte loss, besides", cfg.Steps, m.D2HCalls, m.D2HBytes, got.Host.Homed, got.Fills)
	}
	if uffd.Available() && (m.H2DCalls != n || m.H2DBytes != 4*int64(cfg.Batch)*n) {
		t.Fatalf("steps 2..%d uploaded %d times (%d B), want once per step, the %d-byte gradient seed", cfg.Steps, m.H2DCalls, m.H2DBytes, 4*cfg.Batch)
	}
	// The engine's host side: the seed's register (written through Data
	// before its first use) is the only host memory it scans; it clears
	// none and makes no pinned allocation (results and scratch are mapped
	// lazily or pooled).
	// Stock: gorgonia's solver zeroes each gradient with Dense.Zero; the
	// engine reads the gradient's host memory once to see that all of it
	// is zero (then sets the zeros on the device, no transfer).
	scan := 4 * int64(cfg.Batch)
	if stock {
		for k := 0; k+1 < len(cfg.Sizes); k++ {
			scan += 4 * int64(cfg.Sizes[k]*cfg.Sizes[k+1])
		}
	}
	if h := got.Host; uffd.Available() && h.Scanned != scan*n || h.Cleared != 0 || h.Pinned != 0 {
		t.Fatalf("steps 2..%d: the engine's host work %+v, want %d B scanned (the seed's register each step, and the zeroed gradients for the stock solver), nothing cleared, no pinned allocation", cfg.Steps, h, scan*n)
	}
}

// A recorded step replays to the eager run's losses and weights: steps 1
// and 2 run eagerly, step 3 is captured (engine.Capture), steps 4..N
// replay it with no gorgonia machine and no engine call — the recipe and
// gorgonia's stock one, on one fixed batch and on a new batch each step
// (written into x, the Capture's input). Each replay launches the
// recorded work and moves the same bytes as an eager step: the seed (and
// the batch) up, the loss's sum home.
func TestTrainReplayed(t *testing.T) {
	devs := []device.Device{sim.NewCompute("replay", 1<<30)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	}
	for _, dev := range devs {
		for _, c := range []struct{ stock, batches bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			trainReplayed(t, dev, c.stock, c.batches)
		}
	}
}

func trainReplayed(t *testing.T, dev device.Device, stock, batches bool) {
	c := struct{ stock, batches bool }{stock, batches}
	{
		cfg := Config{Sizes: []int{64, 32, 32, 10}, Batch: 16, Steps: 8, LearnRate: 0.05, Seed: 1, Stock: c.stock, Batches: c.batches}
		e := engine.New(dev)
		want, err := Train(cfg, e)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		e = engine.New(dev)
		cfg.Replay = true
		got, err := Train(cfg, e)
		e.Close()
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		l, w := got.Compare(want)
		t.Logf("%s %+v: losses %v: differ from eager by %.3g, weights by %.3g; replays moved %v", dev.Name(), c, got.Losses, l, w, got.Replays)
		if l > tolerance || w > tolerance {
			t.Fatalf("%+v: replayed steps differ from eager ones: losses by %.3g, weights by %.3g", c, l, w)
		}
		n := int64(cfg.Steps - 3)
		m := got.Replays
		up := int64(4 * cfg.Batch) // the seed
		if c.batches {
			up += int64(4 * cfg.Batch * cfg.Sizes[0])
		}
		if m.Launches < n*10 || uffd.Available() && (m.D2HCalls != n || m.D2HBytes != 4*n || m.H2DBytes != up*n) {
			t.Fatalf("%+v: %d replays moved %v: want the recorded launches, the loss's sum home (4 B) and %d B up each", c, n, m, up)
		}
	}
}
