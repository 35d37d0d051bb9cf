package bench

import (
	"fmt"
	"math"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// Output is what a stage writes: an image of the chain's Width × Height,
// or a scalar (a reduction), of one element type. Make one with ImageOut
// or ScalarOut; the zero value is a uint8 image, the brighter stage's
// output.
type Output struct {
	typ    array.Type
	scalar bool
	alloc  func(h device.HostAllocator, extents []int) (buffer, error)
	// flat is the 0-D view of a one-element Array of the type: a
	// streamed sum's band of its per-band sums (scalar outputs).
	flat func(array.Buffer) array.Buffer
}

// ImageOut is a Width × Height image of T.
func ImageOut[T Real]() Output {
	return Output{typ: array.TypeOf[T](), alloc: allocBuffer[T]}
}

// ScalarOut is a scalar of T: a 0-D Array.
func ScalarOut[T Real]() Output {
	return Output{typ: array.TypeOf[T](), scalar: true, alloc: allocBuffer[T],
		flat: func(b array.Buffer) array.Buffer { return b.(*array.Array[T]).Squeeze() }}
}

// Real is the element types a stage's output may have: those whose
// values convert to float64 as numbers, for the check against Ref.
type Real interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// Type is the output's element type.
func (o Output) Type() array.Type {
	if o.alloc == nil {
		return array.TypeOf[uint8]()
	}
	return o.typ
}

// Scalar reports whether the output is a scalar rather than an image.
func (o Output) Scalar() bool { return o.scalar }

func (o Output) String() string {
	if o.scalar {
		return o.Type().String() + " scalar"
	}
	return o.Type().String() + " image"
}

// len is the output's element count for a w × h chain.
func (o Output) len(w, h int) int {
	if o.scalar {
		return 1
	}
	return w * h
}

// bytes is the output's size in bytes for a w × h chain.
func (o Output) bytes(w, h int) int { return o.len(w, h) * o.Type().Bytes() }

// new allocates the output for a w × h chain: in Go memory when h is nil,
// else in h's host memory.
func (o Output) new(ha device.HostAllocator, w, h int) (buffer, error) {
	alloc := o.alloc
	if alloc == nil {
		alloc = allocBuffer[uint8]
	}
	ext := []int{w, h}
	if o.scalar {
		ext = nil
	}
	return alloc(ha, ext)
}

// buffer is one of a trial's Arrays, whatever its element type.
type buffer interface {
	// arg is the device-aware Array, as a Stage receives it.
	arg() array.Buffer
	// host is a writable host view: a host-only argument.
	host() (array.Buffer, error)
	CopyToHost() error
	Close() error
	// check compares the host copy with want (see Stage.Tol).
	check(want []float64, tol float64) error
	// sumOf stores the sum of parts' elements (a streamed sum's per-band
	// sums, of the same type) in this scalar, on the host.
	sumOf(parts buffer) error
}

type typedBuffer[T Real] struct{ *array.Array[T] }

func allocBuffer[T Real](h device.HostAllocator, extents []int) (buffer, error) {
	a, err := newArray[T](h, extents...)
	if err != nil {
		return nil, err
	}
	return typedBuffer[T]{a}, nil
}

// newArray is a device-aware Array in Go memory when h is nil, else in
// h's host memory.
func newArray[T array.Elem](h device.HostAllocator, extents ...int) (*array.Array[T], error) {
	if h == nil {
		return array.New[T](extents...), nil
	}
	return array.NewIn[T](h, extents...)
}

func (b typedBuffer[T]) arg() array.Buffer { return b.Array }

func (b typedBuffer[T]) host() (array.Buffer, error) { return b.Host() }

func (b typedBuffer[T]) sumOf(parts buffer) error {
	p, err := parts.(typedBuffer[T]).HostReadOnly()
	if err != nil {
		return err
	}
	t := 0.0
	for _, v := range p.Data() {
		t += float64(v)
	}
	h, err := b.Host()
	if err != nil {
		return err
	}
	h.Data()[0] = T(t)
	return nil
}

func (b typedBuffer[T]) check(want []float64, tol float64) error {
	v, err := b.HostReadOnly()
	if err != nil {
		return err
	}
	got := v.Data()
	if len(got) != len(want) {
		return fmt.Errorf("output has %d elements, the reference %d", len(got), len(want))
	}
	for i, w := range want {
		if g := float64(got[i]); g != w && !(tol > 0 && math.Abs(g-w) <= tol*math.Abs(w)) {
			if tol > 0 {
				return fmt.Errorf("element %d is %v, want %v within %g relative", i, got[i], w, tol)
			}
			return fmt.Errorf("element %d is %v, want %v", i, got[i], w)
		}
	}
	return nil
}
