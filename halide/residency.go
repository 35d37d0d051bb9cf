package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	rguard "github.com/resident-go/resident/internal/guard"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// The residency rules of a call, in three steps. checkGuard refuses before
// anything moves; prepare* give every buffer a current copy where the
// pipeline reads it (our transfers, counted, pinned-staged), with flags
// that tell Halide the truth; finish reads both dirty bits back from every
// buffer, inputs included, and records them only when the call succeeded,
// so a failed call leaves every Array's data and state as it was.

// checkGuard refuses the call when an Array lives on another device, or,
// under the transfer guard (process-wide, dev's own, or the call's: call
// true), when the call would move data between host and device on its own.
func (p *Pipeline) checkGuard(f *frame, dev gpuDevice, call bool) error {
	anyGuard := call || rguard.Any()
	var guarded bool
	if anyGuard && p.gpu {
		guarded = call || rguard.OnDevice(dev)
	}
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		r := b.r
		if r == nil {
			continue // a CArg: the runtime's to move, as for a C caller
		}
		if !p.gpu {
			// Host pipelines: only a device-dirty input moves.
		} else if d := r.Device(); d != nil && d != device.Device(dev) {
			if !b.move {
				return &Error{Pipeline: p.name, Code: int(ErrForeignDevice), Msg: fmt.Sprintf(
					"argument %q lives on %s, the pipeline runs on %s: move it explicitly (MoveTo, or DeviceFree then CopyToDevice), or pass halide.Move(it)", a.Name, d.Name(), dev.Name()),
					err: device.ErrForeign}
			}
			// A move frees the other device's copy: always a transfer.
			if guarded || anyGuard && rguard.OnDevice(d) {
				err := guardError(fmt.Sprintf("move of %q of pipeline %s from %s", a.Name, p.name, d.Name()))
				return &Error{Pipeline: p.name, Code: int(ErrTransferGuard), Msg: err.Error(), err: err}
			}
		}
		if !anyGuard {
			continue
		}
		what := ""
		switch {
		case !p.gpu:
			if a.Kind == InputBuffer && plumb.Array.NeedsDownload(r) && (call || rguard.OnDevice(r.Device())) {
				what = "copy to host of device-dirty input"
			}
		case !guarded:
		case a.Kind == InputBuffer && plumb.Array.NeedsUpload(r, dev):
			what = "upload of input"
		case b.hostOnly && a.Kind == OutputBuffer && r.Len() > 0:
			what = "copy to host of host-only output"
		case b.hostOnly && plumb.Array.NeedsDownload(r):
			what = "copy to host of host-only input"
		}
		if what == "" {
			continue
		}
		err := guardError(fmt.Sprintf("%s %q of pipeline %s", what, a.Name, p.name))
		return &Error{Pipeline: p.name, Code: int(ErrTransferGuard), Msg: err.Error(), err: err}
	}
	return nil
}

// checkAutomatic is the guard's refusal for a device (nil: the process-wide guard alone; nil when off).
var checkAutomatic = plumb.CheckAutomatic

// prepareOpenCL gives every buffer a device handle on dev: the Array's
// own allocation at the view's offset, made current for inputs. Host-only
// values without an allocation get a temporary of their own span, and a
// view whose offset the device cannot use as a sub-buffer origin gets an
// aligned temporary filled by a device-to-device copy (counted in Stats).
func (p *Pipeline) prepareOpenCL(f *frame, dev gpuDevice) error {
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		r, cb := b.r, b.cb
		if r == nil {
			continue
		}
		if b.dup {
			if a.Kind == InputBuffer {
				if err := p.prepareDupInput(f, k, dev); err != nil {
					return err
				}
			}
			continue
		}
		cb.B.Flags = 0
		in := a.Kind == InputBuffer
		if d := r.Device(); b.move && d != nil && d != device.Device(dev) {
			if err := plumb.Array.DeviceFree(r); err != nil { // Move: home from the other device
				return p.transferError(a, "moving off "+d.Name(), err)
			}
		}
		alloc, _ := r.Allocation()
		switch {
		case r.Len() == 0:
			// A handle of its own, or the runtime would try a 0-byte
			// clCreateBuffer for it.
			if err := b.makeTemp(dev); err != nil {
				return p.transferError(a, "temporary device allocation", err)
			}
		case b.hostOnly && alloc == nil:
			// Lesson 10's rule: host-only data comes back right after the
			// call; its device copy lives only for the call.
			if err := b.makeTemp(dev); err != nil {
				return p.transferError(a, "temporary device allocation", err)
			}
			if in {
				if plumb.Array.NeedsDownload(r) {
					// No allocation, so values lost when a device closed
					// (array.ErrLost): SyncHost returns their error.
					if err := plumb.Array.SyncHost(r); err != nil {
						return p.transferError(a, "upload", err)
					}
				}
				if err := dev.CopyIn(b.temp, 0, r.HostBytes(), r.Region()); err != nil {
					return p.transferError(a, "upload", err)
				}
			}
		default:
			var err error
			if in {
				err = plumb.Array.SyncDevice(r, dev)
			} else {
				err = plumb.Array.Alloc(r, dev)
			}
			if err != nil {
				return p.transferError(a, "upload", err)
			}
			if b.alloc, b.off = r.Allocation(); b.alloc == nil {
				// The device's close evicted the Array meanwhile (its
				// hooks run before the gate shuts): nothing to run on.
				return p.closedError(dev, fmt.Sprintf("argument %q was let go by its device", a.Name), device.ErrClosed)
			}
			if align := p.glue.backend().SubBufferAlign; align != nil && (b.alloc.Offset()+b.off)%align(dev) != 0 {
				// Halide 14 makes a sub-buffer of an offset handle, whose
				// origin must be aligned: run on an aligned copy.
				if err := b.makeTemp(dev); err != nil {
					return p.transferError(a, "aligned temporary", err)
				}
				if in {
					if err := dev.Copy(b.temp, 0, b.alloc, b.off, r.Region()); err != nil {
						return p.transferError(a, "copy to an aligned temporary", err)
					}
				}
			}
		}
		mem, off := b.handle()
		if err := p.glue.setDevice(p, f, cb, mem, off); err != nil {
			return err
		}
		// After set_device, which clears device_dirty when it wraps.
		if in && b.alloc != nil && r.DeviceDirty() {
			cb.B.Flags = rt.DeviceDirty
		}
	}
	return nil
}

// prepareDupInput readies an input whose Array an earlier slot (an output)
// already prepared: same C buffer, so the same device handle, which must
// now hold the input's data.
func (p *Pipeline) prepareDupInput(f *frame, k int, dev gpuDevice) error {
	b := &f.bufs[k]
	first := &f.bufs[b.first(f.bufs)]
	a := &p.args[p.bufs[k]]
	r := b.r
	var err error
	switch {
	case r.Len() == 0:
	case first.temp != nil && first.alloc == nil:
		if plumb.Array.NeedsDownload(r) {
			err = plumb.Array.SyncHost(r) // lost values: their error
		}
		if err == nil {
			err = dev.CopyIn(first.temp, 0, r.HostBytes(), r.Region())
		}
	default:
		if err = plumb.Array.SyncDevice(r, dev); err == nil && first.temp != nil {
			err = dev.Copy(first.temp, 0, first.alloc, first.off, r.Region())
		}
		if err == nil && r.DeviceDirty() {
			b.cb.B.Flags = rt.DeviceDirty
		}
	}
	if err != nil {
		return p.transferError(a, "upload", err)
	}
	return nil
}

// first is the index of the first slot holding b's Array.
func (b *bound) first(bufs []bound) int {
	for j := range bufs {
		if bufs[j].r == b.r {
			return j
		}
	}
	return -1
}

// makeTemp allocates a temporary device copy of b's view.
func (b *bound) makeTemp(dev gpuDevice) error {
	t, err := dev.Malloc(b.r.Region().SpanBytes())
	b.temp = t
	return err
}

// handle is the cl_mem and byte offset the pipeline gets for b.
func (b *bound) handle() (uintptr, int) {
	if b.temp != nil {
		return b.temp.Native(), b.temp.Offset()
	}
	return b.alloc.Native(), b.alloc.Offset() + b.off
}

// prepareHost makes inputs current on the host. Outputs need nothing: the
// pipeline writes every element, and finish records that only on success.
func (p *Pipeline) prepareHost(f *frame) error {
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		if b.r == nil {
			continue
		}
		b.cb.B.Flags = 0
		if a.Kind == InputBuffer {
			if err := plumb.Array.SyncHost(b.r); err != nil {
				return p.transferError(a, "copy to host", err)
			}
		}
	}
	return nil
}

// finish reads both dirty bits back from every buffer and, when the call
// succeeded (ok), records what the pipeline left newest; it frees the
// call's temporaries either way and brings host-only values home.
func (p *Pipeline) finish(f *frame, dev gpuDevice, ok bool) error {
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		r, cb := b.r, b.cb
		if b.dup || r == nil {
			continue
		}
		if cb.Kind == rt.DevNone && cb.B.Device != 0 {
			// The runtime allocated on its own (we always pass ours, so this
			// is a safety net): bring the data home and free it.
			if rc := cb.Reclaim(&f.c.Ctx); rc != 0 {
				keep(p.runtimeError(f, rc))
			}
			if ok && r.Writable() {
				plumb.Array.Wrote(r, plumb.Host)
			}
			continue
		}
		fl := cb.B.Flags
		hostNewer := fl&rt.HostDirty != 0
		devNewer := fl&rt.DeviceDirty != 0
		switch {
		case !ok:
		case !r.Writable():
			// A read-only input (a broadcast view; bind refuses one as an
			// output): made current before the call, written by nothing,
			// so its source's state stands.
		case !p.gpu:
			if b.out {
				plumb.Array.Wrote(r, plumb.Host) // Halide leaves host_dirty off
			}
		case b.temp != nil && b.alloc == nil: // host-only temporary
			if devNewer {
				if err := dev.CopyOut(r.HostBytes(), b.temp, 0, r.Region()); err != nil {
					keep(p.transferError(a, "copy to host", err))
				}
			}
		case hostNewer:
			plumb.Array.Wrote(r, plumb.Host)
		case devNewer:
			if b.temp != nil { // aligned temporary: back into the Array's memory
				if err := dev.Copy(b.alloc, b.off, b.temp, 0, r.Region()); err != nil {
					keep(p.transferError(a, "copy from the aligned temporary", err))
					continue
				}
			}
			if err := plumb.Array.WroteDevice(r, b.alloc); err != nil {
				// The device closed under the call and the Array let go
				// of the allocation the pipeline wrote.
				keep(p.closedError(dev, fmt.Sprintf("argument %q", a.Name), err))
			}
		case !b.out:
			plumb.Array.Wrote(r, plumb.Equal)
		}
	}
	if f.crops {
		// Crop handles hold a reference on their cl_mem: dropped now, so
		// a pooled frame keeps no device memory alive.
		f.crops = false
		if rc := rt.DropCrops(&f.c.Ctx, f.cbufs); rc != 0 {
			keep(p.runtimeError(f, rc))
		}
	}
	for k := range p.bufs {
		b := &f.bufs[k]
		if b.temp == nil || b.dup {
			continue
		}
		if err := dev.Free(b.temp); err != nil {
			keep(err)
		}
		b.temp = nil
	}
	if !ok || !p.gpu {
		return first
	}
	// Host-only values must be current on the host when Call returns.
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		if b.hostOnly && !b.dup && b.r != nil {
			if err := plumb.Array.SyncHost(b.r); err != nil {
				keep(p.transferError(a, "copy to host", err))
			}
		}
	}
	return first
}

func (p *Pipeline) runtimeError(f *frame, rc int) error {
	msg, hmsg := runtimeMessage(&f.c.Ctx)
	return &Error{Pipeline: p.name, Code: int(rc), Msg: msg, HalideMsg: hmsg}
}

func (p *Pipeline) transferError(a *Arg, what string, err error) error {
	return &Error{Pipeline: p.name, Code: int(ErrTransfer), Msg: fmt.Sprintf("argument %q: %s: %v", a.Name, what, err), err: err}
}
