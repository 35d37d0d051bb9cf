package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide/stream"
)

type runner struct {
	cfg   Config
	bytes int
	done  int
	total int
	// traffic[i] is what stage i reads and writes: its input's bytes
	// plus its output's.
	traffic []int
	// want is what the first wantN stages make of the input pattern, and
	// spare a buffer of the image's length (see expected).
	want, spare []float64
	wantN       int
	// tracing is the Trace the streamed Runs fill (trace), nil otherwise.
	tracing *stream.Trace
}

// Run measures the ceilings for each Memory, then every chain length, Mode
// and Memory the Config asks for, and returns the figures. Every Result's
// output is checked against the expected image once after timing, so a
// chain that computes the wrong thing fails instead of reporting a time.
func Run(cfg Config) (*Report, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	r := newRunner(cfg)
	lens := cfg.lengths()
	r.total = len(cfg.Memories) + len(lens)*(len(cfg.Modes)*len(cfg.Memories)+1)
	rep := &Report{
		Device: cfg.Device.Name(), Stage: stageNames(cfg.Stages),
		Width: cfg.Width, Height: cfg.Height, Bytes: r.bytes, Stages: len(cfg.Stages),
		Sync: cfg.Sync, Warmup: cfg.Warmup, Reps: cfg.Reps, Started: time.Now(),
	}
	for _, mem := range cfg.Memories {
		r.progress("ceiling " + mem.String() + " memory")
		c, err := r.measureCeiling(mem)
		if err != nil {
			return nil, fmt.Errorf("bench: ceiling with %s memory: %w", mem, err)
		}
		rep.Ceilings = append(rep.Ceilings, c)
	}
	for _, n := range lens {
		rs, err := r.measureLength(n)
		if err != nil {
			return nil, err
		}
		for _, res := range rs {
			c, _ := rep.Ceiling(res.Memory)
			res.Ideal = ideal(res, c, r.d2dImages(res.Stages))
			res.OfIdeal = float64(res.Ideal) / float64(max(res.Time.Median, 1))
			rep.Results = append(rep.Results, res)
		}
	}
	for i, x := range rep.Results {
		if base, ok := rep.Find(Resident, x.Memory, x.Stages); ok && base.Time.Median > 0 {
			rep.Results[i].VsResident = float64(x.Time.Median) / float64(base.Time.Median)
		}
	}
	r.progress("done")
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

func (r *runner) progress(what string) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.done, r.total, what)
	}
	r.done++
}

func stageNames(ss []Stage) string {
	var names []string
	for _, s := range ss {
		if len(names) == 0 || names[len(names)-1] != s.Name {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ",")
}

// newRunner returns a runner of a normalized Config.
func newRunner(cfg Config) *runner {
	r := &runner{cfg: cfg, bytes: cfg.Width * cfg.Height}
	in := r.bytes
	for _, s := range cfg.Stages {
		out := s.Out.bytes(cfg.Width, cfg.Height)
		r.traffic = append(r.traffic, in+out)
		in = out
	}
	return r
}

// stageBytes is what the first n stages read and write.
func (r *runner) stageBytes(n int) float64 {
	t := 0
	for _, x := range r.traffic[:n] {
		t += x
	}
	return float64(t)
}

// d2dImages is the first n stages' traffic in device-to-device copies of
// the image (each reads and writes it): n for a chain of uint8 images.
func (r *runner) d2dImages(n int) float64 {
	t := 0.0
	for _, x := range r.traffic[:n] {
		t += float64(x) / float64(2*r.bytes)
	}
	return t
}

// ideal is the time the Result's transfers and stages take at the
// ceilings, its stages moving d2dImages image copies' worth of data at the
// device-to-device copy's speed.
//
// Streamed overlaps the three, so its ideal is the longest of them.
func ideal(res Result, c Ceiling, d2dImages float64) time.Duration {
	parts := [3]float64{d2dImages * float64(c.D2D.Median)}
	if c.H2DGBps > 0 {
		parts[1] = res.H2DBytes / c.H2DGBps
	}
	if c.D2HGBps > 0 {
		parts[2] = res.D2HBytes / c.D2HGBps
	}
	if res.Mode == Streamed {
		return time.Duration(max(parts[0], parts[1], parts[2]))
	}
	return time.Duration(parts[0] + parts[1] + parts[2])
}

// newImage returns a device-aware Width × Height uint8 Array whose host
// storage is of kind mem.
func (r *runner) newImage(mem Memory) (*array.Array[uint8], error) {
	return newArray[uint8](r.hostAlloc(mem), r.cfg.Width, r.cfg.Height)
}

// hostAlloc is where host storage of kind mem comes from: the device's
// pinned memory, or nil for Go memory.
func (r *runner) hostAlloc(mem Memory) device.HostAllocator {
	if mem == Pinned {
		return r.cfg.Device.(device.HostAllocator)
	}
	return nil
}

// trial is one mode and memory of one chain length, with its own Arrays.
type trial struct {
	mode Mode
	mem  Memory
	sync []int
	in   *array.Array[uint8]
	// outs[i] is stage i's output. Outputs of one kind alternate between
	// two buffers, so a chain of like stages ping-pongs between them.
	outs   []buffer
	bufs   []buffer // every output buffer, once
	iter   func() error
	times  []time.Duration
	counts device.Stats
	stream *stream.Stream // Streamed's bands, buffers and staging
	// parts is a streamed sum's per-band sums, summed into the scalar
	// output on the host.
	parts buffer
}

func (t *trial) close() {
	if t.stream != nil {
		t.stream.Close()
	}
	if t.parts != nil {
		t.parts.Close()
	}
	if t.in != nil {
		t.in.Close()
	}
	for _, b := range t.bufs {
		b.Close()
	}
}

// newTrial allocates the input and the outputs of a chain of n stages in
// mode with host memory mem and fills the input.
func (r *runner) newTrial(mode Mode, mem Memory, n int) (*trial, error) {
	t := &trial{mode: mode, mem: mem, times: make([]time.Duration, 0, r.cfg.Reps)}
	in, err := r.newImage(mem)
	if err != nil {
		return nil, err
	}
	t.in = in
	if err := r.newOutputs(t, n); err != nil {
		t.close()
		return nil, err
	}
	v, err := t.in.Host()
	if err != nil {
		t.close()
		return nil, err
	}
	pattern(v.Data())
	stages := r.cfg.Stages[:n]
	if mode == Explicit {
		for _, s := range r.cfg.Sync {
			if s < n {
				t.sync = append(t.sync, s)
			}
		}
	}
	switch mode {
	case Resident, Explicit:
		t.iter = func() error { return r.resident(stages, t.in, t.outs, t.sync) }
	case RoundTrip:
		t.iter = func() error { return r.roundTrip(stages, t.in, t.outs) }
	case Streamed:
		bands := min(r.cfg.Bands, r.cfg.Height)
		o := stream.Options{Device: r.cfg.Device, Bands: bands, First: r.cfg.First, Last: r.cfg.Last}
		s, err := stream.New(o, streamSteps(stages, r.cfg.Width, r.cfg.Height, o.Cut())...)
		if err != nil {
			t.close()
			return nil, err
		}
		t.stream = s
		out := t.outs[n-1]
		if last := stages[n-1].Out; last.Scalar() {
			// A sum: each band's sum comes home, the scalar is their sum.
			if t.parts, err = last.alloc(r.hostAlloc(mem), []int{bands}); err != nil {
				t.close()
				return nil, err
			}
			t.iter = func() error {
				if err := r.streamed(s, t.in, t.parts); err != nil {
					return err
				}
				return out.sumOf(t.parts)
			}
			break
		}
		t.iter = func() error { return r.streamed(s, t.in, out) }
	default:
		t.close()
		return nil, fmt.Errorf("unknown mode %v", mode)
	}
	return t, nil
}

// newOutputs allocates t's outputs of the first n stages: stage i writes
// the second buffer of its kind (type and shape) when stage i−1 wrote the
// first, and the first otherwise, so no stage writes its own input.
func (r *runner) newOutputs(t *trial, n int) error {
	ha := r.hostAlloc(t.mem)
	type kind struct {
		typ    array.Type
		scalar bool
	}
	pool := map[kind][]buffer{}
	var prev buffer
	for _, s := range r.cfg.Stages[:n] {
		k := kind{s.Out.Type(), s.Out.Scalar()}
		p := pool[k]
		var b buffer
		switch {
		case len(p) > 0 && p[0] != prev:
			b = p[0]
		case len(p) > 1:
			b = p[1]
		default:
			nb, err := s.Out.new(ha, r.cfg.Width, r.cfg.Height)
			if err != nil {
				return err
			}
			b = nb
			pool[k] = append(p, b)
			t.bufs = append(t.bufs, b)
		}
		t.outs = append(t.outs, b)
		prev = b
	}
	return nil
}

// measureLength times every mode and memory of a chain of n stages. The
// repetitions are interleaved (one iteration of each in turn), so load
// from elsewhere on the machine hits them alike and their ratios hold.
func (r *runner) measureLength(n int) ([]Result, error) {
	dev := r.cfg.Device
	var ts []*trial
	defer func() {
		for _, t := range ts {
			t.close()
		}
	}()
	for _, mode := range r.cfg.Modes {
		for _, mem := range r.cfg.Memories {
			r.progress(fmt.Sprintf("%d stages: warming up %s, %s memory", n, mode, mem))
			t, err := r.newTrial(mode, mem, n)
			if err != nil {
				return nil, fmt.Errorf("bench: %s, %s memory, %d stages: %w", mode, mem, n, err)
			}
			ts = append(ts, t)
			for range r.cfg.Warmup {
				if err := t.iter(); err != nil {
					return nil, fmt.Errorf("bench: %s, %s memory, %d stages: %w", mode, mem, n, err)
				}
			}
		}
	}
	r.progress(fmt.Sprintf("%d stages: %d repetitions of %d runs", n, r.cfg.Reps, len(ts)))
	for range r.cfg.Reps {
		for _, t := range ts {
			before := dev.Stats()
			start := time.Now()
			if err := t.iter(); err != nil {
				return nil, fmt.Errorf("bench: %s, %s memory, %d stages: %w", t.mode, t.mem, n, err)
			}
			t.times = append(t.times, time.Since(start))
			d := dev.Stats().Sub(before)
			t.counts.H2DCalls += d.H2DCalls
			t.counts.H2DBytes += d.H2DBytes
			t.counts.D2HCalls += d.D2HCalls
			t.counts.D2HBytes += d.D2HBytes
		}
	}
	if err := r.trace(ts, n); err != nil {
		return nil, err
	}
	var out []Result
	reps := float64(r.cfg.Reps)
	want := r.expected(n)
	tol := r.cfg.Stages[n-1].Tol
	for _, t := range ts {
		if err := checkOutput(t.outs[n-1], want, tol, n); err != nil {
			return nil, fmt.Errorf("bench: %s, %s memory, %d stages: %w", t.mode, t.mem, n, err)
		}
		res := Result{
			Mode: t.mode, Memory: t.mem, Stages: n, Sync: t.sync, Time: Summarize(t.times),
			H2DCalls: float64(t.counts.H2DCalls) / reps, D2HCalls: float64(t.counts.D2HCalls) / reps,
			H2DBytes: float64(t.counts.H2DBytes) / reps, D2HBytes: float64(t.counts.D2HBytes) / reps,
		}
		if t.mode == Streamed {
			res.Bands = min(r.cfg.Bands, r.cfg.Height)
			res.First, res.Last = r.cfg.First, r.cfg.Last
		}
		res.EffectiveGBps = gbps(r.stageBytes(n), res.Time.Median)
		out = append(out, res)
	}
	return out, nil
}

// trace writes the timelines of TraceRuns traced iterations of each
// streamed trial to Config.Trace.
func (r *runner) trace(ts []*trial, n int) error {
	w := r.cfg.Trace
	if w == nil {
		return nil
	}
	for _, t := range ts {
		if t.stream == nil {
			continue
		}
		var tr stream.Trace
		r.tracing = &tr
		for i := range TraceRuns {
			if err := t.iter(); err != nil {
				r.tracing = nil
				return fmt.Errorf("bench: traced %s, %s memory, %d stages: %w", t.mode, t.mem, n, err)
			}
			label := modeLabel(Result{Mode: t.mode, Bands: len(tr.Bands), First: r.cfg.First, Last: r.cfg.Last})
			fmt.Fprintf(w, "## %s, %s memory, %d stages: traced run %d of %d\n", label, t.mem, n, i+1, TraceRuns)
			if _, err := tr.WriteTo(w); err != nil {
				return err
			}
		}
		r.tracing = nil
	}
	return nil
}

// resident runs one iteration with device-aware Arrays: a new input frame
// (a write through a host view), one explicit upload, the stages with the
// transfer guard on (so any copy in between would fail the run), a
// CopyToHost after each sync point, and the one download.
func (r *runner) resident(stages []Stage, input *array.Array[uint8], outs []buffer, sync []int) error {
	dev := r.cfg.Device
	if err := newFrame(input); err != nil {
		return err
	}
	if err := input.CopyToDevice(dev); err != nil {
		return err
	}
	was := device.SetDeviceGuard(dev, true)
	defer device.SetDeviceGuard(dev, was)
	var in array.Buffer = input
	for i, s := range stages {
		out := outs[i]
		if err := s.Run(in, out.arg()); err != nil {
			return err
		}
		if _, ok := slices.BinarySearch(sync, i); ok && i < len(stages)-1 {
			if err := out.CopyToHost(); err != nil {
				return err
			}
		}
		in = out.arg()
	}
	return outs[len(stages)-1].CopyToHost()
}

// streamed runs one iteration in bands (package stream): a new input
// frame, then each band's rows up, through the stages and down, bands
// overlapping. The stream's own transfers are explicit; the stages run
// under the transfer guard, as in resident mode (the device's: the stages
// are ops and pipeline calls that take no context). A traced iteration
// passes r.tracing to its Run.
func (r *runner) streamed(s *stream.Stream, input *array.Array[uint8], out buffer) error {
	if err := newFrame(input); err != nil {
		return err
	}
	was := device.SetDeviceGuard(r.cfg.Device, true)
	defer device.SetDeviceGuard(r.cfg.Device, was)
	return s.RunContext(context.Background(), stream.RunOptions{Trace: r.tracing}, out.arg(), input)
}

// streamSteps are a chain's stages as stream steps for a w × h image cut
// in bands of rows. A Stage reads and writes whole rows of its input's
// coordinates (no halo), so every band's input is its own rows. A last
// stage that sums (a scalar output) writes band k's sum at k of a
// one-dimensional output of bands elements, reading the band's rows.
func streamSteps(stages []Stage, w, h int, c stream.Cut) []stream.Step {
	steps := make([]stream.Step, len(stages))
	for i, s := range stages {
		steps[i] = stream.Step{Name: s.Name, Out: s.Out.Type(), Run: func(out, in array.Buffer) error { return s.Run(in, out) }}
		if s.Out.Scalar() {
			steps[i].Run = func(out, in array.Buffer) error { return s.Run(in, s.Out.flat(out)) }
			steps[i].Needs = func(out []array.Dim) ([]array.Dim, error) { // stream.Reduce's, untyped
				return c.Band([]array.Dim{{Extent: w}, {Extent: h}}, out[0].Min), nil
			}
		}
	}
	return steps
}

// roundTrip runs one iteration the lesson-10 way: every stage gets
// host-only views, so it uploads its input and downloads its output.
func (r *runner) roundTrip(stages []Stage, input *array.Array[uint8], outs []buffer) error {
	if err := newFrame(input); err != nil {
		return err
	}
	for i, s := range stages {
		var iv array.Buffer
		var err error
		if i == 0 {
			iv, err = input.Host()
		} else {
			iv, err = outs[i-1].host()
		}
		if err != nil {
			return err
		}
		ov, err := outs[i].host()
		if err != nil {
			return err
		}
		if err := s.Run(iv, ov); err != nil {
			return err
		}
	}
	return nil
}

// newFrame stands for the application writing the next input: a write
// through a host view marks the host copy newer, so it must be uploaded.
func newFrame(a *array.Array[uint8]) error {
	v, err := a.Host()
	if err != nil {
		return err
	}
	_ = v.Data() // a writable view's Data marks the host copy newer
	return nil
}

// pattern fills an image with every byte value, so saturation is tested.
func pattern(d []uint8) {
	for i := range d {
		d[i] = uint8(i*7 + i/4099)
	}
}
