package array

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/plumb"

	"github.com/resident-go/resident/device"
)

// The residency rules, one storage at a time. Every operation takes the
// storage's lock, works on the view's box of root positions, and changes
// the dirty sets only after its transfers succeed, so a failure leaves
// every byte and every bit as it was.

// syncHost brings the device-dirty parts of r to the host; where values
// of r were lost (lost.go) it moves nothing and returns their error.
func (r *Raw) syncHost() error { return r.syncHostLost(false) }

// syncHostLost is syncHost for a caller about to write every element of
// r (lostOK: lost values do not stop it).
func (r *Raw) syncHostLost(lostOK bool) error {
	if r.st.nAway.Load() == 0 {
		return nil
	}
	st := r.st
	if err := st.res.acquire(); err != nil {
		return err
	}
	defer st.res.unacquire()
	var buf, ib [inlineDims]span
	b := r.box(buf[:0])
	st.mu.Lock()
	defer st.mu.Unlock()
	if !lostOK {
		if err := r.errLostLocked(); err != nil {
			return err
		}
	}
	moved := false
	for _, d := range st.dirty[deviceSide] {
		if d.overlaps(b) {
			if err := st.download(d.intersect(b, ib[:0])); err != nil {
				return err
			}
			moved = true
		}
	}
	st.setDirty(deviceSide, st.dirty[deviceSide].without(b))
	if moved && st.home != nil && len(st.dirty[deviceSide]) == 0 {
		st.home(st.devGen.Load())
	}
	return nil
}

// syncDevice makes r's elements current on d, allocating the root there on
// first use; the upload moves only host-dirty parts of r. Lost values
// (lost.go) are an error: the upload would read their stale host bytes.
func (r *Raw) syncDevice(d device.Device) error {
	st := r.st
	if err := st.res.acquire(); err != nil {
		return err
	}
	defer st.res.unacquire()
	var buf, ib [inlineDims]span
	b := r.box(buf[:0])
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := r.errLostLocked(); err != nil {
		return err
	}
	if err := st.ensureAlloc(d); err != nil {
		return err
	}
	for _, h := range st.dirty[hostSide] {
		if h.overlaps(b) {
			if err := st.upload(h.intersect(b, ib[:0])); err != nil {
				return err
			}
		}
	}
	if st.dirty[hostSide].overlaps(b) {
		st.setDirty(hostSide, st.dirty[hostSide].without(b))
	}
	return nil
}

// syncGaps prepares a device write through r, an output. Dirty state is
// kept by boxes of root positions, and a device write marks r's whole box
// device-newest; when r's elements are not all of its box (a strided view
// made by View then Slice or Crop: every other row), the box's other
// elements must then be current on the device too, so their host-newer
// values are uploaded first (counted, and refused under the guard).
func (r *Raw) syncGaps(d device.Device) error {
	if r.Len() == 0 || !r.HostDirty() {
		return nil
	}
	if _, exact := r.exactBox(); exact {
		return nil
	}
	if err := plumb.CheckAutomatic(d, "upload of the host-newer elements between a strided output view's elements (its dirty state is kept by box)"); err != nil {
		return err
	}
	return r.syncDevice(d)
}

// alloc is ensureAlloc for a caller that holds neither st.mu nor a use.
func (st *storage) alloc(d device.Device) error {
	if err := st.res.acquire(); err != nil {
		return err
	}
	defer st.res.unacquire()
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.ensureAlloc(d)
}

// ensureAlloc gives the storage its allocation on d; the caller holds
// st.mu. Data on another device is an error: moving it is the caller's
// decision (MoveTo).
func (st *storage) ensureAlloc(d device.Device) error {
	if d == nil {
		return fmt.Errorf("array: no device given")
	}
	if st.hasAlloc.Load() {
		if cur := st.res.dev; cur != d {
			return fmt.Errorf("array: the Array lives on %s, not %s: move it explicitly with MoveTo: %w", cur.Name(), d.Name(), device.ErrForeign)
		}
		return nil
	}
	a, err := d.Malloc(max(st.elems*st.esize, 1))
	if err != nil {
		return err
	}
	return st.attach(d, a, true)
}

// markHostWrite records that r's host elements are (about to be) newer
// than the device's. The caller made sure no device-dirty data overlaps.
// Every host write comes here (Host, a host view's writes after an
// upload, SetHostDirty), so here a read-only view refuses.
func (r *Raw) markHostWrite() {
	r.checkWritable()
	st := r.st
	if !st.hasAlloc.Load() {
		r.gen = st.hostGen.Load()
		return
	}
	var buf [inlineDims]span
	b := r.box(buf[:0])
	st.mu.Lock()
	st.dirty[hostSide] = st.dirty[hostSide].with(b)
	r.gen = st.hostGen.Load()
	st.mu.Unlock()
}

// markDeviceWrite records that a device wrote all of r's elements.
func (r *Raw) markDeviceWrite() {
	r.checkWritable()
	if err := r.markDeviceWriteOn(nil); err != nil {
		panicf(ErrDirty, "device write recorded on an Array with no device allocation: DeviceMalloc first")
	}
}

// markDeviceWriteOn records a device write into alloc (nil: whatever the
// allocation is). A consumer that wrote an allocation the memory no longer
// has (its device closed meanwhile, and the Array let go of it) gets an
// error wrapping device.ErrClosed: its result is lost. Every device
// write comes here or to markDeviceWrite: a read-only view refuses.
func (r *Raw) markDeviceWriteOn(alloc device.Allocation) error {
	if err := r.errWritable(); err != nil {
		return err
	}
	st := r.st
	var buf [inlineDims]span
	b := r.box(buf[:0])
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.hasAlloc.Load() || alloc != nil && !sameAlloc(st.res, alloc) {
		return fmt.Errorf("array: the device copy written was let go meanwhile (its device closed): %w", device.ErrClosed)
	}
	if st.dirty[hostSide].overlaps(b) {
		st.setDirty(hostSide, st.dirty[hostSide].without(b))
	}
	r.rewrittenLocked() // lost and device-dirty boxes stay disjoint
	st.setDirty(deviceSide, st.dirty[deviceSide].with(b))
	return nil
}

func sameAlloc(r *resources, a device.Allocation) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.alloc == a
}

// markHostNewer records that something (a host pipeline, Halide's own
// copy to host, a stream) left r's host elements newest: every one of
// them written, so values lost there are no longer.
func (r *Raw) markHostNewer() {
	r.checkWritable()
	r.rewritten()
	st := r.st
	if !st.hasAlloc.Load() {
		return // no device copy: no dirty state (host-only data, host pipelines)
	}
	var buf [inlineDims]span
	b := r.box(buf[:0])
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dirty[deviceSide].overlaps(b) {
		st.setDirty(deviceSide, st.dirty[deviceSide].without(b))
	}
	if st.hasAlloc.Load() {
		st.dirty[hostSide] = st.dirty[hostSide].with(b)
	}
}

// markEqual records that host and device agree on r's elements.
func (r *Raw) markEqual() { r.markEqualSide(hostSide, deviceSide) }

// needsUpload reports whether syncDevice(d) would move data (or fail
// because the data lives elsewhere).
func (r *Raw) needsUpload(d device.Device) bool {
	if r.Len() == 0 {
		return false
	}
	if !r.st.hasAlloc.Load() {
		return true
	}
	return r.Device() != d || r.HostDirty()
}

// needsDownload reports whether syncHost would move data, or fail because
// values of r were lost: the bridges call syncHost when it says so.
func (r *Raw) needsDownload() bool {
	return r.st.nAway.Load() != 0 && (r.DeviceDirty() || r.errLost() != nil)
}

// deviceFree brings all device-dirty data home, then frees the allocation.
func (st *storage) deviceFree() error {
	if err := st.res.acquire(); err != nil {
		return err
	}
	defer st.res.unacquire()
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.hasAlloc.Load() {
		return nil
	}
	for _, d := range st.dirty[deviceSide] {
		if err := st.download(d); err != nil {
			return err
		}
	}
	return st.detach()
}

// HostDirty reports whether the host holds data newer than the device
// anywhere in the Array's elements (views of one memory share the state).
func (a *Array[T]) HostDirty() bool { return a.raw.HostDirty() }

// DeviceDirty reports whether the device holds data newer than the host
// anywhere in the Array's elements.
func (a *Array[T]) DeviceDirty() bool { return a.raw.DeviceDirty() }

// Device is the device holding the Array's memory, or nil.
func (a *Array[T]) Device() device.Device { return a.raw.Device() }

// CopyToHost brings the device-dirty parts of the Array's elements to the
// host; it moves nothing when the host is current. Explicit, so the
// transfer guard allows it.
func (a *Array[T]) CopyToHost() error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	return a.raw.syncHost()
}

// CopyToDevice makes the Array's elements current on d: it allocates the
// root's memory there on first use (every view shares that allocation) and
// uploads only host-dirty parts of this Array. Memory living on another
// device is an error wrapping device.ErrForeign: DeviceFree it first.
func (a *Array[T]) CopyToDevice(d device.Device) error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	return a.raw.syncDevice(d)
}

// DeviceMalloc gives the Array's memory an allocation on d without copying,
// as for an output a device is about to write.
func (a *Array[T]) DeviceMalloc(d device.Device) error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	return a.raw.st.alloc(d)
}

// DeviceWrap adopts alloc, which lives on d and holds the whole root
// storage, as the device copy of the Array's memory, without copying; it
// is never freed by the Array. The device copy is taken as current: mark
// it with SetDeviceDirty when it is newer than the host. A read-only view
// (BroadcastTo) refuses with an error wrapping ErrReadOnly.
func (a *Array[T]) DeviceWrap(d device.Device, alloc device.Allocation) error {
	return a.deviceWrap(d, alloc, false)
}

// DeviceAdopt is DeviceWrap for an allocation the Array takes over: it is
// freed (d.Free) like the Array's own allocations, when the memory lets it
// go (Close, DeviceFree, MoveTo), and on error.
func (a *Array[T]) DeviceAdopt(d device.Device, alloc device.Allocation) error {
	if err := a.deviceWrap(d, alloc, true); err != nil {
		if d != nil && alloc != nil { // a nil one holds nothing to free
			d.Free(alloc) // freeing twice is a no-op (attach may have)
		}
		return err
	}
	return nil
}

func (a *Array[T]) deviceWrap(d device.Device, alloc device.Allocation, owned bool) error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	if err := a.raw.errWritable(); err != nil {
		return err // the adopted copy would replace the source's data
	}
	st := a.raw.st
	if alloc.Device() != d {
		return fmt.Errorf("array: DeviceWrap of an allocation of %s on %s: pass the allocation's own device: %w", alloc.Device().Name(), d.Name(), device.ErrForeign)
	}
	if need := st.elems * st.esize; alloc.Bytes() < need {
		return fmt.Errorf("array: DeviceWrap: the allocation holds %d bytes, the Array's memory needs %d: %w", alloc.Bytes(), need, device.ErrOutOfRange)
	}
	if err := st.res.acquire(); err != nil {
		return err
	}
	defer st.res.unacquire()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.hasAlloc.Load() {
		return fmt.Errorf("array: DeviceWrap: the Array's memory already has a device allocation: DeviceFree it first")
	}
	if err := st.attach(d, alloc, owned); err != nil {
		return err
	}
	st.setDirty(hostSide, nil)
	return nil
}

// DeviceFree copies device-dirty data home, then drops the device
// allocation of the Array's memory (all its views share it). Wrapped
// allocations are let go, not freed.
func (a *Array[T]) DeviceFree() error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	return a.raw.st.deviceFree()
}

// MoveTo moves the Array's memory — its root and every view, which share
// it — to device d, and says how the data went. Device-dirty data is
// copied from the old device: directly where the two devices can reach
// each other (one OpenCL context), else staged through host memory
// (device.CopyBetween); every other element is left for the next upload,
// from the host, which already holds it. Then the old allocation is freed.
// With nothing device-dirty, or no allocation yet, nothing is copied
// (device.PathNone) and the memory just gets its allocation on d. On error
// the Array stays where it was, with its data and state.
func (a *Array[T]) MoveTo(d device.Device) (device.Path, error) {
	if err := a.raw.errOpen(); err != nil {
		return 0, err
	}
	return a.raw.moveTo(d)
}

func (r *Raw) moveTo(d device.Device) (device.Path, error) {
	st := r.st
	if err := st.res.acquire(); err != nil {
		return device.PathNone, err
	}
	defer st.res.unacquire()
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := r.errLostLocked(); err != nil {
		return device.PathNone, err // the whole memory moves: lost values with it
	}
	if !st.hasAlloc.Load() || st.res.dev == nil {
		return device.PathNone, st.ensureAlloc(d)
	}
	if st.res.dev == d {
		return device.PathNone, nil
	}
	if d == nil {
		return device.PathNone, fmt.Errorf("array: MoveTo: no device given")
	}
	na, err := d.Malloc(max(st.elems*st.esize, 1))
	if err != nil {
		return device.PathNone, err
	}
	// Copy the span of each device-dirty box: whatever else it covers is
	// either equal on host and device or host-dirty, uploaded before use.
	path := device.PathNone
	for _, b := range st.dirty[deviceSide] {
		off, r := st.region(b)
		p, err := device.CopyBetween(na, off, st.res.alloc, off, r.SpanBytes())
		if err != nil {
			d.Free(na)
			return p, fmt.Errorf("array: MoveTo %s: %w", d.Name(), err)
		}
		path = max(path, p)
	}
	devDirty := st.dirty[deviceSide]
	st.res.mu.Lock()
	err = st.res.letGo()
	st.res.mu.Unlock()
	if e := st.attach(d, na, true); e != nil { // marks everything host-dirty …
		// d closed meanwhile: the device-dirty part was copied to the
		// new allocation only, which attach let go, and the old one is
		// freed: those values are lost.
		for _, b := range devDirty {
			st.loseLocked(b, d.Name(), e)
		}
		st.setDirty(hostSide, nil)
		st.setDirty(deviceSide, nil)
		st.hasAlloc.Store(false)
		return path, errors.Join(err, e)
	}
	host := boxes{st.rootBox()}
	for _, b := range devDirty {
		host = host.without(b)
	}
	st.setDirty(hostSide, host) // … but what moved
	st.setDirty(deviceSide, devDirty)
	return path, err
}

// DeviceSync waits for work queued on the Array's device. A closed Array
// is an error wrapping ErrClosed, as from every call with an error result.
func (a *Array[T]) DeviceSync() error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	if d := a.raw.Device(); d != nil {
		return d.Sync()
	}
	return nil
}

// SetHostDirty marks the Array's host elements newer than the device's
// (true) or equal to them (false), as Halide's set_host_dirty; true says
// a host writer wrote them all, so values lost there are no longer. Marking it
// while the device holds newer data there panics with ErrDirty: one side
// would lose writes. On a read-only view (BroadcastTo) it panics with
// ErrReadOnly, whatever v: its state is its source's.
func (a *Array[T]) SetHostDirty(v bool) {
	a.raw.checkOpen()
	a.raw.checkWritable()
	if !v {
		a.raw.markEqualSide(hostSide)
		return
	}
	if a.raw.DeviceDirty() {
		panicf(ErrDirty, "host marked dirty while the device copy is newer: CopyToHost first")
	}
	a.raw.markHostWrite()
	a.raw.rewritten() // a host writer wrote every element: none is lost
}

// SetDeviceDirty marks the Array's device elements newer than the host's
// (true), as a device writer does, or equal to them (false). Marking it
// while the host is newer, or without an allocation, panics with ErrDirty;
// on a read-only view (BroadcastTo), with ErrReadOnly, whatever v.
func (a *Array[T]) SetDeviceDirty(v bool) {
	a.raw.checkOpen()
	a.raw.checkWritable()
	if !v {
		a.raw.markEqualSide(deviceSide)
		return
	}
	if a.raw.HostDirty() {
		panicf(ErrDirty, "device marked dirty while the host copy is newer: CopyToDevice first")
	}
	a.raw.markDeviceWrite()
}

// markEqualSide clears the given sides over r.
func (r *Raw) markEqualSide(sides ...side) {
	st := r.st
	if !st.hasAlloc.Load() {
		return
	}
	var buf [inlineDims]span
	b := r.box(buf[:0])
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, s := range sides {
		if st.dirty[s].overlaps(b) {
			st.setDirty(s, st.dirty[s].without(b))
		}
	}
}

// Close frees the root's device allocation (unless wrapped), pinned host
// memory and what bridges keep with it, whatever its views did; using the
// Array or any view of it afterwards panics with ErrClosed. Device-dirty
// data is discarded: copy it home first if you need it. Views need no
// Close: on a view, Close does nothing. Idempotent, and safe while calls
// use the Array: they finish first (see "Lifetime and concurrency" in the
// package doc), and the memory is freed when the last one ends. Close and
// the cleanup that frees a dropped root are one path, run once.
func (a *Array[T]) Close() error {
	r := &a.raw
	if !r.root || r.st.closed.Swap(true) {
		return nil
	}
	r.st.res.byClose.Store(true)
	_, err := r.st.res.close()
	return err
}

// Closed reports whether the Array's root was closed.
func (a *Array[T]) Closed() bool { return a.raw.st.closed.Load() }
