package bench

import (
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/plumb"
)

// wantTransfers is what each mode must count per iteration for n stages.
func wantTransfers(x Result) (h2d, d2h float64) {
	switch x.Mode {
	case RoundTrip:
		return float64(x.Stages), float64(x.Stages)
	case Explicit:
		extra := 0
		for _, s := range x.Sync {
			if s < x.Stages-1 {
				extra++
			}
		}
		return 1, float64(1 + extra)
	}
	return 1, 1
}

func checkCounts(t *testing.T, rep *Report, bytes int) {
	t.Helper()
	if len(rep.Results) == 0 {
		t.Fatal("no results")
	}
	for _, x := range rep.Results {
		h, d := wantTransfers(x)
		if x.H2DCalls != h || x.D2HCalls != d {
			t.Errorf("%s %s %d stages (sync %v): %g uploads, %g downloads per iteration, want %g and %g",
				x.Mode, x.Memory, x.Stages, x.Sync, x.H2DCalls, x.D2HCalls, h, d)
		}
		if x.H2DBytes != h*float64(bytes) || x.D2HBytes != d*float64(bytes) {
			t.Errorf("%s %s %d stages: %g B up, %g B down per iteration, want %g and %g",
				x.Mode, x.Memory, x.Stages, x.H2DBytes, x.D2HBytes, h*float64(bytes), d*float64(bytes))
		}
		if x.Time.N != rep.Reps || x.Time.Median <= 0 || x.Time.P10 > x.Time.Median || x.Time.Median > x.Time.P90 {
			t.Errorf("%s %s %d stages: timing %+v", x.Mode, x.Memory, x.Stages, x.Time)
		}
	}
}

func TestRunSimCountsTransfers(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	const w, h = 64, 48
	rep, err := Run(Config{
		Device: d, Stages: Repeat(SimBrighter(d, 3), 5), Width: w, Height: h,
		Sync: []int{1, 4}, Ladder: true, Reps: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Results), 5*len(Modes)*len(Memories); got != want {
		t.Fatalf("%d results, want %d (5 lengths × modes × memories)", got, want)
	}
	checkCounts(t, rep, w*h)
	if len(rep.Ceilings) != 2 || rep.Ceilings[0].D2DGBps <= 0 || rep.Ceilings[1].H2DGBps <= 0 {
		t.Errorf("ceilings %+v", rep.Ceilings)
	}
	if live := d.Stats().AllocsLive; live != 0 {
		t.Errorf("%d device allocations still live after Run", live)
	}
	if device.Guarded() {
		t.Error("Run left the transfer guard on")
	}
}

// A stage that copies behind the library's back must fail Resident mode:
// the stages run under the transfer guard.
func TestRunResidentGuard(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	inner := SimBrighter(d, 1).Run
	leaky := Stage{Name: "leaky", Run: func(in, out array.Buffer) error {
		if err := inner(in, out); err != nil {
			return err
		}
		return plumb.CheckAutomatic("a sneaky copy")
	}}
	_, err := Run(Config{Device: d, Stages: []Stage{leaky}, Width: 8, Height: 8, Modes: []Mode{Resident}, Reps: 1})
	if err == nil || !strings.Contains(err.Error(), "transfer guard") {
		t.Fatalf("err = %v, want the transfer guard's refusal", err)
	}
}

func TestRunWrongOutputFails(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	s := SimBrighter(d, 1)
	s.Ref = SaturatingAdd(2) // claims a different result than it computes
	_, err := Run(Config{Device: d, Stages: []Stage{s}, Width: 8, Height: 8, Reps: 1})
	if err == nil || !strings.Contains(err.Error(), "wrong output") {
		t.Fatalf("err = %v, want a wrong-output error", err)
	}
	// On a ladder the expected image is carried from one length to the
	// next: a wrong reference in stage 2 passes length 1 and fails length 2.
	good := SimBrighter(d, 1)
	_, err = Run(Config{Device: d, Stages: []Stage{good, s, good}, Width: 8, Height: 8, Ladder: true, Reps: 1})
	if err == nil || !strings.Contains(err.Error(), "wrong output after 2 stages") {
		t.Fatalf("ladder: err = %v, want a wrong-output error after 2 stages", err)
	}
}

func TestConfigErrors(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	s := SimBrighter(d, 1)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Stages: []Stage{s}, Width: 8, Height: 8}, "Device is nil"},
		{Config{Device: d, Width: 8, Height: 8}, "Stages is empty"},
		{Config{Device: d, Stages: []Stage{{Name: "x"}}, Width: 8, Height: 8}, "no Run"},
		{Config{Device: d, Stages: []Stage{s}, Width: 0, Height: 8}, "must be > 0"},
		{Config{Device: d, Stages: []Stage{s, s}, Width: 8, Height: 8, Sync: []int{2}}, "stage index in 0…1"},
	} {
		_, err := Run(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}
