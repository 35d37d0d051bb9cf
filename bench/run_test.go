package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// wantTransfers is what each mode must count per iteration for the
// Result's chain length: calls, and bytes given the input image's size and
// each stage's output size. Resident moves the input up and the last
// output down; the round trip moves each stage's input up and its output
// down; explicit adds a download of each sync point's output.
func wantTransfers(x Result, in int, outs []int) (h2d, d2h, h2dBytes, d2hBytes float64) {
	n := x.Stages
	switch x.Mode {
	case RoundTrip:
		h2dBytes = float64(in)
		for i := range n {
			if i > 0 {
				h2dBytes += float64(outs[i-1])
			}
			d2hBytes += float64(outs[i])
		}
		return float64(n), float64(n), h2dBytes, d2hBytes
	case Explicit:
		d2h, d2hBytes = 1, float64(outs[n-1])
		for _, s := range x.Sync {
			if s < n-1 {
				d2h++
				d2hBytes += float64(outs[s])
			}
		}
		return 1, d2h, float64(in), d2hBytes
	case Streamed:
		return float64(x.Bands), float64(x.Bands), float64(in), float64(outs[n-1])
	}
	return 1, 1, float64(in), float64(outs[n-1])
}

// checkCounts checks every Result's transfers against wantTransfers for
// the chain stages and its timing.
func checkCounts(t *testing.T, rep *Report, stages []Stage) {
	t.Helper()
	if len(rep.Results) == 0 {
		t.Fatal("no results")
	}
	var outs []int
	for _, s := range stages {
		outs = append(outs, s.Out.bytes(rep.Width, rep.Height))
	}
	for _, x := range rep.Results {
		h, d, hb, db := wantTransfers(x, rep.Bytes, outs)
		if x.H2DCalls != h || x.D2HCalls != d {
			t.Errorf("%s %s %d stages (sync %v): %g uploads, %g downloads per iteration, want %g and %g",
				x.Mode, x.Memory, x.Stages, x.Sync, x.H2DCalls, x.D2HCalls, h, d)
		}
		if x.H2DBytes != hb || x.D2HBytes != db {
			t.Errorf("%s %s %d stages: %g B up, %g B down per iteration, want %g and %g",
				x.Mode, x.Memory, x.Stages, x.H2DBytes, x.D2HBytes, hb, db)
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
	stages := Repeat(SimBrighter(d, 3), 5)
	rep, err := Run(Config{
		Device: d, Stages: stages, Width: w, Height: h,
		Sync: []int{1, 4}, Ladder: true, Reps: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Results), 5*len(Modes)*len(Memories); got != want {
		t.Fatalf("%d results, want %d (5 lengths × modes × memories)", got, want)
	}
	checkCounts(t, rep, stages)
	if len(rep.Ceilings) != 2 || rep.Ceilings[0].D2DGBps <= 0 || rep.Ceilings[1].H2DGBps <= 0 {
		t.Errorf("ceilings %+v", rep.Ceilings)
	}
	checkRunClean(t, d)
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
		_, err := out.(*array.Array[uint8]).Host() // a copy home the guard refuses
		return err
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
		{Config{Device: d, Stages: []Stage{s}, Width: 8, Height: 8, Modes: []Mode{Streamed}}, "runs on a device/opencl or device/cuda Device"},
	} {
		_, err := Run(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}

// checkMixed checks a full mixed chain's figures beyond the counts:
// resident mode uploads the image once and brings home only the 4-byte
// sum, no image; the effective bandwidth counts each stage's own bytes.
func checkMixed(t *testing.T, rep *Report) {
	t.Helper()
	img := float64(rep.Width * rep.Height)
	for _, mem := range []Memory{GoMemory, Pinned} {
		x, ok := rep.Find(Resident, mem, 4)
		if !ok {
			t.Fatalf("no resident result with %s memory", mem)
		}
		if x.H2DCalls != 1 || x.H2DBytes != img || x.D2HBytes != 4 {
			t.Errorf("resident, %s memory: %g uploads of %g B, %g B down; want 1 of %g B and only the 4-byte sum", mem, x.H2DCalls, x.H2DBytes, x.D2HBytes, img)
		}
		// brighter 2·img, cast img + 4·img, scale 2·4·img, sum 4·img + 4: 19·img + 4
		if traffic := x.EffectiveGBps * float64(x.Time.Median); math.Abs(traffic-(19*img+4)) > 1e-6*traffic {
			t.Errorf("resident, %s memory: effective GB/s counts %g B, want %g", mem, traffic, 19*img+4)
		}
	}
}

func TestRunSimMixed(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	const w, h = 64, 48
	stages := SimMixed(d, 3, DefaultScale)
	rep, err := Run(Config{Device: d, Stages: stages, Width: w, Height: h, Sync: []int{0, 1, 2}, Ladder: true, Reps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Results), 4*len(Modes)*len(Memories); got != want {
		t.Fatalf("%d results, want %d (4 lengths × modes × memories)", got, want)
	}
	if rep.Stage != "sim_brighter,sim_cast_f32,sim_scale,sim_sum" || rep.Stages != 4 {
		t.Errorf("report names %d stages %q", rep.Stages, rep.Stage)
	}
	checkCounts(t, rep, stages)
	checkMixed(t, rep)
	checkRunClean(t, d)
}

// The sum is checked against its float64 reference within SumTol: a
// reference off by half the tolerance passes, one off by twice fails.
func TestRunMixedTolerance(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	for _, c := range []struct {
		off  float64
		fail bool
	}{{0, false}, {SumTol / 2, false}, {2 * SumTol, true}} {
		stages := SimMixed(d, 1, DefaultScale)
		ref := stages[3].Ref
		stages[3].Ref = func(dst, src []float64) {
			ref(dst, src)
			dst[0] *= 1 + c.off
		}
		_, err := Run(Config{Device: d, Stages: stages, Width: 16, Height: 8, Modes: []Mode{Resident, RoundTrip}, Reps: 1})
		if c.fail && (err == nil || !strings.Contains(err.Error(), "wrong output after 4 stages") || !strings.Contains(err.Error(), "within 1e-05 relative")) {
			t.Errorf("reference off by %g: err = %v, want a wrong-output error naming the tolerance", c.off, err)
		}
		if !c.fail && err != nil {
			t.Errorf("reference off by %g: %v", c.off, err)
		}
	}
	// The float stages before the sum are checked element by element.
	stages := SimMixed(d, 1, DefaultScale)
	stages[2].Ref = SimMixed(d, 1, 2*DefaultScale)[2].Ref
	_, err := Run(Config{Device: d, Stages: stages[:3], Width: 16, Height: 8, Modes: []Mode{Resident}, Reps: 1})
	if err == nil || !strings.Contains(err.Error(), "wrong output after 3 stages: element 0 is") {
		t.Errorf("wrong scale reference: err = %v", err)
	}
}

// Stages in an order whose types do not chain fail with the types named.
func TestRunMixedTypeMismatch(t *testing.T) {
	d := sim.New("test", 0)
	defer d.Close()
	ss := SimMixed(d, 1, DefaultScale)
	_, err := Run(Config{Device: d, Stages: []Stage{ss[0], ss[3]}, Width: 8, Height: 8, Modes: []Mode{Resident}, Reps: 1})
	if err == nil || !strings.Contains(err.Error(), "sim_sum wants a dense float32 input") {
		t.Errorf("err = %v, want sim_sum's type error", err)
	}
}

// OpStage takes device-aware Arrays or host views of them; an Array over
// caller-held memory would keep ops on the host, so it is refused.
func TestOpStageRefusesHostOnly(t *testing.T) {
	s := OpStage(nil, "cast_f32", ImageOut[float32](), ops.CastWrap[float32, uint8])
	err := s.Run(array.FromSlice(make([]uint8, 4), 2, 2), array.New[float32](2, 2))
	if err == nil || !strings.Contains(err.Error(), "stage cast_f32 wants a uint8 input and a float32 output, device-aware Arrays or host views of them") {
		t.Errorf("err = %v", err)
	}
}

// For a chain of uint8 image stages the traffic and the ideal's device
// part are exactly the old 2·bytes·n and n D2D copies, so the brighter
// table's figures do not move.
func TestTrafficUniformChain(t *testing.T) {
	for _, wh := range [][2]int{{1, 1}, {64, 48}, {4096, 4096}, {65536, 65536}} {
		stages := Repeat(Stage{Name: "s", Run: func(in, out array.Buffer) error { return nil }}, 64)
		r := newRunner(Config{Stages: stages, Width: wh[0], Height: wh[1]})
		for n := 1; n <= 64; n++ {
			if got, want := r.stageBytes(n), 2*float64(r.bytes)*float64(n); got != want {
				t.Errorf("%v, %d stages: %g bytes, want %g", wh, n, got, want)
			}
			if got := r.d2dImages(n); got != float64(n) {
				t.Errorf("%v, %d stages: %g D2D copies, want %d", wh, n, got, n)
			}
		}
	}
}

// checkRunClean fails unless Run freed every allocation on d and left the
// transfer guard off.
func checkRunClean(t *testing.T, d device.Device) {
	t.Helper()
	if live := d.Stats().AllocsLive; live != 0 {
		t.Errorf("%d device allocations still live after Run", live)
	}
	if device.Guarded(nil, d) {
		t.Error("Run left the device's transfer guard on")
	}
}
