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
// host-only outputs after the call. Each case names the step that makes
// the transfer, with the same test.
func (p *Pipeline) checkGuard(f *frame, dev *opencl.Device) error {
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		r := b.r
		what := ""
		switch {
		case !p.opencl:
			if r.NeedsCopyToHost() { // prepareHost
				what = "copy to host of device-dirty " + a.Kind.String()
			}
		case elsewhere(r, dev) && r.NeedsCopyToHost(): // prepareOpenCL's DeviceFree
			what = "copy to host (from " + r.Device().Name() + ") of"
		case a.Kind == InputBuffer && r.Len() > 0 && (elsewhere(r, dev) || r.NeedsCopyToDevice()): // prepareOpenCL's CopyToDevice
			what = "upload of input"
		case a.Kind == OutputBuffer && b.hostOnly && r.Len() > 0: // finish's CopyToHost
			what = "copy to host of host-only output"
		}
		if what == "" {
			continue
		}
		if err := device.CheckAutomatic(fmt.Sprintf("%s %q of pipeline %s", what, a.Name, p.name)); err != nil {
			return &Error{Pipeline: p.name, Code: int(ErrTransferGuard), Msg: err.Error(), err: err}
		}
	}
	return nil
}

// elsewhere reports whether r's device copy is on a device other than dev.
func elsewhere(r *array.Raw, dev *opencl.Device) bool {
	d := r.Device()
	return d != nil && d != device.Device(dev)
}

// prepareOpenCL gives every buffer a current copy on dev, so the runtime
// gets each one clean on the device and never copies by itself: our copies
// are counted in dev.Stats and staged through pinned memory.
func (p *Pipeline) prepareOpenCL(f *frame, dev *opencl.Device) error {
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		r, att := b.r, b.att
		if elsewhere(r, dev) {
			// On another device (device/sim, say): bring the data to host
			// and let it go, then treat the Array as host-resident.
			if err := r.DeviceFree(); err != nil {
				return p.transferError(a, "moving off "+r.Device().Name(), err)
			}
		}
		// Read after the move, so an allocation made below is temporary.
		// A Raw passed twice sees its first slot's allocation here: that
		// slot frees it.
		b.hadAlloc = r.Allocation() != nil
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
			return &Error{Pipeline: p.name, Code: int(ErrUnalignedCrop), Msg: fmt.Sprintf(
				"argument %q is a crop starting %d bytes into its parent's device allocation; Halide 14 passes crops to kernels as OpenCL sub-buffers, which need offsets that are multiples of %d bytes on %s: crop at aligned offsets, or pass a copy",
				a.Name, off, dev.SubBufferAlign(), dev.Name())}
		}
		if rc := att.setDevice(&f.c.ctx, alloc.Native(), alloc.Offset()); rc != 0 {
			return &Error{Pipeline: p.name, Code: int(rc), Msg: fmt.Sprintf("argument %q: wrapping its cl_mem: %s", a.Name, runtimeMessage(&f.c.ctx))}
		}
		var fl C.uint64_t
		if r.DeviceDirty() {
			fl = C.halide_buffer_flag_device_dirty
		}
		att.c.b.flags = fl
	}
	return nil
}

// prepareHost makes inputs current on the host. Device handles may stay
// in the buffers: with no dirty bit set, a host pipeline never looks at them.
func (p *Pipeline) prepareHost(f *frame) error {
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		if r := b.r; r.NeedsCopyToHost() {
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
		b.att.c.b.flags = 0
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
	for k, i := range p.bufs {
		out := p.args[i].Kind == OutputBuffer
		r, att := f.bufs[k].r, f.bufs[k].att
		if att.c.kind == C.GOHL_DEV_NONE && att.c.b.device != 0 {
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
		if ok && out && att.c.b.flags&C.halide_buffer_flag_device_dirty != 0 {
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
	for k, i := range p.bufs {
		a, b := &p.args[i], &f.bufs[k]
		if !b.hostOnly {
			continue
		}
		r := b.r
		if a.Kind == OutputBuffer && ok {
			if err := r.CopyToHost(); err != nil {
				keep(p.transferError(a, "copy to host", err))
			}
		}
		if !b.hadAlloc && r.Allocation() != nil {
			b.att.setDevice(&f.c.ctx, 0, 0)
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
	return &Error{Pipeline: p.name, Code: int(ErrTransfer), Msg: fmt.Sprintf("argument %q: %s: %v", a.Name, what, err), err: err}
}
