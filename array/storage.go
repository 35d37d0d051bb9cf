package array

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/resident-go/resident/device"
)

// storage is one root's memory, shared by the root and all its views: the
// host elements, the one device allocation (every view uses it at its own
// offset, as Halide's device_crop does) and the dirty regions.
//
// Invariant: a position is in at most one of dirty[hostSide] (the host is
// newer there) and dirty[deviceSide] (the device is newer there); with no
// allocation both are empty.
type storage struct {
	base     unsafe.Pointer // element 0 of the root's span
	elems    int            // elements in the span
	esize    int
	rdims    []Dim // the root's layout: the coordinate system of boxes
	byStride []int // root dimensions by increasing stride
	hostOnly bool  // caller-held memory: consumers keep the host current

	closed   atomic.Bool
	hasAlloc atomic.Bool
	// nAway is len(dirty[deviceSide]) + len(lost), read without the lock:
	// the boxes whose newest values the host lacks. Zero, the common case,
	// is one load on every host access's fast path.
	nAway   atomic.Int32
	hostGen atomic.Uint64 // bumped whenever host-dirty regions shrink
	devGen  atomic.Uint64 // bumped whenever device-dirty regions change

	mu    sync.Mutex
	dirty [2]boxes
	lost  []lostBox // disjoint, and disjoint from dirty[deviceSide]
	res   *resources
	// home is told, under mu, when a download left the host holding every
	// newest value (plumb.Residency.OnHome): the engine watches the host
	// copy for writes from then on.
	home func(gen uint64)
}

// side names one of the two dirty sets.
type side uint8

const (
	hostSide side = iota
	deviceSide
)

// resources is what Close and the cleanup backstop free, through one
// path: release, guarded once. The cleanup keys on the storage (big, full
// of pointers: never in the tiny allocator), and resources never points
// back to it.
//
// uses counts the consumers working on the memory right now (pipeline
// calls, between Acquire and Release): Close marks the resources closed
// and the release happens when the last use ends, so a consumer never
// sees memory freed under it. An allocation let go while other uses are
// in flight (the device closing evicts the Array, DeviceFree, MoveTo) is
// freed when the last of them ends (pending), so a consumer that took it
// before never finds it freed or reused for other data under it. state is
// closedBit | pendingBit | uses·useUnit.
type resources struct {
	state atomic.Int64
	once  sync.Once
	err   error // release's result

	mu       sync.Mutex
	dev      device.Device
	alloc    device.Allocation
	owned    bool   // the storage allocated it; wrapped ones are not freed
	cancel   func() // unregisters the device close hook
	block    device.HostBlock
	pending  []devAlloc               // let go while in use: freed when the uses end
	atts     map[*attachSlot]struct{} // the bridges' per-Raw state, closed at release
	released bool

	attaching, devGone bool // attach racing the device's close (attach)

	// A pooled host block (pcls > 0) goes back to the pool at once when
	// an explicit Close releases the resources and nothing outside the
	// library's counted uses ever reached the memory (exposed: a host
	// view, HostPtr, HostBytes, a device copy); else the block's
	// finalizer returns it once nothing reaches it. pblk is weak: the
	// cleanup's argument must not keep the block alive.
	pblk    weak.Pointer[uint64]
	pcls    int
	exposed atomic.Bool
	byClose atomic.Bool
}

const (
	closedBit  = 1
	pendingBit = 2 // pending holds allocations
	useUnit    = 4
)

// devAlloc is an allocation and the device that frees it.
type devAlloc struct {
	dev   device.Device
	alloc device.Allocation
}

func newStorage(base unsafe.Pointer, elems, esize int, dims []Dim, hostOnly bool) *storage {
	if len(dims) == 0 {
		// A 0-D root's one element is a box of one dimension: an empty
		// box would mean no element, and its writes would go unrecorded.
		dims = []Dim{{Extent: 1, Stride: 1}}
	}
	st := &storage{base: base, elems: elems, esize: esize, rdims: dims, byStride: sortedByStride(dims), hostOnly: hostOnly, res: &resources{}}
	runtime.AddCleanup(st, (*resources).backstop, st.res)
	return st
}

// acquire registers a use; it fails, with an error wrapping
// device.ErrClosed, once the resources are closed.
func (r *resources) acquire() error {
	if r.state.Add(useUnit)&closedBit != 0 {
		r.unacquire() // the last one out after Close releases
		return errClosed
	}
	return nil
}

// hostInGo reports whether the host memory is Go memory, which a
// reference to the storage keeps valid whatever Close does; else it is a
// pinned block that release frees. Set before the storage is shared.
func (r *resources) hostInGo() bool { return r.block == nil }

// unacquire ends a use; the last use of closed resources releases them,
// and the last use frees what was let go under it.
func (r *resources) unacquire() {
	if v := r.state.Add(-useUnit); v < useUnit && v != 0 {
		if v&pendingBit != 0 {
			r.freePending()
		}
		if v&closedBit != 0 {
			r.release()
		}
	}
}

// freePending frees the allocations let go under uses; a use that starts
// meanwhile only delays nothing it could reach (they are detached).
func (r *resources) freePending() error {
	r.mu.Lock()
	p := r.pending
	r.pending = nil
	r.state.And(^int64(pendingBit))
	r.mu.Unlock()
	var err error
	for _, a := range p {
		if e := a.dev.Free(a.alloc); err == nil {
			err = e
		}
	}
	return err
}

// close marks the resources closed and releases them unless uses are in
// flight, in which case the last one does. It reports whether it released
// them (then with release's error).
func (r *resources) close() (bool, error) {
	for {
		v := r.state.Load()
		if v&closedBit != 0 {
			return false, nil
		}
		if r.state.CompareAndSwap(v, v|closedBit) {
			if v < useUnit { // no use in flight
				return true, r.release()
			}
			return false, nil
		}
	}
}

// backstop is the cleanup of a dropped storage: nothing can use it any
// more, so it releases at once, through the same guarded path as Close.
func (r *resources) backstop() {
	r.state.Or(closedBit)
	r.release()
}

// release frees the allocation (when owned), the pinned block and every
// attachment, exactly once, whoever calls it first: Close, the last use
// after Close, or the cleanup. Later callers get the first one's result.
func (r *resources) release() error {
	r.once.Do(func() {
		r.mu.Lock()
		err := r.dropAlloc()
		pend := r.pending
		r.pending = nil
		if r.block != nil {
			// block stays set (it is read without the lock: hostInGo);
			// release runs once.
			if e := r.block.Free(); err == nil {
				err = e
			}
		}
		atts := r.atts
		r.atts, r.released = nil, true
		r.mu.Unlock()
		if r.pcls > 0 && r.byClose.Load() && !r.exposed.Load() {
			// Close holds the Array, or the last use does: alive.
			if p := r.pblk.Value(); p != nil {
				pool.recycle(p, r.pcls)
			}
		}
		for _, a := range pend {
			if e := a.dev.Free(a.alloc); err == nil {
				err = e
			}
		}
		for s := range atts {
			if e := s.close(); err == nil {
				err = e
			}
		}
		r.err = err
	})
	return r.err
}

// addAttachment registers s to be closed at release; false when the
// resources are already released (the caller closes s itself).
func (r *resources) addAttachment(s *attachSlot) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released {
		return false
	}
	if r.atts == nil {
		r.atts = map[*attachSlot]struct{}{}
	}
	r.atts[s] = struct{}{}
	return true
}

func (r *resources) dropAttachment(s *attachSlot) {
	r.mu.Lock()
	delete(r.atts, s)
	r.mu.Unlock()
}

// dropAlloc lets go of the device allocation; the caller holds r.mu.
func (r *resources) dropAlloc() error {
	var err error
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	if r.alloc != nil && r.owned {
		err = r.dev.Free(r.alloc)
	}
	r.dev, r.alloc, r.owned = nil, nil, false
	return err
}

// letGo is dropAlloc for a caller holding one use (evict, DeviceFree,
// MoveTo): while other uses are in flight (calls that may have taken the
// allocation's handle) the free waits for the last of them. The caller
// holds r.mu.
func (r *resources) letGo() error {
	if r.alloc == nil || !r.owned || r.state.Load()/useUnit <= 1 {
		return r.dropAlloc()
	}
	r.pending = append(r.pending, devAlloc{r.dev, r.alloc})
	r.state.Or(pendingBit)
	r.alloc, r.owned = nil, false
	return r.dropAlloc()
}

// attach makes a the storage's device allocation on d and, when d can tell
// us, arranges for the data to come home before d closes. The caller holds
// st.mu. A device that is closing (its close hooks have started) is an
// error wrapping device.ErrClosed, and a is let go: the hook, which would
// otherwise run at once and wait for st.mu, could not evict it.
func (st *storage) attach(d device.Device, a device.Allocation, owned bool) error {
	r := st.res
	r.mu.Lock()
	if r.state.Load() == closedBit || r.alloc != nil {
		// Released by a Close that raced this use, or attached already.
		r.mu.Unlock()
		if owned {
			d.Free(a)
		}
		return errClosed
	}
	r.dev, r.alloc, r.owned = d, a, owned
	r.attaching, r.devGone = true, false
	r.exposed.Store(true) // transfers reach the memory uncounted
	r.mu.Unlock()
	var cancel func()
	if n, ok := d.(device.CloseNotifier); ok {
		w := weak.Make(st)
		cancel = n.OnClose(func() {
			r.mu.Lock()
			if r.attaching {
				r.devGone = true // attach sees it and lets go
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
			if s := w.Value(); s != nil {
				s.evict()
			}
		})
	}
	r.mu.Lock()
	r.cancel, r.attaching = cancel, false
	if r.devGone {
		r.devGone = false
		r.dropAlloc()
		r.mu.Unlock()
		return fmt.Errorf("array: device %s is closing: %w", d.Name(), device.ErrClosed)
	}
	r.mu.Unlock()
	st.hasAlloc.Store(true)
	// The host holds everything the fresh allocation does not.
	st.setDirty(hostSide, boxes{st.rootBox()})
	return nil
}

// errClosed is what a use of a closed Array's memory gets from the
// plumbing: it wraps ErrClosed and device.ErrClosed, the one closed
// sentinel of the module.
var errClosed = fmt.Errorf("%w (%w): keep the root open while calls use it", ErrClosed, device.ErrClosed)

// evict runs when the device closes: the device-dirty regions come home
// and the allocation is let go, so the Array stays readable on the host.
// A region whose download fails (the driver failing as the device goes
// away) is lost (lost.go): its host bytes are stale, so host reads of it
// fail from now on instead of returning them.
func (st *storage) evict() {
	// A use, so a racing Close cannot release the allocation meanwhile; a
	// closed Array's device data is discarded anyway.
	if st.res.acquire() != nil {
		return
	}
	defer st.res.unacquire()
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, b := range st.dirty[deviceSide] {
		if err := st.download(b); err != nil {
			st.loseLocked(b, st.res.dev.Name(), err)
		}
	}
	st.detach()
}

// count sets nAway; the caller holds st.mu.
func (st *storage) count() {
	st.nAway.Store(int32(len(st.dirty[deviceSide]) + len(st.lost)))
}

// detach forgets the allocation and both dirty sets; the caller holds
// st.mu and has brought the device-dirty data home (or is discarding it).
func (st *storage) detach() error {
	st.setDirty(hostSide, nil)
	st.setDirty(deviceSide, nil)
	st.hasAlloc.Store(false)
	st.res.mu.Lock()
	defer st.res.mu.Unlock()
	return st.res.letGo()
}

func (st *storage) setDirty(s side, b boxes) {
	if s == hostSide {
		// Host views re-mark their writes after anything that may have
		// cleared them (markHostWrite adds without coming here).
		st.hostGen.Add(1)
	}
	st.dirty[s] = b
	if s == deviceSide {
		st.devGen.Add(1)
		st.count()
	}
}

// rootBox is the whole root.
func (st *storage) rootBox() box {
	b := make(box, len(st.rdims))
	for k, d := range st.rdims {
		b[k] = span{0, d.Extent - 1}
	}
	return b
}

// positions sets out to the root positions of storage index i.
func (st *storage) positions(i int, out []int) {
	for k := range out {
		out[k] = 0
	}
	for j := len(st.byStride) - 1; j >= 0; j-- { // outermost first
		k := st.byStride[j]
		if st.rdims[k].Extent <= 1 {
			continue
		}
		s := st.rdims[k].Stride
		out[k] = i / s
		i -= out[k] * s
	}
}

// region is the transfer of box b: its byte offset in the storage and its
// strided shape, dimensions by increasing stride.
func (st *storage) region(b box) (off int, r device.Region) {
	shape := make([]device.Span, 0, len(b))
	for _, k := range st.byStride {
		off += b[k].lo * st.rdims[k].Stride
		shape = append(shape, device.Span{Extent: b[k].hi - b[k].lo + 1, Stride: st.rdims[k].Stride})
	}
	return off * st.esize, device.Region{ElemSize: st.esize, Shape: shape}
}

func (st *storage) hostBytes() []byte {
	return unsafe.Slice((*byte)(st.base), st.elems*st.esize)
}

// upload copies box b host → device; the caller holds st.mu.
func (st *storage) upload(b box) error {
	off, r := st.region(b)
	return st.res.dev.CopyIn(st.res.alloc, off, st.hostBytes()[off:], r)
}

// download copies box b device → host; the caller holds st.mu.
func (st *storage) download(b box) error {
	off, r := st.region(b)
	return st.res.dev.CopyOut(st.hostBytes()[off:], st.res.alloc, off, r)
}
