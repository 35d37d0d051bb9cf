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
	checkCounts(t, rep, 256*130)
}
