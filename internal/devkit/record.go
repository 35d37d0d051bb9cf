package devkit

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/resident-go/resident/device"
)

// ErrCapture is device/capture's ErrCapture, here for the packages that
// refuse work inside a capture (halide).
var ErrCapture = errors.New("capture: cannot replay")

// Recording is what a device records of its queue's work during a
// capture (package device/capture): the steps a recorded replay queues
// again, the device memory the steps use (kept alive until Release), and
// the first piece of work that could not be recorded. Devices record at
// their driver entries, so whatever package queued the work (ops, the
// engine) is recorded alike.
type Recording struct {
	mu    sync.Mutex
	steps []*Step
	err   error
	kept  map[uintptr]func() error // by native handle: its release
	order []uintptr
}

// Step is one recorded piece of work.
type Step struct {
	// Name is the kernel's, or the entry point's ("copy", "CopyIn").
	Name string
	// Args are a kernel's arguments, copied; SetArg replaces scalars.
	// Nil for other work.
	Args []any
	// Run queues the step again with args (recorded replay); nil where
	// the device replays otherwise (a CUDA graph).
	Run func(args []any) error
	// Data is the device's own (a CUDA step's kernel and graph node).
	Data any
}

// Add appends s.
func (r *Recording) Add(s *Step) {
	r.mu.Lock()
	r.steps = append(r.steps, s)
	r.mu.Unlock()
}

// Record adds s, its Args copied, and keeps the blocks its buffer
// arguments and roots use with keep (the device's handle lookup).
func (r *Recording) Record(s *Step, keep func(h uintptr) func() func() error, roots ...uintptr) {
	s.Args = slices.Clone(s.Args)
	r.KeepBuffers(s.Args, keep)
	for _, h := range roots {
		r.Keep(h, keep(h))
	}
	r.Add(s)
}

// Refuse records err, the first work that cannot be replayed; the capture
// fails with it. It returns err, for the device entry to return too.
func (r *Recording) Refuse(err error) error {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	return err
}

// Err is the first refusal.
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Steps returns the recorded steps, in order.
func (r *Recording) Steps() []*Step {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.steps)
}

// Keep records that the work uses the block with native handle h: keep
// is called once per handle to keep it from being released or reused
// while the recording lives, and returns its release (nil: nothing to
// keep, a handle the device does not own).
func (r *Recording) Keep(h uintptr, keep func() func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.kept[h]; ok {
		return
	}
	if r.kept == nil {
		r.kept = map[uintptr]func() error{}
	}
	rel := keep()
	r.kept[h] = rel
	r.order = append(r.order, h)
}

// Kept is the number of blocks kept.
func (r *Recording) Kept() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rel := range r.kept {
		if rel != nil {
			n++
		}
	}
	return n
}

// Release lets the kept blocks go. Idempotent.
func (r *Recording) Release() error {
	r.mu.Lock()
	kept, order := r.kept, r.order
	r.kept, r.order = nil, nil
	r.mu.Unlock()
	var errs []error
	for _, h := range order {
		if rel := kept[h]; rel != nil {
			errs = append(errs, rel())
		}
	}
	return errors.Join(errs...)
}

// KeepBuffers keeps the blocks behind the device.Buffer arguments in args
// with keep (a device's handle lookup).
func (r *Recording) KeepBuffers(args []any, keep func(h uintptr) func() func() error) {
	for _, a := range args {
		if b, ok := a.(device.Buffer); ok && b != 0 {
			r.Keep(uintptr(b), keep(uintptr(b)))
		}
	}
}

// Capturer is a device that records the work queued on it (package
// device/capture asks for it).
type Capturer interface {
	device.Device
	// BeginCapture starts recording the device's queue into rec; one
	// capture at a time per device.
	BeginCapture(rec *Recording) error
	// EndCapture stops recording. When the work was recorded (rec.Err()
	// nil), the Replayer queues it again; it has not run yet where the
	// device only recorded it (Ran false).
	EndCapture(rec *Recording) (Replayer, error)
}

// Replayer queues recorded work again.
type Replayer interface {
	// Replay queues the work once, through the device's gate.
	Replay() error
	// SetArg makes argument i of step s (a scalar) v in later replays.
	SetArg(s *Step, i int, v any) error
	// Ran reports whether the work ran while it was recorded.
	Ran() bool
	// Nodes is what one replay launches: graph nodes, or steps.
	Nodes() int
	// Kind says how it replays: "CUDA graph", "OpenCL command buffer",
	// "recorded replay".
	Kind() string
	// Close releases the replay's device objects (not rec's blocks).
	Close() error
}

// Capturing is a device's capture state: the Recording its entries add
// to, or nil.
type Capturing struct{ rec atomic.Pointer[Recording] }

// Load is the active Recording, or nil.
func (c *Capturing) Load() *Recording { return c.rec.Load() }

// Begin makes rec the active Recording; an error when one is active.
func (c *Capturing) Begin(name string, rec *Recording) error {
	if !c.rec.CompareAndSwap(nil, rec) {
		return fmt.Errorf("%s: a capture is already under way on this device: end it first", name)
	}
	return nil
}

// End clears rec.
func (c *Capturing) End(rec *Recording) bool { return c.rec.CompareAndSwap(rec, nil) }

// ReplaySteps is a recorded replay: each step's Run again, in order,
// inside gate.
type ReplaySteps struct {
	Gate      *Gate
	ErrClosed error
	Steps     []*Step
	mu        sync.Mutex // args may change between replays
}

func (p *ReplaySteps) Replay() error {
	if !p.Gate.Enter() {
		return p.ErrClosed
	}
	defer p.Gate.Leave()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.Steps {
		if s.Run == nil {
			continue
		}
		if err := s.Run(s.Args); err != nil {
			return fmt.Errorf("replaying %s: %w", s.Name, err)
		}
	}
	return nil
}

func (p *ReplaySteps) SetArg(s *Step, i int, v any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return SetStepArg(s, i, v)
}

// SetStepArg makes argument i of s v: a new Args slice (a device may hold
// the old one as the arguments it set last).
func SetStepArg(s *Step, i int, v any) error {
	if i < 0 || i >= len(s.Args) {
		return fmt.Errorf("argument %d of %s, which has %d: %w", i, s.Name, len(s.Args), device.ErrOutOfRange)
	}
	a := slices.Clone(s.Args)
	a[i] = v
	s.Args = a
	return nil
}

func (p *ReplaySteps) Ran() bool    { return true }
func (p *ReplaySteps) Kind() string { return "recorded replay" }
func (p *ReplaySteps) Nodes() int   { return len(p.Steps) }
func (p *ReplaySteps) Close() error { return nil }

// RetainHandle keeps the live root whose handle is h from being released
// or cached while the returned release has not run (as a crop keeps it);
// nil when no live root has that handle. release returns the root when it
// was the last reference (the caller releases its handle).
func RetainHandle(p *Pool, h uintptr) (release func() *Root) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var root *Root
	for r := range p.live {
		if r.H == h {
			root = r
			break
		}
	}
	if root == nil || p.closed {
		return nil
	}
	root.refs++
	var once sync.Once
	return func() *Root {
		var out *Root
		once.Do(func() { out = p.unref(root) })
		return out
	}
}

// unref drops one reference to r: when it was the last, r stops being
// live and is cached, or returned for the caller to release.
func (p *Pool) unref(r *Root) *Root {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil // Close released it
	}
	r.refs--
	if r.refs > 0 {
		p.mu.Unlock()
		return nil
	}
	delete(p.live, r)
	kept := !r.Adopted && p.cache.Put(r.H, r.Size)
	p.mu.Unlock()
	p.Counters.Release(r.User)
	if kept {
		p.Counters.Cached(r.Size)
		return nil
	}
	return r
}

// AddWork adds the transfers, copies and launches of w (a replay's, as
// a capture counted them) to c.
func (c *Counters) AddWork(w device.Stats) {
	c.h2dCalls.Add(w.H2DCalls)
	c.h2dBytes.Add(w.H2DBytes)
	c.d2hCalls.Add(w.D2HCalls)
	c.d2hBytes.Add(w.D2HBytes)
	c.d2dCalls.Add(w.D2DCalls)
	c.d2dBytes.Add(w.D2DBytes)
	c.launches.Add(w.Launches)
}

// ForeignRecorder is a device whose captures also take the kernels that
// another runtime (Halide's OpenCL runtime) queues on its queue: the
// Recording it is capturing into (nil: none) and its keep, the handle
// lookup that holds a block of its pool (Recording.Record's keep).
type ForeignRecorder interface {
	Recording() (rec *Recording, keep func(h uintptr) func() func() error)
}

// ForeignKernel is a Step's Data for a kernel another runtime queued:
// the cl_kernel (the Recording holds a reference; nobody else sets its
// arguments) and its grid. The device gives the Step its Run at
// EndCapture; the Step's Args are the kernel's scalar arguments ([]byte,
// nil for the others).
type ForeignKernel struct {
	Kernel uintptr
	Grid   device.Grid
}

// KeepRef holds a reference the caller took (released by rel) until rec
// releases its blocks; a second reference to a handle rec already holds
// is dropped at once.
func KeepRef(rec *Recording, h uintptr, rel func() error) error {
	kept := false
	rec.Keep(h, func() func() error { kept = true; return rel })
	if !kept {
		return rel()
	}
	return nil
}
