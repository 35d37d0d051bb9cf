package array

import (
	"io"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

func init() { plumb.Array = plumbing{} }

// plumbing implements plumb.Residency over *Raw.
type plumbing struct{}

func (plumbing) SyncHost(x any) error                    { return x.(*Raw).syncHost() }
func (plumbing) SyncDevice(x any, d device.Device) error { return x.(*Raw).syncDevice(d) }
func (plumbing) NeedsDownload(x any) bool                { return x.(*Raw).needsDownload() }
func (plumbing) NeedsUpload(x any, d device.Device) bool { return x.(*Raw).needsUpload(d) }
func (plumbing) Attachment(x any) io.Closer              { return x.(*Raw).attachment() }
func (plumbing) SetAttachment(x any, c io.Closer) io.Closer {
	return x.(*Raw).setAttachment(c)
}
func (plumbing) DeviceFree(x any) error { return x.(*Raw).st.deviceFree() }
func (plumbing) OnHome(x any, fn func(gen uint64)) {
	st := x.(*Raw).st
	st.mu.Lock()
	st.home = fn
	st.mu.Unlock()
}
func (plumbing) Closed(x any) bool { return x.(*Raw).st.closed.Load() }
func (plumbing) DeviceState(x any) (gen uint64, some, all bool) {
	r := x.(*Raw)
	var buf [inlineDims]span
	rb := r.box(buf[:0])
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	gen = r.st.devGen.Load()
	if rb == nil || !r.dirtyLocked(deviceSide) {
		return gen, false, false
	}
	for _, d := range r.st.dirty[deviceSide] {
		if d.contains(rb) {
			return gen, true, true // the common case, with no allocation
		}
	}
	rest := []box{append(box(nil), rb...)} // a copy: buf stays on the stack
	for _, d := range r.st.dirty[deviceSide] {
		var next []box
		for _, b := range rest {
			next = b.minus(d, next)
		}
		rest = next
	}
	return gen, true, len(rest) == 0
}

func (plumbing) DeviceNewer(a, b any, fn func(a, b bool)) {
	ra, _ := a.(*Raw)
	rb, _ := b.(*Raw)
	st := ra
	if st == nil {
		st = rb
	}
	if st == nil {
		fn(false, false)
		return
	}
	st.st.mu.Lock()
	defer st.st.mu.Unlock()
	fn(ra != nil && ra.dirtyLocked(deviceSide), rb != nil && rb.dirtyLocked(deviceSide))
}
func (plumbing) Acquire(x any) error { return x.(*Raw).st.res.acquire() }
func (plumbing) Release(x any)       { x.(*Raw).st.res.unacquire() }

func (plumbing) HostDst(x any) error { return x.(*Raw).hostDst() }

func (plumbing) HostUse(x any, write bool) (unsafe.Pointer, bool, error) {
	return x.(*Raw).hostUse(write)
}

func (plumbing) AcquireFor(x any, device bool) (bool, error) {
	st := x.(*Raw).st
	if !device && st.res.hostInGo() {
		if st.res.state.Load()&closedBit != 0 {
			return false, errClosed
		}
		return false, nil
	}
	return true, st.res.acquire()
}

func (plumbing) Alloc(x any, d device.Device) error {
	r := x.(*Raw)
	if err := r.errWritable(); err != nil {
		return err // Alloc is for outputs: a read-only view is none
	}
	if err := r.st.alloc(d); err != nil {
		return err
	}
	return r.syncGaps(d)
}

func (plumbing) Wrote(x any, w plumb.Newest) {
	r := x.(*Raw)
	switch w {
	case plumb.Host:
		r.markHostNewer()
	case plumb.Device:
		r.markDeviceWrite()
	default:
		r.markEqual()
	}
}

func (plumbing) WroteDevice(x any, on device.Allocation) error {
	return x.(*Raw).markDeviceWriteOn(on)
}
