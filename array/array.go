package array

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Array is a typed N-D array with Halide's layout (see Dim) and an optional
// device copy. The zero value is not usable: make Arrays with New,
// NewWithMins, NewInterleaved, Scalar, FromSlice, Wrap, Like, NewIn or
// NewOver.
//
// Element access goes through a host view (Host, HostReadOnly), which is
// where the automatic copy to host happens. An Array value is the unit of
// concurrency: goroutines may work at once on distinct Arrays (views) of
// one memory whose elements do not overlap; overlapping concurrent writes
// are the caller's bug, as with slices.
type Array[T Elem] struct {
	raw  Raw
	data []T // the whole root storage; element x is data[off + Σ…]
}

// alignment of host storage, as Halide's Runtime::Buffer.
const alignment = 128

// maxHostBytes bounds host storage below what the Go heap can address, so
// impossible sizes are ErrShape instead of a runtime panic.
const maxHostBytes = 1 << 47

// alignedSlice returns n zeroed Ts whose first element is 128-byte aligned.
// Go's heap never moves objects, so the address is stable for C.
func alignedSlice[T Elem](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if n > maxHostBytes/size {
		panicf(ErrShape, "%d elements of %d bytes: more than the %d bytes a Go slice can hold", n, size, maxHostBytes)
	}
	pad := alignment / size
	s := make([]T, n+pad)
	mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(s))) % alignment)
	skip := 0
	if mis != 0 {
		skip = (alignment - mis) / size
	}
	return s[skip : skip+n : skip+n]
}

// newArray makes a root over data with the given (checked) layout.
func newArray[T Elem](data []T, dims []Dim, hostOnly bool) *Array[T] {
	t := TypeOf[T]()
	a := &Array[T]{data: data}
	r := &a.raw
	r.typ, r.esize, r.root = t, t.Bytes(), true
	r.setDims(dims)
	var base unsafe.Pointer
	if len(data) > 0 {
		base = unsafe.Pointer(unsafe.SliceData(data))
	}
	r.st = newStorage(base, spanOf(dims), r.esize, slices.Clone(dims), hostOnly)
	return a
}

// New returns a zeroed, dense, device-aware Array with the given extents,
// dimension 0 innermost (stride 1). New() is a 0-D scalar. Extents whose
// element count overflows panic with ErrShape.
func New[T Elem](extents ...int) *Array[T] {
	d := denseDims(extents, nil)
	return newHost[T](d, true)
}

// NewWithMins is New with each dimension starting at mins[i] instead of 0.
func NewWithMins[T Elem](mins, extents []int) *Array[T] {
	if len(mins) != len(extents) {
		panicf(ErrShape, "%d mins for %d extents: pass one min per dimension", len(mins), len(extents))
	}
	d := denseDims(extents, mins)
	return newHost[T](d, true)
}

// NewInterleaved returns a zeroed Array of shape width × height × channels
// whose channels are innermost in memory (stride 1 in dimension 2), like
// Halide's make_interleaved: the layout of packed RGB images.
func NewInterleaved[T Elem](width, height, channels int) *Array[T] {
	dense := denseDims([]int{channels, width, height}, nil)
	d := []Dim{
		{Extent: width, Stride: dense[1].Stride},
		{Extent: height, Stride: dense[2].Stride},
		{Extent: channels, Stride: 1},
	}
	return newHost[T](d, true)
}

// Scalar returns a 0-D Array holding v.
func Scalar[T Elem](v T) *Array[T] {
	a := New[T]()
	a.data[0] = v
	return a
}

// FromSlice wraps data without copying as a dense host-only Array with the
// given extents (one dimension of len(data) when none are given). The
// caller keeps using data directly, so consumers such as pipeline calls
// always leave it current. Its alignment is the slice's own; Arrays made by
// New and the other constructors have 128-byte aligned storage.
func FromSlice[T Elem](data []T, extents ...int) *Array[T] {
	if len(extents) == 0 {
		extents = []int{len(data)}
	}
	d := denseDims(extents, nil)
	if n := spanOf(d); n != len(data) {
		panicf(ErrShape, "slice of %d elements for extents %v (%d elements): pass a slice of exactly %d", len(data), extents, n, n)
	}
	return newArray(data, d, true)
}

// Wrap wraps data, memory the caller holds, as a host-only Array with the
// given layout, without copying: the counterpart of Halide's
// Buffer(T *data, int dims, const halide_dimension_t *shape). Element
// (x0, x1, …) is data[Σ (xi − dims[i].Min)·dims[i].Stride]. The layout is
// checked: extents and strides ≥ 0, no overflow, every element inside
// data, and no two elements at one address.
func Wrap[T Elem](data []T, dims []Dim) (*Array[T], error) {
	if err := checkDims(dims, len(data)); err != nil {
		return nil, err
	}
	n := spanOf(dims)
	return newArray(data[:n:n], dims, true), nil
}

// Like returns a zeroed, dense, device-aware Array with a's element type,
// mins and extents, in a's memory order (KeepOrder: the dimensions in a's
// stride order, so an interleaved a gives an interleaved Array) or, with
// COrder, New's planar order (dimension 0 innermost). More than one order
// panics with ErrShape.
func Like[T Elem](a *Array[T], order ...Order) *Array[T] {
	o := orderOf("Like", order)
	if a == nil {
		panicf(ErrShape, "Like of a nil *Array[%s]: pass the Array whose shape to copy", TypeOf[T]())
	}
	a.raw.checkOpen()
	d := orderedDims(a.raw.dimsRef(), o)
	return newHost[T](d, true)
}

// NewIn is New with host storage from h, for example an OpenCL device's
// pinned memory, so transfers need no staging. The memory goes back to h
// when the Array is closed (or collected); it outlives h's Close.
func NewIn[T Elem](h device.HostAllocator, extents ...int) (*Array[T], error) {
	n := spanOf(denseDims(extents, nil))
	if h == nil {
		return nil, errors.New("array: NewIn: the HostAllocator is nil: pass a device that allocates host memory (an opencl.Device), or use New")
	}
	var z T
	size := int(unsafe.Sizeof(z))
	if n > maxHostBytes/size {
		panicf(ErrShape, "extents %v: %d elements of %d bytes: more than %d bytes", extents, n, size, maxHostBytes)
	}
	blk, err := h.AllocHost(n*size + alignment)
	if err != nil {
		return nil, fmt.Errorf("array: host allocation of %d bytes: %w", n*size, err)
	}
	a, err := newOver[T](blk, extents, alignment)
	if err != nil {
		blk.Free()
		return nil, err
	}
	clear(a.data)
	return a, nil
}

// NewOver is NewIn over a block the caller already holds: the Array's
// elements are blk's first bytes, kept as they are, and blk is freed when
// the Array is closed or collected. It lets memory handed out before its
// element type was known (a tensor.Engine's Alloc) become a device-aware
// Array. blk must be aligned for T and hold the extents; if not, the error
// says so and blk stays the caller's.
func NewOver[T Elem](blk device.HostBlock, extents ...int) (*Array[T], error) {
	if blk == nil {
		return nil, errors.New("array: NewOver: the HostBlock is nil: pass a block from a HostAllocator's AllocHost, or use NewIn")
	}
	var z T
	return newOver[T](blk, extents, int(unsafe.Sizeof(z)))
}

// newOver makes the root over blk's bytes from the first one aligned to
// align, which must be a multiple of the element size.
func newOver[T Elem](blk device.HostBlock, extents []int, align int) (*Array[T], error) {
	d := denseDims(extents, nil)
	n := spanOf(d)
	var z T
	size := int(unsafe.Sizeof(z))
	b := blk.Bytes()
	skip := 0
	if mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) % uintptr(align)); mis != 0 {
		skip = align - mis
	}
	if skip > len(b) || n > (len(b)-skip)/size {
		return nil, fmt.Errorf("%w: a host block of %d bytes (%d after aligning to %d) holds fewer than the %d elements of %d bytes of extents %v: pass a bigger block", ErrOutOfRange, len(b), len(b)-min(skip, len(b)), align, n, size, extents)
	}
	if align == size && skip != 0 {
		return nil, fmt.Errorf("%w: the host block at %p is not aligned for %d-byte elements: pass an aligned block", ErrShape, unsafe.SliceData(b), size)
	}
	var data []T
	if n > 0 {
		data = unsafe.Slice((*T)(unsafe.Pointer(&b[skip])), n)
	}
	a := newArray(data, d, false)
	a.raw.st.res.block = blk
	return a, nil
}

// Raw returns the untyped state, the escape hatch for foreign runtimes
// (Halide's raw_buffer()); nil for a nil Array.
func (a *Array[T]) Raw() *Raw {
	if a == nil {
		return nil
	}
	return &a.raw
}

// HostOnly reports whether the Array is over caller-held memory (FromSlice,
// Wrap): consumers always leave its host data current.
func (a *Array[T]) HostOnly() bool { return a.raw.st.hostOnly }

// Type is the element type.
func (a *Array[T]) Type() Type { return a.raw.typ }

// Rank is the number of dimensions.
func (a *Array[T]) Rank() int { return a.raw.rank }

// Dim returns dimension i; it panics with ErrShape for an unknown one.
func (a *Array[T]) Dim(i int) Dim { return a.raw.Dim(i) }

// Dims returns a copy of the dimensions.
func (a *Array[T]) Dims() []Dim { return a.raw.Dims() }

// Extents returns the extent of each dimension.
func (a *Array[T]) Extents() []int { return a.raw.Extents() }

// Len is the number of elements.
func (a *Array[T]) Len() int { return a.raw.Len() }

// Dense reports whether the elements fill their span with no gaps.
func (a *Array[T]) Dense() bool { return a.raw.Dense() }

// String describes the Array's type, shape and residency, not its data.
func (a *Array[T]) String() string { return "Array[" + a.raw.String() + "]" }

var _ Buffer = (*Array[uint8])(nil)
