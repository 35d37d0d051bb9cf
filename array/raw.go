package array

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Buffer is what every *Array[T] and every host view satisfies, so a
// pipeline call or an op can take a mixed list of element types.
type Buffer interface {
	// Raw returns the untyped state behind the buffer (nil for a nil
	// Array or a zero view).
	Raw() *Raw
	// HostOnly reports whether consumers must leave the host data current:
	// true for host views and for Arrays over caller-held memory.
	HostOnly() bool
}

const inlineDims = 4

// Raw is the untyped state of one Array or view: its layout and the shared
// storage behind it. It is the escape hatch, like Halide's raw_buffer():
// what a foreign runtime needs to address the data. Its layout never
// changes; views are new Raws.
type Raw struct {
	typ   Type
	esize int
	rank  int
	inl   [inlineDims]Dim // dims when rank ≤ inlineDims, so views need no extra allocation
	ext   []Dim           // dims when rank > inlineDims
	off   int             // storage index of the min corner
	st    *storage
	root  bool   // made by a constructor: Close frees the storage
	ro    bool   // read-only: a broadcast view or a view of one
	gen   uint64 // st.hostGen when this Array's host writes were last marked
	att   *attachSlot
}

// Raw returns r itself, so a *Raw is a Buffer too.
func (r *Raw) Raw() *Raw { return r }

func (r *Raw) dimsRef() []Dim {
	if r.ext != nil {
		return r.ext
	}
	return r.inl[:r.rank]
}

// setDims sets r's dimensions; d is copied.
func (r *Raw) setDims(d []Dim) {
	r.rank = len(d)
	if len(d) > inlineDims {
		r.ext = slices.Clone(d)
		return
	}
	r.ext = nil
	copy(r.inl[:], d)
}

// expose records that memory is reached outside the library's counted
// uses, before the caller checks Close (which checks it after marking
// closed): such memory never goes back to the pool early.
func (r *Raw) expose() {
	if e := &r.st.res.exposed; !e.Load() {
		e.Store(true)
	}
}

// hostUse is the host memory at r's min corner for a consumer that holds
// a use until Release and reaches nothing else: Close waits for it, and
// the memory stays unexposed. ok is false where the consumer must take a
// host view instead (a device copy, a read-only dst).
//
// A reader (write false) of lost values (ErrLost) gets their error; a
// writer writes every element of r, which replaces them.
func (r *Raw) hostUse(write bool) (p unsafe.Pointer, ok bool, err error) {
	if r.st.hasAlloc.Load() || write && r.ro || r.Len() == 0 {
		return nil, false, nil
	}
	if err := r.st.res.acquire(); err != nil {
		return nil, true, err
	}
	if r.st.hasAlloc.Load() { // attached meanwhile
		r.st.res.unacquire()
		return nil, false, nil
	}
	if write {
		r.rewritten()
	} else if err := r.errLost(); err != nil {
		r.st.res.unacquire()
		return nil, true, err
	}
	return unsafe.Add(r.st.base, r.off*r.esize), true, nil
}

// Type is the element type.
func (r *Raw) Type() Type { return r.typ }

// Rank is the number of dimensions.
func (r *Raw) Rank() int { return r.rank }

// Dim returns dimension i; it panics with ErrShape for an unknown dimension.
func (r *Raw) Dim(i int) Dim {
	r.checkDim(i)
	return r.dimsRef()[i]
}

// Dims returns a copy of the dimensions.
func (r *Raw) Dims() []Dim { return slices.Clone(r.dimsRef()) }

// Len is the number of elements.
func (r *Raw) Len() int {
	n := 1
	for _, d := range r.dimsRef() {
		n *= d.Extent
	}
	return n
}

// spanElems is the number of elements from the min corner to one past the
// highest addressed element.
func (r *Raw) spanElems() int { return spanOf(r.dimsRef()) }

// HostPtr is the address of the element at the min corner, or nil when the
// Array is empty. Go's heap does not move it; pin it with runtime.Pinner
// before storing it in C memory. It bypasses residency: sync first.
func (r *Raw) HostPtr() unsafe.Pointer {
	r.expose()
	if r.Len() == 0 {
		return nil
	}
	return unsafe.Add(r.st.base, r.off*r.esize)
}

// HostBytes is r's host memory from the min corner over its span, sharing
// memory. Like HostPtr it bypasses residency: sync first, and mark host
// writes (Array.SetHostDirty) if a device copy exists.
func (r *Raw) HostBytes() []byte {
	if r.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(r.HostPtr()), r.spanElems()*r.esize)
}

// Region describes r's own elements for a device transfer from its min
// corner (byte 0 of HostBytes, or r's offset in its Allocation),
// dimensions by increasing stride so dense data fuses into one run. A
// broadcast dimension (stride 0) holds one element: extent 1 here, so a
// read-only view moves only its source's elements.
func (r *Raw) Region() device.Region {
	dims := r.dimsRef()
	shape := make([]device.Span, len(dims))
	for i, d := range dims {
		shape[i] = device.Span{Extent: d.Extent, Stride: d.Stride}
		if d.Stride == 0 && d.Extent > 1 {
			shape[i].Extent = 1
		}
	}
	slices.SortStableFunc(shape, func(a, b device.Span) int { return a.Stride - b.Stride })
	return device.Region{ElemSize: r.esize, Shape: shape}
}

// Dense reports whether r's elements fill their span with no gaps.
func (r *Raw) Dense() bool { return r.spanElems() == r.Len() }

// HostOnly reports whether the Array is over caller-held memory
// (FromSlice, Wrap), which consumers always leave current on the host.
func (r *Raw) HostOnly() bool { return r != nil && r.st.hostOnly }

// Device is the device holding the storage's allocation, or nil.
func (r *Raw) Device() device.Device {
	if !r.st.hasAlloc.Load() {
		return nil
	}
	r.st.res.mu.Lock()
	defer r.st.res.mu.Unlock()
	return r.st.res.dev
}

// Allocation is the root's device allocation and the byte offset of r's
// min corner in it (nil, 0 without one): every view of a root shares it.
func (r *Raw) Allocation() (device.Allocation, int) {
	r.st.res.mu.Lock()
	defer r.st.res.mu.Unlock()
	if r.st.res.alloc == nil {
		return nil, 0
	}
	return r.st.res.alloc, r.off * r.esize
}

// HostDirty reports whether the host holds data newer than the device
// anywhere in r's elements.
func (r *Raw) HostDirty() bool { return r.dirty(hostSide) }

// DeviceDirty reports whether the device holds data newer than the host
// anywhere in r's elements.
func (r *Raw) DeviceDirty() bool { return r.dirty(deviceSide) }

func (r *Raw) dirty(s side) bool {
	if s == deviceSide && r.st.nAway.Load() == 0 || !r.st.hasAlloc.Load() {
		return false
	}
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return r.dirtyLocked(s)
}

// dirtyLocked is dirty for a caller holding st.mu.
func (r *Raw) dirtyLocked(s side) bool {
	if !r.st.hasAlloc.Load() {
		return false
	}
	var buf [inlineDims]span
	b := r.box(buf[:0])
	return r.st.dirty[s].overlaps(b)
}

// box returns r's elements as a box of root positions, in buf (nil when
// r is empty).
func (r *Raw) box(buf box) box {
	if r.Len() == 0 {
		return nil
	}
	n := len(r.st.rdims)
	var pb [2 * inlineDims]int
	var lo, hi []int
	if n <= inlineDims {
		lo, hi = pb[:n], pb[inlineDims:inlineDims+n]
	} else {
		lo, hi = make([]int, n), make([]int, n)
	}
	r.st.positions(r.off, lo)
	r.st.positions(r.off+r.spanElems()-1, hi)
	b := buf[:0]
	for k := range n {
		b = append(b, span{lo[k], hi[k]})
	}
	return b
}

// Writable reports whether writes through r are allowed: false for a
// broadcast view (Array.BroadcastTo) and every view of one.
func (r *Raw) Writable() bool { return !r.ro }

// errWritable is the error of a write through a read-only view: one
// element of it stands for many, so a write cannot mean one element.
func (r *Raw) errWritable() error {
	if !r.ro {
		return nil
	}
	return fmt.Errorf("%w: this %s view of shape %v repeats its source's elements (BroadcastTo, or a view of one) and cannot be written: write the source, or write a copy (ops.BroadcastTo copies; so do Compact and ops.New1(ops.Copy, v))", ErrReadOnly, r.typ, r.shape())
}

// checkWritable is errWritable for the paths with no error to return.
func (r *Raw) checkWritable() {
	if err := r.errWritable(); err != nil {
		panic(err)
	}
}

// checkOpen panics where the API has no error to return (a host view's
// At, SetHostDirty); errOpen is the error where it has.
func (r *Raw) checkOpen() {
	if err := r.errOpen(); err != nil {
		panic(err)
	}
}

func (r *Raw) errOpen() error {
	if r.st.closed.Load() {
		return fmt.Errorf("%w: the %s Array (or the root it views) was closed; keep the root open while it is used, or make a new one", ErrClosed, r.typ)
	}
	return nil
}

func (r *Raw) checkDim(i int) {
	if i < 0 || i >= r.rank {
		panicf(ErrShape, "dimension %d of a %d-D Array: want 0 ≤ dim < %d", i, r.rank, r.rank)
	}
}

// index returns the storage index of coords; it panics when the count or a
// coordinate is wrong.
func (r *Raw) index(coords []int) int {
	if len(coords) != r.rank {
		panicf(ErrShape, "%d coordinates for a %d-D Array: pass one per dimension", len(coords), r.rank)
	}
	i := r.off
	for k, d := range r.dimsRef() {
		x := coords[k]
		if x < d.Min || x > d.Max() {
			panicf(ErrOutOfRange, "coordinate %d in %s is outside [%d, %d]", x, dimName(k, r.rank), d.Min, d.Max())
		}
		i += (x - d.Min) * d.Stride
	}
	return i
}

// String describes the type, shape (NumPy's order, as every message
// prints shapes) and residency, not the data.
func (r *Raw) String() string {
	return fmt.Sprintf("%s%s (host dirty %v, device dirty %v)", r.typ, pyShape(r.shape()), r.HostDirty(), r.DeviceDirty())
}

// Extents returns the extent of each dimension.
func (r *Raw) Extents() []int {
	e := make([]int, r.rank)
	for i, d := range r.dimsRef() {
		e[i] = d.Extent
	}
	return e
}

// attachSlot holds what a bridge keeps with one Raw (package halide: its
// C halide_buffer_t). Its Closer is closed once, by whichever comes first:
// the release of the root's resources (Close, or the storage's cleanup)
// or the cleanup of the Raw itself, a dropped view. Neither path reaches
// the Raw.
type attachSlot struct {
	c    io.Closer
	res  *resources
	once sync.Once
	err  error
}

func (s *attachSlot) close() error {
	s.once.Do(func() { s.err = s.c.Close() })
	return s.err
}

// dropped is the cleanup of a dropped Raw: its slot closes and leaves the
// root's set, so long-lived roots do not collect their views' slots.
func (s *attachSlot) dropped() {
	s.res.dropAttachment(s)
	s.close()
}

func (r *Raw) slot() *attachSlot {
	return (*attachSlot)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&r.att))))
}

func (r *Raw) attachment() io.Closer {
	if s := r.slot(); s != nil {
		return s.c
	}
	return nil
}

// setAttachment keeps c with this Raw (one view object) until the Raw is
// dropped or its root released, and returns what the Raw keeps: c, or the
// Closer another goroutine set first (then c is the caller's to close). A
// released root keeps nothing: it returns nil.
func (r *Raw) setAttachment(c io.Closer) io.Closer {
	s := &attachSlot{c: c, res: r.st.res}
	if !atomic.CompareAndSwapPointer((*unsafe.Pointer)(unsafe.Pointer(&r.att)), nil, unsafe.Pointer(s)) {
		return r.slot().c
	}
	if !r.st.res.addAttachment(s) {
		// Released already: the use that got here raced Close; it fails
		// at Acquire, and the slot closes at once.
		s.close()
		return nil
	}
	runtime.AddCleanup(r, (*attachSlot).dropped, s)
	return c
}
