package array

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Views share memory but, as in Halide, each carries its own dirty bits. To
// keep a view's write from going unnoticed by the other views of the same
// memory, the family records every view whose bit is set (a dirty region).
// Syncing an Array to host also copies the device-dirty regions of other
// views that overlap it; uploading it also covers host-dirty regions of
// other views. So an Array never hands out host data that a crop of it left
// on the device, nor uploads stale data that a parent wrote on the host.

// side names one of the two dirty bits.
type side uint8

const (
	hostSide side = iota
	deviceSide
)

// dirtyRegion is one view's dirty bit, by the elements it covers.
type dirtyRegion struct {
	view   *Raw    // nil once the view is closed
	lo, hi int     // storage indices the view's span covers, [lo, hi)
	orphan *orphan // set when view is nil
}

// orphan is the device copy of a device-dirty view that was closed while
// other views of its memory stayed open: kept until a sync copies it out.
type orphan struct {
	dev    device.Device
	alloc  device.Allocation
	off    int // storage index of the view's first element
	region device.Region
	freed  bool
}

func (o *orphan) free() {
	if !o.freed && o.alloc != nil {
		o.freed = true
		o.dev.Free(o.alloc)
	}
}

// orphans holds a family's orphans for its cleanup, which must not reach
// the family itself.
type orphans struct {
	mu   sync.Mutex
	list []*orphan
}

func (o *orphans) freeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, x := range o.list {
		x.free()
	}
	o.list = nil
}

// regions is the family's list of dirty regions, per side.
type regions struct {
	mu   sync.Mutex
	list [2][]dirtyRegion
	orph *orphans
}

func (r *Raw) span() (lo, hi int) { return r.off, r.off + r.SpanElems() }

// setDirty sets r's bit on side s and keeps the family's list in step.
func (r *Raw) setDirty(s side, v bool) {
	p := &r.hostDirty
	if s == deviceSide {
		p = &r.deviceDirty
	}
	if *p == v {
		return
	}
	*p = v
	f := r.fam
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	l := &f.regs.list[s]
	if v {
		lo, hi := r.span()
		*l = append(*l, dirtyRegion{view: r, lo: lo, hi: hi})
		f.dirty[s].Add(1)
		return
	}
	for i := range *l {
		if (*l)[i].view == r {
			f.removeRegion(s, i)
			return
		}
	}
}

// removeRegion drops entry i of side s; the caller holds regs.mu.
func (f *family) removeRegion(s side, i int) {
	l := &f.regs.list[s]
	if o := (*l)[i].orphan; o != nil && o.alloc != nil {
		f.regs.orph.mu.Lock()
		o.free()
		f.regs.orph.mu.Unlock()
	}
	*l = append((*l)[:i], (*l)[i+1:]...)
	f.dirty[s].Add(-1)
}

// removeOrphan drops the region of side s that holds o.
func (f *family) removeOrphan(s side, o *orphan) {
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	for i := range f.regs.list[s] {
		if f.regs.list[s][i].orphan == o {
			f.removeRegion(s, i)
			return
		}
	}
}

// orphanRegion keeps r's device-dirty region, and its device copy, alive
// after r is closed while other views of the memory remain open.
func (r *Raw) orphanRegion(alloc device.Allocation) bool {
	f := r.fam
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	for i := range f.regs.list[deviceSide] {
		e := &f.regs.list[deviceSide][i]
		if e.view != r {
			continue
		}
		o := &orphan{dev: r.h.dev, alloc: alloc, off: r.off, region: r.Region()}
		e.view, e.orphan = nil, o
		if f.regs.orph == nil {
			f.regs.orph = &orphans{}
			runtime.AddCleanup(f, func(o *orphans) { o.freeAll() }, f.regs.orph)
		}
		f.regs.orph.mu.Lock()
		f.regs.orph.list = append(f.regs.orph.list, o)
		f.regs.orph.mu.Unlock()
		return true
	}
	return false
}

// freeOrphans releases every orphaned device copy: the last view of the
// memory closed, so nothing will read them.
func (f *family) freeOrphans() {
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	for s := range f.regs.list {
		f.regs.list[s] = nil
		f.dirty[s].Store(0)
	}
	if f.regs.orph != nil {
		f.regs.orph.freeAll()
	}
}

// orphanHostRegion keeps r's host-dirty region after r is closed while
// other views of its memory stay open: the writes are in host memory and
// must still reach the device when an overlapping view is uploaded.
func (r *Raw) orphanHostRegion() {
	f := r.fam
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	for i := range f.regs.list[hostSide] {
		if e := &f.regs.list[hostSide][i]; e.view == r {
			e.view, e.orphan = nil, &orphan{off: r.off}
			return
		}
	}
}

// dropRegions forgets r's regions on both sides (r is closing and nothing
// else will read them).
func (r *Raw) dropRegions() {
	for _, s := range []side{hostSide, deviceSide} {
		r.setDirty(s, false)
	}
}

// overlaps reports whether another view's region on side s overlaps r,
// without building the list.
func (r *Raw) overlaps(s side) bool {
	if r.fam.dirty[s].Load() == 0 {
		return false
	}
	lo, hi := r.span()
	f := r.fam
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	for _, e := range f.regs.list[s] {
		if e.view != r && e.lo < hi && lo < e.hi {
			return true
		}
	}
	return false
}

// overlapping returns the other views' regions on side s that overlap r.
func (r *Raw) overlapping(s side) []dirtyRegion {
	if r.fam.dirty[s].Load() == 0 {
		return nil
	}
	lo, hi := r.span()
	f := r.fam
	f.regs.mu.Lock()
	defer f.regs.mu.Unlock()
	var out []dirtyRegion
	for _, e := range f.regs.list[s] {
		if e.view != r && e.lo < hi && lo < e.hi {
			out = append(out, e)
		}
	}
	return out
}

// syncOthersToHost copies to host the device-dirty regions of other views
// that overlap r, and marks them clean.
func (r *Raw) syncOthersToHost() error {
	for _, e := range r.overlapping(deviceSide) {
		if e.view != nil {
			if err := e.view.copyOwnToHost(); err != nil {
				return err
			}
			continue
		}
		o := e.orphan
		host := unsafe.Slice((*byte)(unsafe.Add(r.base, o.off*r.esize)), o.region.SpanBytes())
		if err := o.dev.CopyOut(host, o.alloc, 0, o.region); err != nil {
			return err
		}
		r.fam.removeOrphan(deviceSide, o)
	}
	return nil
}

// sharesMemory reports whether r's allocation is a view of the same device
// memory as every region in others, so copying r's elements out of it
// brings each of them up to date.
func (r *Raw) sharesMemory(others []dirtyRegion) bool {
	for _, e := range others {
		dev, alloc := (device.Device)(nil), (device.Allocation)(nil)
		switch {
		case e.view != nil && e.view.h != nil:
			dev, alloc = e.view.h.dev, e.view.h.alloc
		case e.orphan != nil:
			dev, alloc = e.orphan.dev, e.orphan.alloc
		}
		if alloc == nil || dev != r.h.dev || alloc.Native() != r.h.alloc.Native() {
			return false
		}
	}
	return true
}

// cleanCovered marks clean the side-s regions of others that r's copy
// (to host for the device side, to the device for the host side) just
// covered: those inside r's span when r is dense.
func (r *Raw) cleanCovered(s side, others []dirtyRegion) {
	if !r.Dense() {
		return
	}
	lo, hi := r.span()
	for _, e := range others {
		switch {
		case e.lo < lo || e.hi > hi:
		case e.view != nil:
			e.view.setDirty(s, false)
		default:
			r.fam.removeOrphan(s, e.orphan)
		}
	}
}
