package array

import (
	"io"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Buffer is what every *Array[T] and every host view satisfies, so a
// pipeline call or an op can take a mixed list of element types.
type Buffer interface {
	// Raw returns the untyped state behind the buffer.
	Raw() *Raw
	// HostOnly reports whether consumers must leave the host data current:
	// true for host views and for Arrays over caller-held memory.
	HostOnly() bool
}

// Ownership says who owns an Array's device allocation.
type Ownership uint8

const (
	// NoDevice: the Array has no device allocation.
	NoDevice Ownership = iota
	// Allocated: the Array allocated it and frees it.
	Allocated
	// WrappedNative: the caller wrapped an existing allocation (Wrap); the
	// Array never frees it.
	WrappedNative
	// Unmanaged: the allocation is the caller's to free.
	Unmanaged
	// Cropped: a view's crop of its parent's allocation.
	Cropped
)

func (o Ownership) String() string {
	return [...]string{"none", "allocated", "wrapped native", "unmanaged", "cropped"}[o]
}

// family is the state shared by an Array and all its views.
type family struct {
	devGen atomic.Uint64 // bumped when any view is written on a device
	refs   atomic.Int64  // open Raws sharing the host storage
	block  device.HostBlock
	regs   regions         // dirty regions of the views (regions.go)
	dirty  [2]atomic.Int32 // len(regs.list[s]), read without the lock
}

func (f *family) unref() {
	if f.refs.Add(-1) != 0 {
		return
	}
	f.freeOrphans()
	if f.block != nil {
		f.block.Free()
	}
}

// devHandle is a Raw's device allocation and attachment: what Close, or
// the cleanup backstop when a user forgets Close, releases.
type devHandle struct {
	dev    device.Device
	alloc  device.Allocation
	own    Ownership
	attach io.Closer
	done   atomic.Bool
}

// release frees the allocation (when the Array owns it) and closes the
// attachment; it runs at most once.
func (h *devHandle) release() error {
	if h == nil || h.done.Swap(true) {
		return nil
	}
	var err error
	if h.attach != nil {
		err = h.attach.Close()
	}
	if h.alloc != nil && (h.own == Allocated || h.own == Cropped) {
		if e := h.dev.Free(h.alloc); err == nil {
			err = e
		}
	}
	return err
}

// cleanupKey is the object whose unreachability triggers a devHandle's
// release; it must not point at the handle (runtime.AddCleanup's rule).
type cleanupKey struct{ _ byte }

const inlineDims = 4

// Raw is the untyped state of an Array: layout, host storage, device
// allocation, dirty bits. Its layout never changes; views are new Raws.
// A Raw is not safe for concurrent mutation, like a slice.
type Raw struct {
	typ   Type
	esize int
	rank  int
	inl   [inlineDims]Dim // dims when rank ≤ inlineDims, so views need no extra allocation
	ext   []Dim           // dims when rank > inlineDims
	base  unsafe.Pointer  // first element of the root storage
	off   int             // element offset of the min corner from base
	fam   *family

	h           *devHandle
	key         *cleanupKey
	hostDirty   bool
	deviceDirty bool
	hostOnly    bool
	closed      bool
	hostGen     uint64 // fam.devGen when the host copy was last known current
}

func (r *Raw) dimsRef() []Dim {
	if r.ext != nil {
		return r.ext
	}
	return r.inl[:r.rank]
}

// setDims sets r's dimensions; d is copied, so callers may pass a slice
// they keep (or keep on their stack).
func (r *Raw) setDims(d []Dim) {
	r.rank = len(d)
	if len(d) > inlineDims {
		r.ext = slices.Clone(d)
		return
	}
	r.ext = nil
	copy(r.inl[:], d)
}

// Raw returns r itself, so *Raw is a Buffer too.
func (r *Raw) Raw() *Raw { return r }

// HostOnly reports whether r's host data must be kept current by consumers.
func (r *Raw) HostOnly() bool { return r.hostOnly }

// Type is the element type.
func (r *Raw) Type() Type { return r.typ }

// ElemSize is the size of one element in bytes.
func (r *Raw) ElemSize() int { return r.esize }

// Rank is the number of dimensions.
func (r *Raw) Rank() int { return r.rank }

// Dim returns dimension i; it panics with ErrShape for an unknown dimension.
func (r *Raw) Dim(i int) Dim {
	r.checkDim(i)
	return r.dimsRef()[i]
}

// Dims returns a copy of the dimensions.
func (r *Raw) Dims() []Dim { return slices.Clone(r.dimsRef()) }

// Extents returns the extent of each dimension.
func (r *Raw) Extents() []int {
	e := make([]int, r.rank)
	for i, d := range r.dimsRef() {
		e[i] = d.Extent
	}
	return e
}

// Len is the number of elements.
func (r *Raw) Len() int {
	n := 1
	for _, d := range r.dimsRef() {
		n *= d.Extent
	}
	return n
}

// SpanElems is the number of elements from the min corner to one past the
// highest addressed element: what host and device storage must hold.
func (r *Raw) SpanElems() int {
	if r.Len() == 0 {
		return 0
	}
	last := 0
	for _, d := range r.dimsRef() {
		last += (d.Extent - 1) * d.Stride
	}
	return last + 1
}

// Dense reports whether the elements fill their span with no gaps.
func (r *Raw) Dense() bool { return r.SpanElems() == r.Len() }

// HostPtr is the address of the element at the min corner, or nil when the
// Array is empty. The address is stable for the Array's life; pin it with
// runtime.Pinner before storing it in C memory.
func (r *Raw) HostPtr() unsafe.Pointer {
	if r.Len() == 0 {
		return nil
	}
	return unsafe.Add(r.base, r.off*r.esize)
}

// HostBytes returns the host bytes from the min corner over the span; it
// shares memory with the Array and bypasses residency: callers sync first.
func (r *Raw) HostBytes() []byte {
	if r.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(r.HostPtr()), r.SpanElems()*r.esize)
}

// Region describes r's elements for a device transfer, dimensions sorted by
// stride so dense data fuses into one span.
func (r *Raw) Region() device.Region {
	shape := make([]device.Span, r.rank)
	for i, d := range r.dimsRef() {
		shape[i] = device.Span{Extent: d.Extent, Stride: d.Stride}
	}
	slices.SortStableFunc(shape, func(a, b device.Span) int { return a.Stride - b.Stride })
	return device.Region{ElemSize: r.esize, Shape: shape}
}

// Device is the device holding r's allocation, or nil.
func (r *Raw) Device() device.Device {
	if r.h == nil {
		return nil
	}
	return r.h.dev
}

// Allocation is r's device allocation, or nil; r's first element is at
// byte 0 of it.
func (r *Raw) Allocation() device.Allocation {
	if r.h == nil {
		return nil
	}
	return r.h.alloc
}

// Ownership says who owns the device allocation.
func (r *Raw) Ownership() Ownership {
	if r.h == nil || r.h.alloc == nil {
		return NoDevice
	}
	return r.h.own
}

// Attachment returns what a bridge keeps with r (the halide package keeps
// its C halide_buffer_t here), or nil.
func (r *Raw) Attachment() io.Closer {
	if r.h == nil {
		return nil
	}
	return r.h.attach
}

// SetAttachment replaces the attachment; Close (or the cleanup backstop)
// closes it. The previous one is not closed.
func (r *Raw) SetAttachment(c io.Closer) {
	r.checkOpen()
	r.handle().attach = c
}

// handle returns r's devHandle, creating it (and its cleanup) on first use.
func (r *Raw) handle() *devHandle {
	if r.h == nil {
		r.h = &devHandle{}
		r.key = &cleanupKey{}
		runtime.AddCleanup(r.key, func(h *devHandle) { h.release() }, r.h)
	}
	return r.h
}

// Closed reports whether Close has been called.
func (r *Raw) Closed() bool { return r.closed }

func (r *Raw) checkOpen() {
	if r.closed {
		panicf(ErrClosed, "the %s Array was closed; keep it open while it is used, or make a new one", r.typ)
	}
}

func (r *Raw) checkDim(i int) {
	if i < 0 || i >= r.rank {
		panicf(ErrShape, "dimension %d of a %d-D Array: want 0 ≤ dim < %d", i, r.rank, r.rank)
	}
}

// index returns the element offset from base of coords; it panics when the
// count or a coordinate is wrong.
func (r *Raw) index(coords []int) int {
	if len(coords) != r.rank {
		panicf(ErrShape, "%d coordinates for a %d-D Array: pass one per dimension", len(coords), r.rank)
	}
	i := r.off
	for k, d := range r.dimsRef() {
		x := coords[k]
		if x < d.Min || x > d.Max() {
			panicf(ErrOutOfRange, "coordinate %d in dimension %d is outside [%d, %d]", x, k, d.Min, d.Max())
		}
		i += (x - d.Min) * d.Stride
	}
	return i
}

// Close frees r's device allocation (unless the caller owns it), closes the
// attachment and lets go of the host storage. Idempotent. Using the Array
// afterwards panics with ErrClosed.
func (r *Raw) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	shared := r.fam.refs.Load() > 1
	switch {
	case shared && r.deviceDirty && r.h.alloc != nil && r.orphanRegion(r.h.alloc):
		// Other views of this memory are open: they may still need what
		// the device wrote here, so the device copy outlives r.
		r.h.alloc = nil
	case shared && r.hostDirty:
		r.orphanHostRegion() // the writes are in shared host memory
	default:
		r.dropRegions()
	}
	err := r.h.release()
	r.h = nil
	r.fam.unref()
	return err
}

// viewInto makes v a view of r with the given offset (v's dims are set),
// sharing host storage, family and (as a crop) the device allocation. v
// must not escape here, so callers can keep views on the stack; that is
// also why v starts with clean dirty bits instead of registering copies of
// r's: the family's dirty regions of r already cover v's elements.
func (r *Raw) viewInto(v *Raw, off int) {
	v.typ, v.esize, v.base, v.off, v.fam = r.typ, r.esize, r.base, off, r.fam
	v.hostOnly, v.hostGen = r.hostOnly, r.hostGen
	r.fam.refs.Add(1)
	if r.h == nil || r.h.alloc == nil {
		return
	}
	a, err := r.h.dev.Crop(r.h.alloc, (off-r.off)*r.esize, v.SpanElems()*r.esize)
	if err != nil {
		// A view cannot return an error; without a device crop it is still
		// correct: its syncs go through the views that hold device copies.
		return
	}
	h := v.handle()
	h.dev, h.alloc, h.own = r.h.dev, a, Cropped
}
