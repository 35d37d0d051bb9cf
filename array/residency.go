package array

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// HostDirty reports whether r's host copy is newer than its device copy
// (r's own bit, as in Halide; see NeedsCopyToDevice for other views).
func (r *Raw) HostDirty() bool { return r.hostDirty }

// DeviceDirty reports whether r's device copy is newer than its host copy
// (r's own bit, as in Halide; see NeedsCopyToHost for other views).
func (r *Raw) DeviceDirty() bool { return r.deviceDirty }

// NeedsCopyToHost reports whether CopyToHost would move data: r is device
// dirty, or another view of the same memory overlapping r is.
func (r *Raw) NeedsCopyToHost() bool {
	return r.deviceDirty || r.overlaps(deviceSide)
}

// NeedsCopyToDevice reports whether CopyToDevice would move data: r has no
// device copy yet, is host dirty, or overlaps a host-dirty view.
func (r *Raw) NeedsCopyToDevice() bool {
	return r.Allocation() == nil || r.hostDirty || r.overlaps(hostSide)
}

// SetHostDirty marks the host copy newer (or not). Marking it while the
// device is dirty panics with ErrDirty: one side would lose writes.
func (r *Raw) SetHostDirty(v bool) {
	r.checkOpen()
	if v && r.deviceDirty {
		panicf(ErrDirty, "host marked dirty while the device copy is newer: CopyToHost first")
	}
	r.setDirty(hostSide, v)
}

// SetDeviceDirty marks the device copy newer (or not), as a device writer
// such as a pipeline does after writing r. Host views taken earlier become
// stale. Marking it while the host is dirty panics with ErrDirty.
func (r *Raw) SetDeviceDirty(v bool) {
	r.checkOpen()
	if v && r.hostDirty {
		panicf(ErrDirty, "device marked dirty while the host copy is newer: CopyToDevice first")
	}
	if v {
		if r.Allocation() == nil {
			panicf(ErrDirty, "device marked dirty on an Array with no device allocation: DeviceMalloc first")
		}
		r.fam.devGen.Add(1)
	}
	r.setDirty(deviceSide, v)
}

// DeviceMalloc gives r an allocation on d without copying anything, as for
// an output that a device is about to write. It does nothing when r already
// has one on d and fails when r's allocation is on another device.
func (r *Raw) DeviceMalloc(d device.Device) error {
	r.checkOpen()
	if a := r.Allocation(); a != nil {
		if r.h.dev != d {
			return fmt.Errorf("array: Array already lives on %s, not %s: DeviceFree it first", r.h.dev.Name(), d.Name())
		}
		return nil
	}
	a, err := d.Malloc(max(r.SpanElems()*r.esize, 1))
	if err != nil {
		return err
	}
	h := r.handle()
	h.dev, h.alloc, h.own = d, a, Allocated
	return nil
}

// Wrap adopts alloc, which lives on d and holds at least r's span, as r's
// device copy without copying; r never frees it. The device copy is assumed
// to be current: mark it with SetDeviceDirty if it is newer than the host.
func (r *Raw) Wrap(d device.Device, alloc device.Allocation) error {
	r.checkOpen()
	if r.Allocation() != nil {
		return fmt.Errorf("array: Array already has a device allocation: DeviceFree it before Wrap")
	}
	if need := r.SpanElems() * r.esize; alloc.Bytes() < need {
		return fmt.Errorf("array: wrapped allocation holds %d bytes, the Array needs %d", alloc.Bytes(), need)
	}
	h := r.handle()
	h.dev, h.alloc, h.own = d, alloc, WrappedNative
	return nil
}

// CopyToDevice makes the device copy on d current: it allocates on first
// use and copies r's elements when there is no device copy yet, r is host
// dirty, or another view of the same memory overlapping r is. Device-dirty
// views overlapping r are copied to host first, so the upload keeps them.
func (r *Raw) CopyToDevice(d device.Device) error {
	r.checkOpen()
	fresh := r.Allocation() == nil
	if err := r.DeviceMalloc(d); err != nil {
		return err
	}
	if !fresh && !r.hostDirty && !r.overlaps(hostSide) {
		return nil
	}
	if r.deviceDirty {
		if !fresh && !r.hostDirty {
			return nil // r's device copy is newer than the other view's host writes
		}
		panicf(ErrDirty, "CopyToDevice while the device copy is newer")
	}
	if err := r.syncOthersToHost(); err != nil {
		return err
	}
	if n := r.Len(); n > 0 {
		if err := d.CopyIn(r.h.alloc, 0, r.HostBytes(), r.Region()); err != nil {
			return err
		}
	}
	r.setDirty(hostSide, false)
	r.cleanCovered(hostSide, r.overlapping(hostSide))
	return nil
}

// CopyToHost makes the host copy current. It copies nothing unless r is
// device dirty or overlaps a device-dirty view of the same memory; then it
// copies r's own elements from the shared device memory when that is safe
// (no host writes pending in r), else the device-dirty views' regions.
func (r *Raw) CopyToHost() error {
	r.checkOpen()
	others := r.overlapping(deviceSide)
	switch {
	case !r.deviceDirty && len(others) == 0:
	case !r.hostDirty && !r.overlaps(hostSide) && r.Allocation() != nil && r.sharesMemory(others):
		if r.Len() > 0 {
			if err := r.h.dev.CopyOut(r.HostBytes(), r.h.alloc, 0, r.Region()); err != nil {
				return err
			}
		}
		r.setDirty(deviceSide, false)
		r.cleanCovered(deviceSide, others)
	default:
		// A device-dirty region is newer than any host write it overlaps:
		// a host write after it would have synced it first.
		if err := r.copyOwnToHost(); err != nil {
			return err
		}
		if err := r.syncOthersToHost(); err != nil {
			return err
		}
	}
	r.hostGen = r.fam.devGen.Load()
	return nil
}

// PrepareHostWrite readies r for writing on the host, as Host does: after
// CopyToHost it also copies out, whole, every device-dirty view that
// overlaps r, so no later sync of theirs overwrites what r's host writes.
// Producers that write r's host memory themselves (host pipelines) call it
// first and SetHostDirty after.
func (r *Raw) PrepareHostWrite() error {
	if err := r.CopyToHost(); err != nil {
		return err
	}
	return r.syncOthersToHost()
}

// copyOwnToHost copies r's elements when r's own device bit is set.
func (r *Raw) copyOwnToHost() error {
	if !r.deviceDirty {
		return nil
	}
	if r.Len() > 0 {
		if err := r.h.dev.CopyOut(r.HostBytes(), r.h.alloc, 0, r.Region()); err != nil {
			return err
		}
	}
	r.setDirty(deviceSide, false)
	return nil
}

// DeviceSync waits for work queued on r's device.
func (r *Raw) DeviceSync() error {
	if d := r.Device(); d != nil {
		return d.Sync()
	}
	return nil
}

// DeviceFree drops r's device copy, first copying it to host when it is
// newer so nothing is lost. Wrapped and unmanaged allocations are released
// from r, not freed.
func (r *Raw) DeviceFree() error {
	r.checkOpen()
	if err := r.CopyToHost(); err != nil {
		return err
	}
	return r.deviceFree()
}

func (r *Raw) deviceFree() error {
	if r.h == nil || r.h.alloc == nil {
		return nil
	}
	h := r.h
	var err error
	if h.own == Allocated || h.own == Cropped {
		err = h.dev.Free(h.alloc)
	}
	h.dev, h.alloc, h.own = nil, nil, NoDevice
	r.setDirty(hostSide, false)
	r.setDirty(deviceSide, false)
	return err
}
