package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

// The bench mode on tiny sizes: both engines time their steps, the device
// engine's timed steps move exactly the loss home and the gradient seed
// up, besides the small registers copied home (they run under the transfer
// guard), its kernel launches are counted,
// and the table carries the PyTorch rows and the ratios from a
// torch_mlp.py-shaped JSON file.
func TestBench(t *testing.T) {
	if _, err := opencl.Default(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	torch := filepath.Join(dir, "torch.json")
	tj := `{"torch": "2.11.0", "device": "test", "sizes": [16, 8, 4], "batch": 8,
	 "eager": {"median_ms": 0.5, "p10_ms": 0.4, "p90_ms": 0.6, "steps_per_s": 2000, "pipelined_ms": 0.3, "steps": 3, "error": ""},
	 "compile": {"error": "Backend compiler failed\nmore"}}`
	if err := os.WriteFile(torch, []byte(tj), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "mlp.json")
	prof := filepath.Join(dir, "cpu.pprof")
	var w bytes.Buffer
	cfg := Config{Sizes: []int{16, 8, 4}, Batch: 8, Steps: 3, LearnRate: 0.05, Seed: 1}
	if err := runBench(&w, cfg, true, benchFlags{on: true, warmup: 2, stdSteps: 2, torch: torch, json: out, cpuprofile: prof}); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + w.String())
	for _, want := range []string{"device: ", "standard (gorgonia", "PyTorch 2.11.0 eager (test)", "PyTorch 2.11.0 torch.compile (test)", "failed: Backend compiler failed",
		"standard ÷ device", "device ÷ PyTorch eager", "commands queued", "transfers: 1.0 H2D (32 B), ", "copies home of Go memory too small"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Contains(w.String(), "device ÷ PyTorch torch.compile") {
		t.Error("a ratio to a failed torch.compile run")
	}
	var rep BenchReport
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Device == nil || rep.Standard == nil || rep.Device.Steps != 3 || rep.Standard.Steps != 2 || len(rep.Device.TimesMS) != 3 {
		t.Fatalf("JSON report: %s", b)
	}
	// Each step's downloads: the loss, and the small registers copied home.
	if d := rep.Device; d.Moved.D2HCalls-d.Host.Homed != 3 {
		t.Errorf("%d downloads in 3 steps, %d of them small registers; want the loss once a step besides", d.Moved.D2HCalls, d.Host.Homed)
	}
	if rep.Device.Launches <= 0 {
		t.Errorf("kernel launches not counted: %d", rep.Device.Launches)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("no CPU profile: %v", err)
	}
}

func TestSummarize(t *testing.T) {
	ms := func(v ...float64) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x*1e6))
		}
		return d
	}
	for _, c := range []struct {
		in                  []time.Duration
		med, p10, p90, rate float64
	}{
		{ms(5), 5, 5, 5, 200},
		{ms(4, 1, 3, 2), 2.5, 1, 4, 400},
		{ms(10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100), 6, 2, 10, 1000.0 / 6},
	} {
		s := summarize(c.in)
		if s.Median != c.med || s.P10 != c.p10 || s.P90 != c.p90 || s.StepsPer != c.rate {
			t.Errorf("summarize(%v) = %+v, want median %g p10 %g p90 %g rate %g", c.in, s, c.med, c.p10, c.p90, c.rate)
		}
	}
}

// TestBenchReplayed: -bench -replay times replays of one recorded step on
// the device and reports the graph replayed back to back, with the host's
// queueing as part of it; the replays run kernels (launches counted).
func TestBenchReplayed(t *testing.T) {
	if _, err := opencl.Default(); err != nil {
		t.Skip(err)
	}
	cfg := Config{Sizes: []int{16, 8, 4}, Batch: 8, Steps: 4, LearnRate: 0.05, Seed: 1, Replay: true}
	var w bytes.Buffer
	if err := runBench(&w, cfg, false, benchFlags{on: true, warmup: 2}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(replayed: ", "the step's graph replayed back to back, one sync"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, w.String())
		}
	}
	d, err := open()
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(d)
	defer e.Close()
	r, err := Bench(BenchConfig{Config: cfg, Warmup: 2, Steps: cfg.Steps}, e)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pipelined <= 0 || r.Enqueue <= 0 || r.Enqueue > r.Pipelined {
		t.Errorf("back to back %v, of which queueing %v", r.Pipelined, r.Enqueue)
	}
	if r.Launches < int64(cfg.Steps) {
		t.Errorf("%d launches over %d replayed steps: the replays did not run on the device", r.Launches, cfg.Steps)
	}
}
