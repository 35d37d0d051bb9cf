package stream

import (
	"context"
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/internal/place"
	"github.com/resident-go/resident/internal/plumb"
)

// ErrChain is wrapped by the errors of a chain that cannot run as asked:
// steps whose element types do not follow on, a destination of another
// type, a band whose input lies outside the source, a destination that
// shares memory with the source, negative Options.
var ErrChain = errors.New("stream: bad chain")

// ErrClosed is returned by Run on a closed Stream; it wraps
// device.ErrClosed, the module's one closed sentinel.
var ErrClosed = fmt.Errorf("stream: Run on a closed Stream: %w", device.ErrClosed)

// Options tune a Stream.
type Options struct {
	// Device runs the chain; nil: the placement rule's choice (the
	// device the destination or the source is allocated on), else
	// halide.DefaultDevice("OpenCL"). It must be a device/opencl or device/cuda
	// Device.
	Device device.Device
	// Bands is how many bands the output's outermost dimension is cut
	// into; 0: 2 (each band costs every step one more call: on the H200
	// 8 stages over 4096² took 0.78× resident in 2 bands, 0.88× in 4 and
	// 1.40× in 8, bench/results/h200-streamed-bands.txt; on CUDA, whose
	// launches cost less, 4 bands of pinned memory were fastest: 0.63 ms
	// against 0.71 in 2 and 0.61–0.83 in 8, and 2 for Go memory). More
	// bands than rows give one row each.
	Bands int
	// First and Last are the first and last bands' height relative to
	// the others (Cut's; 0: equal bands). On the H200 (CUDA, pinned) the
	// mixed chain, which brings home one sum a band, ran 0.348 ms in 2
	// bands with Last 0.25 against 0.361 in 4 equal ones; the brighter
	// chain, bound by the host's calls, gained from thin bands only where
	// the host was slow (bench/results/h200-stream-cuts.txt).
	First, Last float64
	// Slots is how many bands may be in flight at once, each with its
	// own input and output buffers on the device (and pinned staging for
	// Go memory); 0: 3 (one uploading, one computing, one downloading).
	Slots int
}

// check refuses what the fields' docs give no meaning.
func (o Options) check() error {
	if o.Bands < 0 || o.Slots < 0 {
		return fmt.Errorf("%w: Options.Bands %d, Slots %d: want 0 (the default) or more", ErrChain, o.Bands, o.Slots)
	}
	return nil
}

const (
	defaultBands = 2
	defaultSlots = 3
)

// Cut is how o cuts the output, defaults filled in (a negative Bands,
// which New refuses, counts as 0): what a Reduce step of the chain must be
// given.
func (o Options) Cut() Cut {
	if o.Bands <= 0 {
		o.Bands = defaultBands
	}
	return Cut{Bands: o.Bands, First: o.First, Last: o.Last}
}

// Stream runs a chain of steps in bands, keeping its device buffers,
// pinned staging and band plan between Runs of like operands. A Stream is
// for one goroutine at a time; Close frees what it holds.
type Stream struct {
	steps []Step
	o     Options
	p     *plan
	st    plumb.Streams
	slots []slot
	mid   []array.Buffer // mid[i]: region i's buffer, 0 < i < n; shared by every band
	// views[k][i] is band k's region i on the device: views of the
	// slot's input (i = 0) and output (i = n) buffers and of mid[i], made
	// once per plan, so a Run makes no new Arrays for the steps.
	views   [][]array.Buffer
	kits    []kit // kits[i]: region i's element type
	closed  bool
	oneShot bool // the package function's: closed as its Run returns
}

// slot is one band in flight: its input and output device buffers, the
// pinned staging they need for Go memory, and the events of the band
// that used it last.
type slot struct {
	in, out           array.Buffer
	inStage, outStage array.Buffer // nil until a band needs staging
	up, comp, down    plumb.Event
	// scatter copies the staged output of the slot's band to the
	// destination once its download completed; nil when none is pending.
	scatter func() error
}

// New returns a Stream of steps. It checks the options and the steps; Run
// checks them against its operands.
func New(o Options, steps ...Step) (*Stream, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%w: no steps", ErrChain)
	}
	for i, s := range steps {
		if s.Run == nil {
			return nil, fmt.Errorf("%w: step %d (%q) has no Run", ErrChain, i, s.Name)
		}
	}
	if o.Bands <= 0 {
		o.Bands = defaultBands
	}
	if o.Slots <= 0 {
		o.Slots = defaultSlots
	}
	return &Stream{steps: append([]Step(nil), steps...), o: o}, nil
}

// Run is New(o, steps...).Run(dst, src) and Close. If a step panics, the
// panic goes on to the caller once the Stream is closed: nothing stays
// allocated.
func Run(dst, src array.Buffer, o Options, steps ...Step) (err error) {
	return RunContext(context.Background(), dst, src, o, steps...)
}

// RunContext is Run under ctx (Stream.RunContext): cancelled, it queues no
// further band, waits for what it queued, and frees every buffer and event
// it made before it returns an error wrapping ctx.Err().
func RunContext(ctx context.Context, dst, src array.Buffer, o Options, steps ...Step) (err error) {
	s, err := New(o, steps...)
	if err != nil {
		return err
	}
	s.oneShot = true
	defer func() { err = errors.Join(err, s.Close()) }()
	return s.RunContext(ctx, RunOptions{}, dst, src)
}

// RunOptions are one Run's own choices (RunContext); the zero value is
// Run's.
type RunOptions struct {
	// Trace, when not nil, is filled with this Run's timeline.
	Trace *Trace
}

// Run computes dst from src through the chain, band by band: it uploads
// each band's input region (a pipeline's bounds query gives it, halo
// included), runs the steps on band buffers on the device, and downloads
// the band's output into dst's host memory, while the next band uploads
// and the one before downloads, on three queues ordered by events. dst
// and src are *array.Array values, over Go memory (staged through pinned
// buffers, the copies overlapping the transfers) or the device's pinned
// memory (array.NewIn; moved directly). The result is the unstreamed
// chain's, element for element.
//
// src's newest elements must be on the host, or are brought there first
// (an automatic copy, refused under the transfer guard). dst ends newest
// on the host, as after a write through its Host view; dst and src must
// not share memory (their host spans, HostBytes, must not overlap), or Run
// refuses them. Every byte moved is counted in the device's Stats: the
// bands' input regions up, the output down, nothing else. Those transfers
// are what Run is asked for, like CopyToDevice's: the transfer guard
// refuses only copies the steps would make on their own. On error dst's
// elements are unspecified and nothing is left in flight; so too when a
// step panics, the panic going on to the caller (Close still frees the
// buffers).
func (s *Stream) Run(dst, src array.Buffer) error {
	return s.RunContext(context.Background(), RunOptions{}, dst, src)
}

// RunContext is Run under ctx, with o for this Run only. ctx is checked
// before each band is queued: once it is done, no further band is
// queued, the bands already queued complete (a band's work on the device
// cannot be recalled), every event is released, and RunContext returns an
// error wrapping ctx.Err() (errors.Is(err, context.Canceled)); dst's
// elements are then unspecified. The Stream keeps its band buffers for
// the next Run, which works as after any failed Run; Close frees them
// (the package function RunContext closes its Stream). A ctx carrying
// the transfer guard (device.WithGuard) refuses the source's automatic
// copy home and reaches the steps (Step.RunContext: a Pipeline step's
// call gets halide's Options.Guard).
func (s *Stream) RunContext(ctx context.Context, o RunOptions, dst, src array.Buffer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stream: Run cancelled before it started: %w", err)
	}
	if s.closed {
		return ErrClosed
	}
	dr, sr := rawOf(dst), rawOf(src)
	if dr == nil || sr == nil {
		return fmt.Errorf("%w: a nil destination or source", ErrChain)
	}
	if dr.Len() == 0 {
		return nil
	}
	if overlap(dr.HostBytes(), sr.HostBytes()) {
		// Band k's download would land on source elements a later band
		// has yet to upload.
		return fmt.Errorf("%w: the destination (%v %v) shares host memory with the source (%v %v): give the destination memory of its own", ErrChain, dr.Type(), dr.Extents(), sr.Type(), sr.Extents())
	}
	dev, st, err := s.device(dr, sr)
	if err != nil {
		return err
	}
	if !s.p.fits(dev, dr, sr) {
		if err := s.replan(dev, st, dr, sr); err != nil {
			return err
		}
	}
	kin, kout := s.kits[0], s.kits[len(s.kits)-1]
	if !kin.is(src) || !kout.is(dst) {
		return fmt.Errorf("%w: the destination and source must be *array.Array values (not views' Host forms)", ErrChain)
	}
	for _, r := range []*array.Raw{sr, dr} {
		held, err := plumb.Array.AcquireFor(r, false)
		if err != nil {
			return err
		}
		if held {
			defer plumb.Array.Release(r)
		}
	}
	if plumb.Array.NeedsDownload(sr) {
		if err := plumb.CheckAutomatic(sr.Device(), "stream: the source's device-newer elements to host"); err != nil {
			return err
		}
		if guard.Refused(ctx, sr.Device()) {
			return fmt.Errorf("%w: stream: the source's device-newer elements to host (the Run's ctx carries device.WithGuard: copy them home with CopyToHost first)", device.ErrTransferGuard)
		}
		if err := plumb.Array.SyncHost(sr); err != nil {
			return err
		}
	}
	if err := s.run(ctx, o.Trace, dst, src); err != nil {
		return err
	}
	plumb.Array.Wrote(dr, plumb.Host)
	return nil
}

// overlap reports whether two spans of host memory share a byte.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

func rawOf(b array.Buffer) *array.Raw {
	if b == nil {
		return nil
	}
	return b.Raw()
}

// device is where the chain runs, and its queues: the module's placement
// rule for work with no host form (internal/place), else halide's default
// device.
func (s *Stream) device(dst, src *array.Raw) (device.Device, plumb.Streams, error) {
	d, err := place.Where(s.o.Device, place.Work{Pkg: "stream", Op: "Run", Inputs: []*array.Raw{src}, Outputs: []*array.Raw{dst}, DeviceOnly: true})
	if err != nil {
		return nil, nil, err
	}
	if d == nil {
		cd, err := halide.DefaultDevice("OpenCL")
		if err != nil {
			return nil, nil, err
		}
		d = cd
	}
	st, ok, err := plumb.StreamsOf(d)
	if !ok {
		return nil, nil, fmt.Errorf("%w: streamed execution runs on a device/opencl or device/cuda Device; %s is neither", ErrChain, d.Name())
	}
	return d, st, err
}

// replan makes the plan for new operands and the buffers it needs,
// dropping the old ones.
func (s *Stream) replan(dev device.Device, st plumb.Streams, dst, src *array.Raw) error {
	p, err := makePlan(dev, s.steps, s.o.Cut(), dst, src)
	if err != nil {
		return err
	}
	ks := make([]kit, len(p.types))
	for i, t := range p.types {
		if ks[i], err = kits.For(t); err != nil {
			return fmt.Errorf("%w: %v", ErrChain, err)
		}
	}
	if err := s.free(); err != nil {
		return err
	}
	s.p, s.st, s.kits = p, st, ks
	if err := s.alloc(); err != nil {
		s.free()
		return err
	}
	return nil
}

// alloc makes the plan's device buffers: per slot an input and an output
// buffer, and one buffer per intermediate region shared by all bands (the
// compute queue runs the bands' steps in order).
func (s *Stream) alloc() error {
	p, n := s.p, len(s.steps)
	s.slots = make([]slot, s.o.Slots)
	for i := range s.slots {
		sl := &s.slots[i]
		var err error
		if sl.in, err = s.kits[0].root(p.dev, p.most[0]); err != nil {
			return err
		}
		if sl.out, err = s.kits[n].root(p.dev, p.most[n]); err != nil {
			return err
		}
	}
	s.mid = make([]array.Buffer, n)
	for i := 1; i < n; i++ {
		var err error
		if s.mid[i], err = s.kits[i].root(p.dev, p.most[i]); err != nil {
			return err
		}
	}
	s.views = make([][]array.Buffer, len(p.bands))
	for k, regs := range p.bands {
		sl := &s.slots[k%len(s.slots)]
		s.views[k] = make([]array.Buffer, n+1)
		for i, r := range regs {
			var root array.Buffer
			switch i {
			case 0:
				root = sl.in
			case n:
				root = sl.out
			default:
				root = s.mid[i]
			}
			v, err := s.kits[i].view(root, r)
			if err != nil {
				return err
			}
			s.views[k][i] = v
		}
	}
	return nil
}

// free closes the buffers of the current plan.
func (s *Stream) free() error {
	var errs []error
	n := len(s.kits) - 1
	drop := func(k int, b array.Buffer) {
		if b != nil {
			errs = append(errs, s.kits[k].close(b))
		}
	}
	for _, sl := range s.slots {
		drop(0, sl.in)
		drop(0, sl.inStage)
		drop(n, sl.out)
		drop(n, sl.outStage)
	}
	for i, b := range s.mid {
		drop(i, b)
	}
	s.slots, s.mid, s.views, s.p = nil, nil, nil, nil
	return errors.Join(errs...)
}

// Close frees the Stream's device buffers and pinned staging. Idempotent.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.free()
}
