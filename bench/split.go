package bench

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/resident-go/resident/device"
)

// SplitConfig describes a chain spread over several devices: the image
// is cut into bands of rows, band k resident on Devices[k], and every
// band runs at once (a goroutine per device). The same chain over the
// whole image on Devices[0] is timed in the same run, interleaved, as the
// one-device figure. (Devices[0] alone is a whole GPU when the devices
// are GPUs, but only its share when they are parts of one split device.)
type SplitConfig struct {
	Devices []device.Device
	// Stages returns the chain for one device. It is called once per
	// trial, so stages that keep state (the mixed chain's sum keeps its
	// row sums) are never shared between devices.
	Stages        func(d device.Device) ([]Stage, error)
	Width, Height int
	// Memory is the host memory of the inputs and outputs; default
	// GoMemory. Pinned needs every device to be a device.HostAllocator.
	Memory Memory
	// Warmup and Reps as in Config; defaults 1 and 10.
	Warmup, Reps int
}

// SplitReport is what RunSplit measured: per-iteration medians, each
// iteration uploading every input and downloading every final output (the
// resident mode), checked against the references.
type SplitReport struct {
	Stage         string
	Width, Height int
	Stages        int
	Memory        Memory
	Reps          int
	// One is the whole image on Devices[0]; Split is every band at once.
	One, Split Timing
	// Speedup is One.Median / Split.Median.
	Speedup float64
	Bands   []Band
}

// Band is one device's share of a split iteration.
type Band struct {
	Device string
	Rows   int
	// Transfers per iteration, from the device's Stats.
	H2DBytes, D2HBytes float64
	// Alone is this band's time when it runs by itself (median).
	Alone Timing
}

// part is one device's trial: a runner over its band and its Arrays.
type part struct {
	r     *runner
	t     *trial
	times []time.Duration
}

func newPart(cfg SplitConfig, d device.Device, h int) (*part, error) {
	stages, err := cfg.Stages(d)
	if err != nil {
		return nil, err
	}
	c, err := Config{Device: d, Stages: stages, Width: cfg.Width, Height: h, Modes: []Mode{Resident},
		Memories: []Memory{cfg.Memory}, Warmup: cfg.Warmup, Reps: cfg.Reps}.normalize()
	if err != nil {
		return nil, err
	}
	r := newRunner(c)
	t, err := r.newTrial(Resident, cfg.Memory, len(stages))
	if err != nil {
		return nil, err
	}
	return &part{r: r, t: t}, nil
}

// check compares the part's final output with its references.
func (p *part) check() error {
	n := len(p.r.cfg.Stages)
	return checkOutput(p.t.outs[n-1], p.r.expected(n), p.r.cfg.Stages[n-1].Tol, n)
}

// RunSplit times the chain over the whole image on Devices[0] and split
// in bands over every device, interleaved repetition by repetition, with
// the transfer guard on (each iteration's one upload and download per
// device are explicit). It checks every output against the references.
func RunSplit(cfg SplitConfig) (*SplitReport, error) {
	n := len(cfg.Devices)
	switch {
	case n == 0:
		return nil, errors.New("bench: RunSplit: no devices")
	case cfg.Stages == nil:
		return nil, errors.New("bench: RunSplit: SplitConfig.Stages is nil")
	case cfg.Width <= 0 || cfg.Height < n:
		return nil, fmt.Errorf("bench: RunSplit: a %d×%d image cannot be cut into %d bands of rows", cfg.Width, cfg.Height, n)
	}
	var parts []*part
	defer func() {
		for _, p := range parts {
			p.t.close()
		}
	}()
	one, err := newPart(cfg, cfg.Devices[0], cfg.Height)
	if err != nil {
		return nil, fmt.Errorf("bench: RunSplit on %s: %w", cfg.Devices[0].Name(), err)
	}
	parts = append(parts, one)
	reps := one.r.cfg.Reps // Config's defaults, as normalize fills them in
	bands := make([]*part, n)
	for k, d := range cfg.Devices {
		h := cfg.Height/n + b2i(k < cfg.Height%n)
		if bands[k], err = newPart(cfg, d, h); err != nil {
			return nil, fmt.Errorf("bench: RunSplit, band %d on %s: %w", k, d.Name(), err)
		}
		parts = append(parts, bands[k])
	}
	// Every device's guard on before any goroutine: resident() then
	// leaves each on, however the parts interleave.
	for _, d := range cfg.Devices {
		was := device.SetDeviceGuard(d, true)
		defer device.SetDeviceGuard(d, was)
	}
	for range one.r.cfg.Warmup {
		for _, p := range parts {
			if err := p.t.iter(); err != nil {
				return nil, fmt.Errorf("bench: RunSplit warm-up on %s: %w", p.r.cfg.Device.Name(), err)
			}
		}
	}
	var split []time.Duration
	counts, before := make([]device.Stats, n), make([]device.Stats, n)
	errs := make([]error, n)
	for range reps {
		for _, p := range parts {
			start := time.Now()
			if err := p.t.iter(); err != nil {
				return nil, fmt.Errorf("bench: RunSplit on %s: %w", p.r.cfg.Device.Name(), err)
			}
			p.times = append(p.times, time.Since(start))
		}
		for k, d := range cfg.Devices {
			before[k] = d.Stats()
		}
		start := time.Now()
		var wg sync.WaitGroup
		for k, p := range bands {
			wg.Go(func() { errs[k] = p.t.iter() })
		}
		wg.Wait()
		split = append(split, time.Since(start))
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("bench: RunSplit, bands at once: %w", err)
		}
		for k, d := range cfg.Devices {
			s := d.Stats().Sub(before[k])
			counts[k].H2DBytes += s.H2DBytes
			counts[k].D2HBytes += s.D2HBytes
		}
	}
	for _, p := range parts {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("bench: RunSplit on %s, %d rows: %w", p.r.cfg.Device.Name(), p.r.cfg.Height, err)
		}
	}
	rep := &SplitReport{
		Stage: stageNames(one.r.cfg.Stages), Width: cfg.Width, Height: cfg.Height, Stages: len(one.r.cfg.Stages),
		Memory: cfg.Memory, Reps: reps, One: Summarize(one.times), Split: Summarize(split),
	}
	if rep.Split.Median > 0 {
		rep.Speedup = float64(rep.One.Median) / float64(rep.Split.Median)
	}
	for k, p := range bands {
		rep.Bands = append(rep.Bands, Band{Device: cfg.Devices[k].Name(), Rows: p.r.cfg.Height,
			H2DBytes: float64(counts[k].H2DBytes) / float64(reps), D2HBytes: float64(counts[k].D2HBytes) / float64(reps),
			Alone: Summarize(p.times)})
	}
	return rep, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Markdown is the report as a table: the whole image on one device, each
// band alone, and every band at once.
func (r *SplitReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Split over %d devices** — %s (%d stages) on a %d×%d uint8 image, %s memory; median of %d repetitions, interleaved, resident (each device uploads its input and downloads its output once per iteration).\n\n",
		len(r.Bands), r.Stage, r.Stages, r.Width, r.Height, r.Memory, r.Reps)
	b.WriteString("| run | device | rows | median ms | p10–p90 ms | H2D bytes/iter | D2H bytes/iter |\n|---|---|---:|---:|---:|---:|---:|\n")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }
	fmt.Fprintf(&b, "| whole image, one device | %s | %d | %s | %s–%s | – | – |\n", r.Bands[0].Device, r.Height, ms(r.One.Median), ms(r.One.P10), ms(r.One.P90))
	for k, x := range r.Bands {
		fmt.Fprintf(&b, "| band %d alone | %s | %d | %s | %s–%s | – | – |\n", k, x.Device, x.Rows, ms(x.Alone.Median), ms(x.Alone.P10), ms(x.Alone.P90))
	}
	for k, x := range r.Bands {
		fmt.Fprintf(&b, "| band %d, all at once | %s | %d | – | – | %.0f | %.0f |\n", k, x.Device, x.Rows, x.H2DBytes, x.D2HBytes)
	}
	fmt.Fprintf(&b, "| **all bands at once** | %d devices | %d | **%s** | %s–%s | | |\n\n", len(r.Bands), r.Height, ms(r.Split.Median), ms(r.Split.P10), ms(r.Split.P90))
	fmt.Fprintf(&b, "Speedup over one device: %.2f× (%s ms ÷ %s ms).\n", r.Speedup, ms(r.One.Median), ms(r.Split.Median))
	return b.String()
}
