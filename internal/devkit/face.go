package devkit

import (
	"runtime"

	"github.com/resident-go/resident/device"
)

// Face is the part of a backend's Device that every backend answers the
// same way through its Core. A backend's Device embeds it, so these
// methods are written once and documented once, by the device package's
// interfaces they implement (Device, Kernels, CloseNotifier, Stater).
// Being promoted from an internal type, they stay off the backend's own
// page in go doc, which lists only what is particular to the backend.
type Face[D Dev] struct {
	Capture // BeginCapture, EndCapture
	c       *Core
	dev     D
	fh      FaceHooks[D]
}

// Capture gives a device the Capturer methods over its own two steps; a
// backend's Device embeds it (through Face, or alone as sim does).
type Capture struct {
	begin   func(rec *Recording) error
	end     func(rec *Recording) (Replayer, error)
	foreign func() (*Recording, func(h uintptr) func() func() error)
}

// SetCapture sets the steps behind BeginCapture and EndCapture.
func (c *Capture) SetCapture(begin func(rec *Recording) error, end func(rec *Recording) (Replayer, error)) {
	c.begin, c.end = begin, end
}

// BeginCapture starts recording the device's queue into rec (Capturer).
func (c *Capture) BeginCapture(rec *Recording) error { return c.begin(rec) }

// EndCapture stops recording (Capturer).
func (c *Capture) EndCapture(rec *Recording) (Replayer, error) { return c.end(rec) }

// Recording is the capture the device records into and its keep
// (ForeignRecorder); nil where the device takes no other runtime's work.
func (c *Capture) Recording() (*Recording, func(h uintptr) func() func() error) {
	if c.foreign == nil {
		return nil, nil
	}
	return c.foreign()
}

// FaceHooks are the backend-specific steps behind a Face's methods.
type FaceHooks[D Dev] struct {
	// NoCache: Malloc counts no cache misses (Options.NoCache).
	NoCache bool
	// Fit checks a Malloc's size against the device's limit (may be nil).
	Fit func(n int) (size int, err error)
	// Move runs one host copy (CopyIn, CopyOut) on an owned allocation.
	Move func(x *Alloc[D], hc HostCall) error
	// Begin and End start and stop recording (device/capture).
	Begin func(rec *Recording) error
	End   func(rec *Recording) (Replayer, error)
	// Foreign is the Recording behind ForeignRecorder; nil: none.
	Foreign func() (*Recording, func(h uintptr) func() func() error)
}

// InitFace ties f to the Core c of device dev. cleanup is dev's backstop,
// stopped by Close so that Close and the backstop are one path.
func (f *Face[D]) InitFace(c *Core, dev D, cleanup runtime.Cleanup, h FaceHooks[D]) {
	f.c, f.dev, f.fh = c, dev, h
	c.Counters.CountFills(dev)
	f.SetCapture(h.Begin, h.End)
	f.foreign = h.Foreign
	c.cleanup = cleanup
}

// Name names the device.
func (f *Face[D]) Name() string { return f.c.Name }

// Closed reports whether Close has begun.
func (f *Face[D]) Closed() bool { return f.c.Closed() }

// Close waits for calls under way, runs the close hooks, frees every
// allocation and releases the driver's objects. It is idempotent; the
// cleanup backstop does it for a Device that becomes unreachable.
func (f *Face[D]) Close() error {
	f.c.cleanup.Stop()
	return f.c.Close()
}

// Stats returns the device's counters.
func (f *Face[D]) Stats() device.Stats { return f.c.Counters.Snapshot() }

// OnClose registers fn to run when the device closes, before anything is
// released (device.CloseNotifier).
func (f *Face[D]) OnClose(fn func()) (cancel func()) { return f.c.Hooks.OnClose(fn) }

// Value is the device's per-package state (device.Kernels).
func (f *Face[D]) Value(key any, init func() any) any { return f.c.Values.Value(key, init) }

// ReleaseCache frees the blocks cached for reuse.
func (f *Face[D]) ReleaseCache() error { return f.c.ReleaseCache() }

// Malloc allocates bytes of device memory.
func (f *Face[D]) Malloc(bytes int) (device.Allocation, error) {
	return Malloc(f.c, f.dev, bytes, f.fh.NoCache, f.fh.Fit)
}

// Free releases an allocation or crop; twice, or after Close, is a no-op.
func (f *Face[D]) Free(a device.Allocation) error { return FreeAlloc(f.c, f.dev, a) }

// Crop returns an allocation sharing bytes of a from off.
func (f *Face[D]) Crop(a device.Allocation, off, bytes int) (device.Allocation, error) {
	return CropAlloc(f.c, f.dev, a, off, bytes)
}

// CopyIn copies the region r of src into dst from byte off.
func (f *Face[D]) CopyIn(dst device.Allocation, off int, src []byte, r device.Region) error {
	return HostCopy(f.c, f.dev, true, dst, off, src, r, f.fh.Move)
}

// CopyOut copies the region r of src from byte off into dst.
func (f *Face[D]) CopyOut(dst []byte, src device.Allocation, off int, r device.Region) error {
	return HostCopy(f.c, f.dev, false, src, off, dst, r, f.fh.Move)
}
