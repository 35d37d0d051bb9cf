package halide

// #include "shim.h"
import "C"

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// checkGuard refuses the call before anything moves when a transfer it
// would make is refused by the transfer guard, including the copy back of
// host-only outputs after the call.
func (p *Pipeline) checkGuard(f *frame, dev *opencl.Device) error {
	for _, i := range p.params {
		a := &p.args[i]
		if !a.isBuffer() {
			continue
		}
		r := f.raws[i]
		what := ""
		if p.opencl {
			other := r.Device() != nil && r.Device() != device.Device(dev)
			switch {
			case other && r.DeviceDirty():
				what = "copy to host (from " + r.Device().Name() + ") of"
			case a.Kind == InputBuffer && r.Len() > 0 && (other || r.NeedsCopyToDevice()):
				what = "upload of input"
			case a.Kind == OutputBuffer && f.hostOnly[i] && r.Len() > 0:
				what = "copy to host of host-only output"
			}
		} else if r.NeedsCopyToHost() {
			what = "copy to host of device-dirty " + a.Kind.String()
		}
		if what == "" {
			continue
		}
		if err := device.CheckAutomatic(fmt.Sprintf("%s %q of pipeline %s", what, a.Name, p.name)); err != nil {
			return &Error{Pipeline: p.name, Code: -1, Msg: err.Error(), err: err}
		}
	}
	return nil
}

// prepareOpenCL gives every buffer a current copy on dev, so the runtime
// gets each one clean on the device and never copies by itself: our copies
// are counted in dev.Stats and staged through pinned memory.
func (p *Pipeline) prepareOpenCL(f *frame, dev *opencl.Device) error {
	for _, i := range p.params {
		a := &p.args[i]
		if !a.isBuffer() {
			continue
		}
		r, att := f.raws[i], f.atts[i]
		if d := r.Device(); d != nil && d != device.Device(dev) {
			// On another device (device/sim, say): bring the data to host
			// and let it go, then treat the Array as host-resident.
			if err := r.DeviceFree(); err != nil {
				return p.transferError(a, "moving off "+d.Name(), err)
			}
		}
		f.hadAlloc[i] = r.Allocation() != nil
		if a.Kind == InputBuffer {
			if err := r.CopyToDevice(dev); err != nil {
				return p.transferError(a, "upload", err)
			}
		} else {
			// The pipeline writes every element of an output: what the
			// host held there is about to be replaced.
			if r.HostDirty() {
				r.SetHostDirty(false)
			}
			if err := r.DeviceMalloc(dev); err != nil {
				return p.transferError(a, "device allocation", err)
			}
		}
		alloc := r.Allocation()
		if alloc == nil { // empty Array
			att.c.b.flags = 0
			continue
		}
		if off := alloc.Offset(); off%dev.SubBufferAlign() != 0 {
			return &Error{Pipeline: p.name, Code: -1, Msg: fmt.Sprintf(
				"argument %q is a crop starting %d bytes into its parent's device allocation; Halide 14 passes crops to kernels as OpenCL sub-buffers, which need offsets that are multiples of %d bytes on %s: crop at aligned offsets, or pass a copy",
				a.Name, off, dev.SubBufferAlign(), dev.Name())}
		}
		if rc := att.setDevice(&f.c.ctx, alloc.Native(), alloc.Offset()); rc != 0 {
			return &Error{Pipeline: p.name, Code: int(rc), Msg: fmt.Sprintf("argument %q: wrapping its cl_mem: %s", a.Name, runtimeMessage(&f.c.ctx))}
		}
		var fl C.uint64_t
		if r.DeviceDirty() {
			fl = flagDeviceDirty
		}
		att.c.b.flags = fl
	}
	return nil
}

// prepareHost makes inputs current on the host. Device handles may stay
// in the buffers: with no dirty bit set, a host pipeline never looks at them.
func (p *Pipeline) prepareHost(f *frame) error {
	for _, i := range p.params {
		a := &p.args[i]
		if !a.isBuffer() {
			continue
		}
		r := f.raws[i]
		if r.NeedsCopyToHost() {
			// Inputs must be current; outputs too, so that no device-dirty
			// view overlapping them is copied out over what the pipeline
			// writes.
			sync := r.CopyToHost
			if a.Kind == OutputBuffer {
				sync = r.PrepareHostWrite
			}
			if err := sync(); err != nil {
				return p.transferError(a, "copy to host", err)
			}
		}
		f.atts[i].c.b.flags = 0
	}
	return nil
}

// finish reads the flags and device fields back from every buffer, inputs
// included, and applies the residency rules; ok is false when the call
// failed or never ran, and then only temporary allocations are undone.
func (p *Pipeline) finish(f *frame, ok bool) error {
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, i := range p.params {
		a := &p.args[i]
		r, att := f.raws[i], f.atts[i]
		if !a.isBuffer() || r == nil {
			continue
		}
		out := a.Kind == OutputBuffer
		if att.mem == 0 && att.c.b.device != 0 {
			// The runtime allocated on its own (we always pass ours, so
			// this is a safety net): bring the data home and free it.
			if rc := C.gohl_buf_reclaim(&f.c.ctx, att.c); rc != 0 {
				keep(&Error{Pipeline: p.name, Code: int(rc), Msg: runtimeMessage(&f.c.ctx)})
			}
			markHostNewer(r)
			continue
		}
		if !p.opencl {
			if ok && out {
				markHostNewer(r)
			}
			continue
		}
		if ok && out && att.c.b.flags&flagDeviceDirty != 0 {
			r.SetHostDirty(false)
			r.SetDeviceDirty(true)
		}
	}
	if !p.opencl {
		return first
	}
	// Host-only values, once every dirty bit is read back (a Raw may be
	// both an input and an output): the host must be current when Call
	// returns, and an allocation made for this call goes back to the
	// allocator.
	for _, i := range p.params {
		a := &p.args[i]
		r := f.raws[i]
		if !a.isBuffer() || r == nil || !f.hostOnly[i] {
			continue
		}
		if a.Kind == OutputBuffer && ok {
			if err := r.CopyToHost(); err != nil {
				keep(p.transferError(a, "copy to host", err))
			}
		}
		if !f.hadAlloc[i] && r.Allocation() != nil {
			f.atts[i].setDevice(&f.c.ctx, 0, 0)
			if err := r.DeviceFree(); err != nil {
				keep(p.transferError(a, "freeing the temporary device allocation", err))
			}
		}
	}
	return first
}

// markHostNewer records a host write by a host pipeline: Halide leaves
// host_dirty off, so without this the next OpenCL pipeline would read the
// stale device copy.
func markHostNewer(r *array.Raw) {
	if r.Allocation() == nil {
		return
	}
	r.SetDeviceDirty(false)
	r.SetHostDirty(true)
}

func (p *Pipeline) transferError(a *Arg, what string, err error) error {
	return &Error{Pipeline: p.name, Code: -1, Msg: fmt.Sprintf("argument %q: %s: %v", a.Name, what, err), err: err}
}
