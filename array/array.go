package array

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Array is a typed N-D array with Halide's layout (see Dim) and an optional
// device copy. The zero value is not usable: make Arrays with New,
// NewWithMins, NewInterleaved, Scalar, FromSlice, Like or NewIn.
//
// Element access goes through a host view (Host, HostReadOnly), which is
// where the automatic copy to host happens.
type Array[T Elem] struct {
	rawState
	data []T // the whole root storage; element x is data[off + Σ…]
}

// rawState names the embedded Raw so its Raw method is promoted.
type rawState = Raw

// alignment of host storage, as Halide's Runtime::Buffer.
const alignment = 128

// alignedSlice returns n zeroed Ts whose first element is 128-byte aligned.
// Go's heap never moves objects, so the address is stable for C.
func alignedSlice[T Elem](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	pad := alignment / size
	s := make([]T, n+pad)
	mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(s))) % alignment)
	skip := 0
	if mis != 0 {
		skip = (alignment - mis) / size
	}
	return s[skip : skip+n : skip+n]
}

func denseDims(extents []int, mins []int) []Dim {
	d := make([]Dim, len(extents))
	stride := 1
	for i, e := range extents {
		if e < 0 {
			panicf(ErrShape, "extent %d in dimension %d: extents must be ≥ 0", e, i)
		}
		d[i] = Dim{Extent: e, Stride: stride}
		if mins != nil {
			d[i].Min = mins[i]
		}
		stride *= max(e, 1)
	}
	return d
}

func newArray[T Elem](data []T, dims []Dim, hostOnly bool) *Array[T] {
	t := TypeOf[T]()
	a := &Array[T]{data: data}
	a.typ, a.esize, a.hostOnly = t, t.Bytes(), hostOnly
	a.setDims(dims)
	a.fam = &family{}
	a.fam.refs.Store(1)
	if len(data) > 0 {
		a.base = unsafe.Pointer(unsafe.SliceData(data))
	}
	return a
}

// New returns a zeroed, dense, device-aware Array with the given extents,
// dimension 0 innermost (stride 1). New() is a 0-D scalar.
func New[T Elem](extents ...int) *Array[T] {
	d := denseDims(extents, nil)
	return newArray(alignedSlice[T](spanOf(d)), d, false)
}

// NewWithMins is New with each dimension starting at mins[i] instead of 0.
func NewWithMins[T Elem](mins, extents []int) *Array[T] {
	if len(mins) != len(extents) {
		panicf(ErrShape, "%d mins for %d extents: pass one min per dimension", len(mins), len(extents))
	}
	d := denseDims(extents, mins)
	return newArray(alignedSlice[T](spanOf(d)), d, false)
}

// NewInterleaved returns a zeroed Array of shape width × height × channels
// whose channels are innermost in memory (stride 1 in dimension 2), like
// Halide's make_interleaved: the layout of packed RGB images.
func NewInterleaved[T Elem](width, height, channels int) *Array[T] {
	for i, e := range []int{width, height, channels} {
		if e < 0 {
			panicf(ErrShape, "extent %d in dimension %d: extents must be ≥ 0", e, i)
		}
	}
	d := []Dim{
		{Extent: width, Stride: channels},
		{Extent: height, Stride: channels * width},
		{Extent: channels, Stride: 1},
	}
	return newArray(alignedSlice[T](width*height*channels), d, false)
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

// Like returns a zeroed, dense, device-aware Array with a's element type,
// mins and extents (not its strides).
func Like[T Elem](a *Array[T]) *Array[T] {
	a.checkOpen()
	dims := a.Dims()
	mins, ext := make([]int, len(dims)), make([]int, len(dims))
	for i, d := range dims {
		mins[i], ext[i] = d.Min, d.Extent
	}
	return NewWithMins[T](mins, ext)
}

// NewIn is New with host storage from h, for example an OpenCL device's
// pinned memory, so transfers need no staging. The memory is returned to h
// when the Array and its views are closed (or collected).
func NewIn[T Elem](h device.HostAllocator, extents ...int) (*Array[T], error) {
	d := denseDims(extents, nil)
	n := spanOf(d)
	var z T
	size := int(unsafe.Sizeof(z))
	blk, err := h.AllocHost(n*size + alignment)
	if err != nil {
		return nil, fmt.Errorf("array: host allocation of %d bytes: %w", n*size, err)
	}
	b := blk.Bytes()
	skip := 0
	if mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) % alignment); mis != 0 {
		skip = alignment - mis
	}
	data := unsafe.Slice((*T)(unsafe.Pointer(&b[skip])), n)
	clear(data)
	a := newArray(data, d, false)
	a.fam.block = blk
	runtime.AddCleanup(a.fam, func(b device.HostBlock) { b.Free() }, blk)
	return a, nil
}

func spanOf(d []Dim) int {
	last := 0
	for _, x := range d {
		if x.Extent == 0 {
			return 0
		}
		last += (x.Extent - 1) * x.Stride
	}
	return last + 1
}

// String describes the Array's type, shape and residency, not its data.
func (a *Array[T]) String() string {
	return fmt.Sprintf("Array[%s]%v (host dirty %v, device dirty %v, %s)", a.typ, a.Dims(), a.hostDirty, a.deviceDirty, a.Ownership())
}

var _ Buffer = (*Array[uint8])(nil)
