package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
	"github.com/resident-go/resident/halide"
)

// brighterOrSkip returns the lesson-10 stage on the default OpenCL device
// (PoCL here), or skips where there is no OpenCL.
func brighterOrSkip(tb testing.TB) (Stage, *Config) {
	tb.Helper()
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
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

// Streamed mode beside the others on the OpenCL device, for every chain
// length and memory: each band's rows go up and down in one transfer each
// (bands that do not divide the rows; more bands than rows), the output
// is checked against the references, and its ideal is the longest of the
// transfers and the stages, not their sum.
func TestRunOpenCLStreamed(t *testing.T) {
	s, cfg := brighterOrSkip(t)
	cfg.Stages = Repeat(s, 3)
	for _, c := range []struct{ w, h, bands int }{{256, 130, 7}, {64, 5, 9}} {
		cfg.Width, cfg.Height, cfg.Bands = c.w, c.h, c.bands
		cfg.Ladder, cfg.Reps, cfg.Sync, cfg.Modes = true, 2, []int{0}, AllModes
		rep, err := Run(*cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(rep.Results), 3*len(AllModes)*len(Memories); got != want {
			t.Fatalf("%d results, want %d", got, want)
		}
		checkCounts(t, rep, cfg.Stages)
		for _, mem := range Memories {
			x, ok := rep.Find(Streamed, mem, 3)
			if !ok || x.Bands != min(c.bands, c.h) {
				t.Fatalf("streamed %s: %+v", mem, x)
			}
			ce, _ := rep.Ceiling(mem)
			if want := ideal(Result{Mode: Resident, H2DBytes: x.H2DBytes, D2HBytes: x.D2HBytes}, ce, 3); x.Ideal >= want {
				t.Errorf("streamed %s: ideal %v, not below the serial ideal %v", mem, x.Ideal, want)
			}
		}
		var table strings.Builder
		if err := WriteTable(&table, rep, false); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("| streamed (%d bands) | pinned | 3 |", min(c.bands, c.h)); !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

// Streamed mode on the mixed chains, whose last stage sums: each band's
// rows go up once and its sum (one element) comes home, the host adds the
// bands' sums, and the result is checked against the float64 reference
// (bands that do not divide the rows; more bands than rows). Traced runs
// after the timed ones write their timelines. A sum before the last stage
// is refused.
func TestRunOpenCLStreamedSum(t *testing.T) {
	_, cfg := brighterOrSkip(t)
	mixed, err := MixedOn(cfg.Device, 3, DefaultScale)
	if err != nil {
		t.Fatal(err)
	}
	fused, err := MixedFusedOn(cfg.Device, 3, DefaultScale)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, chain := range [][]Stage{mixed, fused} {
		for range 3 { // bands that divide the rows or not, more bands than rows
			c := struct{ w, h, bands int }{1 + rng.IntN(96), 1 + rng.IntN(40), 1 + rng.IntN(9)}
			var trace strings.Builder
			rep, err := Run(Config{Device: cfg.Device, Stages: chain, Width: c.w, Height: c.h, Bands: c.bands, Reps: 2, Modes: []Mode{Streamed}, Trace: &trace})
			if err != nil {
				t.Fatalf("%d stages, %d×%d in %d bands: %v", len(chain), c.w, c.h, c.bands, err)
			}
			bands := min(c.bands, c.h)
			// The traced runs come after the timed ones: the counts below
			// are the timed runs' alone.
			runs := TraceRuns * len(Memories)
			if got := strings.Count(trace.String(), "## streamed"); got != runs {
				t.Errorf("%d traced runs written, want %d:\n%s", got, runs, trace.String())
			}
			if got, want := strings.Count(trace.String(), "\n"), runs*(3+bands); got != want {
				t.Errorf("trace has %d lines, want %d (%d runs of a title, two headers and %d bands):\n%s", got, want, runs, bands, trace.String())
			}
			for _, mem := range Memories {
				x, ok := rep.Find(Streamed, mem, len(chain))
				if !ok || x.Bands != bands {
					t.Fatalf("streamed %s: %+v", mem, x)
				}
				if x.H2DCalls != float64(bands) || x.H2DBytes != float64(c.w*c.h) || x.D2HCalls != float64(bands) || x.D2HBytes != float64(4*bands) {
					t.Errorf("%d stages, %s memory, %d bands: %v up in %v calls, %v down in %v calls; want the image up and one float32 per band down, one call per band each way",
						len(chain), mem, bands, x.H2DBytes, x.H2DCalls, x.D2HBytes, x.D2HCalls)
				}
			}
		}
	}
	early := []Stage{fused[0], fused[1], fused[1]}
	if _, err := Run(Config{Device: cfg.Device, Stages: early, Width: 8, Height: 8, Modes: []Mode{Streamed}}); err == nil || !strings.Contains(err.Error(), "before the last stage") {
		t.Errorf("a sum before the last stage: %v, want a refusal", err)
	}
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

// RunSplit on the two halves of the CPU device: the mixed chain and a
// brighter chain, each band on its device, checked against the references;
// each band uploads its rows once and downloads only its output.
func TestRunSplitHalves(t *testing.T) {
	brighterOrSkip(t)
	d0, d1 := opencltest.Halves(t)
	const w, h = 256, 131
	chains := map[string]func(device.Device) ([]Stage, error){
		"mixed": func(d device.Device) ([]Stage, error) { return MixedOn(d.(*opencl.Device), 5, DefaultScale) },
		"brighter": func(device.Device) ([]Stage, error) {
			s, _, err := Brighter(3)
			return Repeat(s, 3), err
		},
	}
	for name, stages := range chains {
		rep, err := RunSplit(SplitConfig{Devices: []device.Device{d0, d1}, Stages: stages, Width: w, Height: h, Reps: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rep.Bands) != 2 || rep.Bands[0].Rows+rep.Bands[1].Rows != h || rep.Bands[0].Rows != 66 {
			t.Fatalf("%s: bands %+v", name, rep.Bands)
		}
		outBytes := map[string]func(rows int) float64{"mixed": func(int) float64 { return 4 }, "brighter": func(rows int) float64 { return float64(w * rows) }}[name]
		for k, b := range rep.Bands {
			if b.Device != []device.Device{d0, d1}[k].Name() || b.H2DBytes != float64(w*b.Rows) || b.D2HBytes != outBytes(b.Rows) {
				t.Errorf("%s band %d: %+v; want %d B up, %v B down", name, k, b, w*b.Rows, outBytes(b.Rows))
			}
		}
		if rep.One.N != 3 || rep.Split.N != 3 || rep.Speedup <= 0 {
			t.Errorf("%s: timings %+v / %+v, speedup %v", name, rep.One, rep.Split, rep.Speedup)
		}
		if md := rep.Markdown(); !strings.Contains(md, "all bands at once") || !strings.Contains(md, "Speedup") {
			t.Errorf("%s: markdown:\n%s", name, md)
		}
	}
	if _, err := RunSplit(SplitConfig{Devices: []device.Device{d0, d1}, Stages: chains["brighter"], Width: w, Height: 1}); err == nil {
		t.Error("1 row in 2 bands: no error")
	}
	if _, err := RunSplit(SplitConfig{Stages: chains["brighter"], Width: w, Height: h}); err == nil {
		t.Error("no devices: no error")
	}
}
