package bench

import (
	"testing"

	"github.com/resident-go/resident/halide"
)

// brighterOrSkip returns the lesson-10 stage on the default OpenCL device
// (PoCL here), or skips where there is no OpenCL.
func brighterOrSkip(tb testing.TB) (Stage, *Config) {
	tb.Helper()
	if _, err := halide.OpenCLDevice(); err != nil {
		tb.Skipf("no OpenCL device: %v", err)
	}
	s, dev, err := Brighter(1)
	if err != nil {
		tb.Fatal(err)
	}
	return s, &Config{Device: dev}
}

func TestRunOpenCLCountsTransfers(t *testing.T) {
	s, cfg := brighterOrSkip(t)
	cfg.Stages = Repeat(s, 3)
	cfg.Width, cfg.Height = 256, 130
	cfg.Ladder, cfg.Reps, cfg.Sync = true, 2, []int{0}
	rep, err := Run(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Results), 3*len(Modes)*len(Memories); got != want {
		t.Fatalf("%d results, want %d: pinned memory missing?", got, want)
	}
	checkCounts(t, rep, cfg.Stages)
}

// The mixed chain on the OpenCL device: the Halide stage and the ops run
// there in every mode and memory, every prefix's output is checked against
// the float64 references (the sum within SumTol), and the transfers are
// those of each mode: resident uploads the image once and brings home only
// the 4-byte sum.
func TestRunOpenCLMixed(t *testing.T) {
	_, cfg := brighterOrSkip(t)
	stages, dev, err := Mixed(5, DefaultScale)
	if err != nil {
		t.Fatal(err)
	}
	if dev != cfg.Device {
		t.Fatalf("Mixed runs on %s, brighter on %s", dev.Name(), cfg.Device.Name())
	}
	cfg.Stages = stages
	cfg.Width, cfg.Height = 256, 130
	cfg.Ladder, cfg.Reps, cfg.Sync = true, 2, []int{0, 1, 2}
	rep, err := Run(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Results), 4*len(Modes)*len(Memories); got != want {
		t.Fatalf("%d results, want %d: pinned memory missing?", got, want)
	}
	if rep.Stage != "brighter,cast_f32,scale,sum" {
		t.Errorf("stages %q", rep.Stage)
	}
	checkCounts(t, rep, stages)
	checkMixed(t, rep)
}
