package device

import (
	"fmt"
	"slices"

	"github.com/resident-go/resident/internal/checked"
)

// Span is one dimension of a Region: Extent elements, Stride elements apart.
type Span struct {
	Extent int
	Stride int
}

// Region is a strided box of elements, dimension 0 innermost. Element
// (x0, x1, …) lies at byte Σ xi·Stride_i·ElemSize from the Region's first
// element, 0 ≤ xi < Extent_i. Strides are non-negative.
type Region struct {
	ElemSize int
	Shape    []Span
}

// Elems is the number of elements in the Region. Validate first: it
// assumes the product fits in an int.
func (r Region) Elems() int {
	n := 1
	for _, s := range r.Shape {
		n *= s.Extent
	}
	return n
}

// Bytes is the number of bytes a transfer of the Region moves.
func (r Region) Bytes() int { return r.Elems() * r.ElemSize }

// SpanBytes is the distance from the first element to one past the last:
// how much memory the Region touches on either side. Validate first.
func (r Region) SpanBytes() int {
	if r.Elems() == 0 {
		return 0
	}
	last := 0
	for _, s := range r.Shape {
		last += (s.Extent - 1) * s.Stride
	}
	return (last + 1) * r.ElemSize
}

// validate reports a Region that no transfer can honour: negative extents
// or strides, or element counts, byte counts or spans that overflow an int.
func (r Region) validate() error {
	if r.ElemSize <= 0 {
		return fmt.Errorf("%w: region element size %d: want > 0", ErrOutOfRange, r.ElemSize)
	}
	n, last := 1, 0
	empty := false
	for i, s := range r.Shape {
		if s.Extent < 0 || s.Stride < 0 {
			return fmt.Errorf("%w: region dimension %d has extent %d, stride %d: want both ≥ 0", ErrOutOfRange, i, s.Extent, s.Stride)
		}
		if s.Extent == 0 {
			empty = true
		}
	}
	if empty {
		return nil
	}
	for i, s := range r.Shape {
		var ok bool
		if n, ok = mulOK(n, s.Extent); !ok {
			return fmt.Errorf("%w: region element count overflows at dimension %d (extent %d)", ErrOutOfRange, i, s.Extent)
		}
		step, ok := mulOK(s.Extent-1, s.Stride)
		if !ok || last > maxInt-step {
			return fmt.Errorf("%w: region span overflows at dimension %d (extent %d, stride %d)", ErrOutOfRange, i, s.Extent, s.Stride)
		}
		last += step
	}
	if _, ok := mulOK(n, r.ElemSize); !ok || last+1 > maxInt/r.ElemSize {
		return fmt.Errorf("%w: region of %d elements of %d bytes overflows", ErrOutOfRange, n, r.ElemSize)
	}
	// No two elements at one address: a transfer must not write a byte
	// twice (and a stride-0 dimension of huge extent would loop forever).
	var buf [8]Span // on the stack for the ranks transfers use
	sorted := append(buf[:0], r.Shape...)
	slices.SortFunc(sorted, func(a, b Span) int { return a.Stride - b.Stride })
	inner := 1
	for _, s := range sorted {
		if s.Extent <= 1 {
			continue
		}
		if s.Stride < inner {
			return fmt.Errorf("%w: region dimension of extent %d and stride %d overlaps the dimensions inside it (span %d): strides must not alias", ErrOutOfRange, s.Extent, s.Stride, inner)
		}
		inner += (s.Extent - 1) * s.Stride
	}
	return nil
}

// Fits reports whether the Region, at byte off, lies inside n bytes; it
// validates the Region first and never overflows.
func (r Region) Fits(off, n int) error {
	if err := r.validate(); err != nil {
		return err
	}
	span := r.SpanBytes()
	if off < 0 || span > n || off > n-span {
		return fmt.Errorf("%w: region of %d bytes at byte %d of %d bytes", ErrOutOfRange, span, off, n)
	}
	return nil
}

const maxInt = checked.MaxInt

var mulOK = checked.Mul

// Simplify returns an equivalent Region with extent-1 dimensions dropped and
// dimensions that are contiguous with the one inside them fused, so dense
// data becomes one span and a transfer takes one call. It assumes dimension
// i+1's stride is at least dimension i's span, which every Array layout
// sorted by stride satisfies; unsorted layouts are returned unfused.
func (r Region) Simplify() Region {
	shape := make([]Span, 0, len(r.Shape)+1)
	for _, s := range r.Shape {
		if s.Extent == 1 {
			continue
		}
		if s.Extent == 0 {
			return Region{ElemSize: r.ElemSize, Shape: []Span{{0, 1}}}
		}
		if n := len(shape); n > 0 && shape[n-1].Stride*shape[n-1].Extent == s.Stride {
			shape[n-1].Extent *= s.Extent
			continue
		}
		shape = append(shape, s)
	}
	if len(shape) == 0 || shape[0].Stride != 1 {
		// Shape[0] is always a contiguous run, so callers can treat it as
		// "elements in a row".
		shape = append([]Span{{1, 1}}, shape...)
	}
	return Region{ElemSize: r.ElemSize, Shape: shape}
}

// Rows calls fn for each contiguous run of the Region with the run's byte
// offset from the first element and its length in bytes. The Region should
// be Simplified first so runs are as long as possible.
func (r Region) Rows(fn func(off, n int)) {
	if len(r.Shape) == 0 || r.Elems() == 0 {
		return
	}
	row := r.Shape[0].Extent * r.ElemSize
	outer := r.Shape[1:]
	idx := make([]int, len(outer))
	for {
		off := 0
		for i, x := range idx {
			off += x * outer[i].Stride
		}
		fn(off*r.ElemSize, row)
		i := 0
		for ; i < len(idx); i++ {
			idx[i]++
			if idx[i] < outer[i].Extent {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			return
		}
	}
}
