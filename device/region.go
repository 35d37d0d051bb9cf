package device

import "fmt"

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

// Elems is the number of elements in the Region.
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
// how much memory the Region touches on either side.
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

// Validate reports a Region that no transfer can honour.
func (r Region) Validate() error {
	if r.ElemSize <= 0 {
		return fmt.Errorf("device: region element size %d: want > 0", r.ElemSize)
	}
	for i, s := range r.Shape {
		if s.Extent < 0 || s.Stride < 0 {
			return fmt.Errorf("device: region dimension %d has extent %d, stride %d: want both ≥ 0", i, s.Extent, s.Stride)
		}
	}
	return nil
}

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
