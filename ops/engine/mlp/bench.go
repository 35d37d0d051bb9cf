package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops/engine"
)

// BenchConfig is a timing run: Warmup untimed steps, then Steps timed ones.
type BenchConfig struct {
	Config        // Sizes, Batch, LearnRate, Seed (Steps unused)
	Warmup, Steps int
	// CPUProfile, if set, is written with a Go CPU profile of the timed
	// steps.
	CPUProfile string
	// Trace, if set, is written with a Go execution trace of the timed
	// steps (go tool trace): where the step waits on the device.
	Trace string
}

// BenchResult is what a timing run measured. Times are per step, from
// the start of the step to the end of the device's queue (a Sync), so
// each step's work is finished when it is counted; the step itself reads
// the loss home (one D2H of 4 bytes).
type BenchResult struct {
	Engine string          `json:"engine"`
	Times  []time.Duration `json:"-"`
	// Issue is, per step, the time until the update's last command was
	// queued, before the loss is read home: the host's share of the step
	// when the device keeps up, plus the wait for the forward pass, which
	// ends in a sync (gorgonia reads the 0-D loss sum from host memory).
	// Device engine only.
	Issue []time.Duration `json:"-"`
	// Launches: commands the device queued over the timed steps (kernel
	// launches and device copies, counted by its pacing: Stats.Launches), -1 when they
	// could not be read. Device engine only.
	Launches int64 `json:"launches"`
	// Moved: the device's transfers and allocations over the timed steps.
	Moved device.Stats `json:"moved"`
	// Host: the engine's host-side passes and allocations over the timed
	// steps. Device engine only.
	Host engine.HostWork `json:"host"`
	// Go heap allocations over the timed steps (runtime.MemStats).
	Mallocs, AllocBytes uint64    `json:"-"`
	Losses              []float32 `json:"losses"`
	Procs               int       `json:"gomaxprocs"`
	// Floor: per step, the machine's own register allocation alone
	// (allocFloor), timed after the steps; FloorRegs registers of
	// FloorBytes in all. Device engine only.
	Floor      []time.Duration `json:"-"`
	FloorRegs  int             `json:"floor_registers"`
	FloorBytes int64           `json:"floor_bytes"`
	// Pipelined: with a replay, Steps replays of its Graph queued back to
	// back and one sync, per step (Step.Replay syncs; its Graph does not):
	// the device's own time, or the host's enqueueing where that is slower.
	Pipelined time.Duration `json:"pipelined_ns"`
	// Enqueue: of Pipelined, the host's time until the last replay was
	// queued.
	Enqueue time.Duration `json:"enqueue_ns"`
}

// Bench builds the MLP of cfg on e (nil: tensor's standard engine), runs
// cfg.Warmup steps and times cfg.Steps more.
func Bench(cfg BenchConfig, e *engine.Engine) (BenchResult, error) {
	res := BenchResult{Engine: "standard", Launches: -1, Procs: runtime.GOMAXPROCS(0)}
	if cfg.Steps < 1 || cfg.Warmup < 0 {
		return res, fmt.Errorf("bench: want at least one timed step and no negative warm-up, got %d and %d", cfg.Steps, cfg.Warmup)
	}
	var count func() int64
	sync := func() error { return nil }
	if e != nil {
		res.Engine = "device: " + e.Device().Name()
		d := e.Device()
		count = func() int64 { return d.Stats().Launches }
		sync = e.Device().Sync
	}
	t, err := newTrainer(cfg.Config, e)
	if err != nil {
		return res, err
	}
	defer t.close()
	for i := range cfg.Warmup {
		if _, err := t.step(i > 0); err != nil {
			return res, fmt.Errorf("warm-up step %d: %w", i+1, err)
		}
	}
	var replay *engine.Step
	if cfg.Replay && e != nil {
		// One more step, recorded; the timed steps replay it.
		if replay, err = e.Capture(func() error { return t.run(false) }); err != nil {
			return res, fmt.Errorf("capturing a step: %w", err)
		}
		defer replay.Close()
		if _, err := t.loss(); err != nil {
			return res, err
		}
		res.Engine += " (replayed: " + replay.Graph().Kind() + ")"
	}
	if err := sync(); err != nil {
		return res, err
	}
	stopProfile, err := record(cfg.CPUProfile, pprof.StartCPUProfile, pprof.StopCPUProfile)
	if err != nil {
		return res, err
	}
	defer stopProfile()
	stopTrace, err := record(cfg.Trace, trace.Start, trace.Stop)
	if err != nil {
		return res, err
	}
	defer stopTrace()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var before device.Stats
	var host0 engine.HostWork
	var launches0 int64
	if e != nil {
		before = e.Device().Stats()
		host0 = e.HostWork()
	}
	if count != nil {
		launches0 = count()
	}
	for i := range cfg.Steps {
		// The first step after construction has no guard (its first
		// uploads); the timed ones are guarded unless there was no warm-up.
		guard := cfg.Warmup+i > 0
		t0 := time.Now()
		var err error
		if replay != nil {
			err = replay.Replay()
		} else {
			err = t.run(guard)
		}
		t1 := time.Now()
		var l float32
		switch {
		case err != nil:
		case replay != nil:
			l, err = t.replayedLoss(replay)
		default:
			l, err = t.loss()
		}
		if err == nil {
			err = sync()
		}
		t2 := time.Now()
		if err != nil {
			return res, fmt.Errorf("timed step %d: %w", i+1, err)
		}
		res.Times = append(res.Times, t2.Sub(t0))
		if e != nil {
			res.Issue = append(res.Issue, t1.Sub(t0))
		}
		res.Losses = append(res.Losses, l)
	}
	if count != nil {
		res.Launches = count() - launches0
	}
	if e != nil {
		res.Moved = e.Device().Stats().Sub(before)
	}
	if replay != nil {
		t0 := time.Now()
		for range cfg.Steps {
			if err := replay.Graph().Replay(); err != nil {
				return res, fmt.Errorf("pipelined replay: %w", err)
			}
		}
		res.Enqueue = time.Since(t0) / time.Duration(cfg.Steps)
		if err := sync(); err != nil {
			return res, err
		}
		res.Pipelined = time.Since(t0) / time.Duration(cfg.Steps)
	}
	if e != nil {
		res.Host = e.HostWork().Sub(host0)
	}
	runtime.ReadMemStats(&ms1)
	res.Mallocs, res.AllocBytes = ms1.Mallocs-ms0.Mallocs, ms1.TotalAlloc-ms0.TotalAlloc
	if e != nil {
		regs := t.registers()
		res.FloorRegs = len(regs)
		res.Floor, res.FloorBytes = allocFloor(regs, cfg.Steps)
	}
	return res, nil
}

// Summary is the order statistics of per-step times, in milliseconds.
type Summary struct {
	Median   float64 `json:"median_ms"`
	P10      float64 `json:"p10_ms"`
	P90      float64 `json:"p90_ms"`
	StepsPer float64 `json:"steps_per_s"`
}

// record starts a recording (a CPU profile, an execution trace) into the
// file path and returns what stops it and closes the file; an empty path
// records nothing.
func record(path string, start func(io.Writer) error, stop func()) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { stop(); f.Close() }, nil
}

// summarize returns the median, 10th and 90th percentiles (nearest rank
// on the sorted times) and steps per second (1000 / median).
func summarize(ts []time.Duration) Summary {
	if len(ts) == 0 {
		return Summary{}
	}
	ms := make([]float64, len(ts))
	for i, t := range ts {
		ms[i] = float64(t) / 1e6
	}
	slices.Sort(ms)
	at := func(q float64) float64 { return ms[int(q*float64(len(ms)-1)+0.5)] }
	var med float64
	if n := len(ms); n%2 == 1 {
		med = ms[n/2]
	} else {
		med = (ms[n/2-1] + ms[n/2]) / 2
	}
	return Summary{Median: med, P10: at(0.1), P90: at(0.9), StepsPer: 1000 / med}
}

// TorchResult is what bench/torch_mlp.py writes: per-step times of the
// same MLP in PyTorch eager and under torch.compile (median, p10, p90 of
// steps each timed between torch.cuda.synchronize calls).
type TorchResult struct {
	Torch   string        `json:"torch"`
	Device  string        `json:"device"`
	Sizes   []int         `json:"sizes"`
	Batch   int           `json:"batch"`
	Eager   *TorchSummary `json:"eager"`
	Compile *TorchSummary `json:"compile"`
}

// TorchSummary is one PyTorch mode's figures.
type TorchSummary struct {
	Summary
	// Pipelined: Steps steps queued back to back with one synchronize at
	// the end, per step (no per-step sync).
	Pipelined float64 `json:"pipelined_ms"`
	Steps     int     `json:"steps"`
	Error     string  `json:"error"`
}

func (r *BenchReport) torchName(mode string) string {
	return fmt.Sprintf("PyTorch %s %s (%s)", r.Torch.Torch, mode, r.Torch.Device)
}

// ReadTorch reads a torch_mlp.py JSON file.
func ReadTorch(path string) (*TorchResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t TorchResult
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// BenchReport is the whole comparison, as printed and as -json writes it.
type BenchReport struct {
	Sizes    []int        `json:"sizes"`
	Batch    int          `json:"batch"`
	Warmup   int          `json:"warmup"`
	GOGC     int          `json:"gogc"` // the collector's setting during the run
	Device   *benchRow    `json:"device"`
	Standard *benchRow    `json:"standard,omitempty"`
	Torch    *TorchResult `json:"torch,omitempty"`
}

type benchRow struct {
	BenchResult
	Summary
	Steps   int       `json:"steps"`
	TimesMS []float64 `json:"times_ms"`
	Issue   *Summary  `json:"issue,omitempty"`
	FloorMS *Summary  `json:"floor,omitempty"`
	Mallocs float64   `json:"go_mallocs_per_step"`
	Bytes   float64   `json:"go_bytes_per_step"`
}

func row(r BenchResult) *benchRow {
	n := float64(len(r.Times))
	b := &benchRow{BenchResult: r, Summary: summarize(r.Times), Steps: len(r.Times),
		Mallocs: float64(r.Mallocs) / n, Bytes: float64(r.AllocBytes) / n}
	for _, t := range r.Times {
		b.TimesMS = append(b.TimesMS, float64(t)/1e6)
	}
	if len(r.Issue) > 0 {
		s := summarize(r.Issue)
		b.Issue = &s
	}
	if len(r.Floor) > 0 {
		s := summarize(r.Floor)
		b.FloorMS = &s
	}
	return b
}

// Print writes the table: engine, median ms/step, p10–p90, steps/s; the
// ratios; and where the device engine's step time goes.
func (r *BenchReport) Print(w io.Writer) {
	fmt.Fprintf(w, "MLP %v, batch %d, SGD: %d warm-up steps, then timed steps (each to the end of the device queue); GOGC %d\n", r.Sizes, r.Batch, r.Warmup, r.GOGC)
	names := []string{"engine"}
	if r.Device != nil {
		names = append(names, r.Device.Engine)
	}
	if r.Torch != nil {
		names = append(names, r.torchName("torch.compile"))
	}
	width := 36
	for _, n := range names {
		width = max(width, utf8.RuneCountInString(n))
	}
	fmt.Fprintf(w, "%-*s %10s %21s %9s %6s\n", width, "engine", "median ms", "p10–p90 ms", "steps/s", "steps")
	line := func(name string, s Summary, steps int) {
		fmt.Fprintf(w, "%-*s %10.3f %10.3f–%-10.3f %9.1f %6d\n", width, name, s.Median, s.P10, s.P90, s.StepsPer, steps)
	}
	if r.Device != nil {
		line(r.Device.Engine, r.Device.Summary, r.Device.Steps)
	}
	if r.Standard != nil {
		line(fmt.Sprintf("standard (gorgonia, GOMAXPROCS %d)", r.Standard.Procs), r.Standard.Summary, r.Standard.Steps)
	}
	torchRow := func(mode string, t *TorchSummary) {
		if t == nil {
			return
		}
		name := r.torchName(mode)
		if t.Error != "" {
			fmt.Fprintf(w, "%-*s failed: %s\n", width, name, firstLine(t.Error))
			return
		}
		line(name, t.Summary, t.Steps)
		if t.Pipelined > 0 {
			fmt.Fprintf(w, "%-*s %10.3f (steps queued back to back, one sync)\n", width, "  "+mode+" pipelined", t.Pipelined)
		}
	}
	if r.Torch != nil {
		torchRow("eager", r.Torch.Eager)
		torchRow("torch.compile", r.Torch.Compile)
		if !slices.Equal(r.Torch.Sizes, r.Sizes) || r.Torch.Batch != r.Batch {
			fmt.Fprintf(w, "warning: the torch file measured %v, batch %d\n", r.Torch.Sizes, r.Torch.Batch)
		}
	}
	ratio := func(what string, a, b float64) {
		if a > 0 && b > 0 {
			fmt.Fprintf(w, "%s: %.2f×\n", what, a/b)
		}
	}
	if r.Device != nil && r.Standard != nil {
		ratio("standard ÷ device (median ms/step)", r.Standard.Median, r.Device.Median)
	}
	if r.Device != nil && r.Torch != nil {
		for _, m := range []struct {
			name string
			t    *TorchSummary
		}{{"eager", r.Torch.Eager}, {"torch.compile", r.Torch.Compile}} {
			if m.t != nil && m.t.Error == "" {
				ratio("device ÷ PyTorch "+m.name+" (median ms/step)", r.Device.Median, m.t.Median)
			}
		}
	}
	if d := r.Device; d != nil {
		n := float64(d.Steps)
		fmt.Fprintf(w, "device step, where the time goes (per timed step):\n")
		if d.Launches >= 0 {
			fmt.Fprintf(w, "  %.1f commands queued (kernel launches and device copies, counted by the device: Stats.Launches)\n", float64(d.Launches)/n)
		} else {
			fmt.Fprintf(w, "  kernel launches: n/a\n")
		}
		m := d.Moved
		fmt.Fprintf(w, "  transfers: %.1f H2D (%.0f B), %.1f D2H (%.0f B), %.1f D2D (%.0f B)\n",
			float64(m.H2DCalls)/n, float64(m.H2DBytes)/n, float64(m.D2HCalls)/n, float64(m.D2HBytes)/n,
			float64(m.D2DCalls)/n, float64(m.D2DBytes)/n)
		fmt.Fprintf(w, "  device allocations: %.1f (allocation cache: %.1f hits, %.1f misses)\n",
			float64(m.AllocsTotal)/n, float64(m.CacheHits)/n, float64(m.CacheMisses)/n)
		if d.Engine != "standard" {
			hw := d.Host
			fmt.Fprintf(w, "  engine host work: %.0f B scanned, %.0f B cleared, %.1f of the D2H copies home of Go memory too small to let go; host memory: %.1f pinned allocations, %.1f mapped, %.1f from its pool\n",
				float64(hw.Scanned)/n, float64(hw.Cleared)/n, float64(hw.Homed)/n, float64(hw.Pinned)/n, float64(hw.Mapped)/n, float64(hw.Pooled)/n)
		}
		if d.Pipelined > 0 {
			fmt.Fprintf(w, "  the step's graph replayed back to back, one sync: %.3f ms/step (the device's time, or the host's enqueueing where slower: %.3f ms/step of it)\n", float64(d.Pipelined)/1e6, float64(d.Enqueue)/1e6)
		}
		if d.Issue != nil {
			fmt.Fprintf(w, "  until the update is queued: median %.3f ms (%.0f%% of the step; host work plus the wait for the forward pass, which ends in a sync: the 0-D loss sum goes home); the rest: backward and update on the device, the loss read\n",
				d.Issue.Median, 100*d.Issue.Median/d.Median)
		}
		fmt.Fprintf(w, "  Go heap: %.0f allocations, %.0f B\n", d.Mallocs, d.Bytes)
		if f := d.FloorMS; f != nil {
			fmt.Fprintf(w, "  gorgonia's own register allocation alone (tensor.New of the tape machine's %d preallocated registers, %d B, zeroed on the Go heap every run; no engine, no device): median %.3f ms/step (p10 %.3f, p90 %.3f); on a growing heap, so fresh pages: where Go reuses freed memory, as in a long run, it clears them (an H100 profile: 45%% of the step's CPU)\n",
				d.FloorRegs, d.FloorBytes, f.Median, f.P10, f.P90)
		}
	}
	if s := r.Standard; s != nil {
		fmt.Fprintf(w, "standard step: Go heap %.0f allocations, %.0f B\n", s.Mallocs, s.Bytes)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
