package array

import (
	"fmt"

	"github.com/resident-go/resident/internal/checked"
)

// Dim is one dimension of an Array, as in halide_dimension_t. Coordinates
// run from Min to Min+Extent-1; Stride is the distance in elements between
// neighbours along the dimension, so element (x0, x1, …) lives at
// host[Σ (xi − Min_i)·Stride_i] from the element at the min corner.
type Dim struct {
	Min, Extent, Stride int
}

// Max is the largest coordinate in the dimension.
func (d Dim) Max() int { return d.Min + d.Extent - 1 }

const maxInt = checked.MaxInt

var (
	mulOK = checked.Mul
	addOK = checked.Add
)

// checkDims reports a layout that cannot address n elements of storage
// safely: negative extents or strides, Min+Extent or element counts that
// overflow, a span past n, or two elements at one address (a stride
// smaller than the span of the dimensions inside it). Every Array's layout
// passes it, and views only shrink a layout or move its mins (checked), so
// no arithmetic on a view overflows and no view reaches past its storage.
func checkDims(dims []Dim, n int) error { return checkLayout(dims, n, false) }

// checkLayout is checkDims; with repeats, a dimension of stride 0 repeats
// one element (a read-only view's broadcast) instead of aliasing.
func checkLayout(dims []Dim, n int, repeats bool) error {
	count := 1
	for i, d := range dims {
		if d.Extent < 0 || d.Stride < 0 {
			return fmt.Errorf("%w: dimension %d has extent %d, stride %d: want both ≥ 0", ErrShape, i, d.Extent, d.Stride)
		}
		if _, ok := addOK(d.Min, d.Extent); !ok {
			return fmt.Errorf("%w: dimension %d: min %d + extent %d overflows int", ErrShape, i, d.Min, d.Extent)
		}
		var ok bool
		if count, ok = mulOK(count, d.Extent); !ok {
			return fmt.Errorf("%w: the element count overflows int at dimension %d (extent %d)", ErrShape, i, d.Extent)
		}
	}
	if count == 0 {
		return nil
	}
	// Inner to outer by stride: each dimension must step over everything
	// inside it.
	order := sortedByStride(dims)
	span := 1
	for _, i := range order {
		d := dims[i]
		if d.Extent == 1 || repeats && d.Stride == 0 {
			continue
		}
		if d.Stride == 0 {
			return fmt.Errorf("%w: dimension %d has stride 0 and extent %d: a writable layout never repeats an element (BroadcastTo makes such read-only views)", ErrShape, i, d.Extent)
		}
		if d.Stride < span {
			return fmt.Errorf("%w: dimension %d (stride %d) overlaps the dimensions inside it (they span %d elements): strides must not alias", ErrShape, i, d.Stride, span)
		}
		step, ok := mulOK(d.Extent-1, d.Stride)
		if !ok || span > maxInt-step {
			return fmt.Errorf("%w: dimension %d: extent %d × stride %d overflows int", ErrShape, i, d.Extent, d.Stride)
		}
		span += step
	}
	if span > n {
		return fmt.Errorf("%w: the layout reaches %d elements, the storage holds %d", ErrOutOfRange, span, n)
	}
	return nil
}

// dimName names dimension dim (the library's order, a call's own dim
// argument) of a rank-D Array for messages, with the NumPy axis it is.
func dimName(dim, rank int) string {
	if dim < 0 || dim >= rank {
		return fmt.Sprintf("dimension %d", dim)
	}
	return fmt.Sprintf("dimension %d (axis %d)", dim, rank-1-dim)
}

// sortedByStride returns the indices of dims by increasing stride.
func sortedByStride(dims []Dim) []int {
	order := make([]int, len(dims))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ { // insertion sort: ranks are small
		for j := i; j > 0 && dims[order[j]].Stride < dims[order[j-1]].Stride; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// denseDims is the dense layout of extents (dimension 0 innermost) with
// the given mins (nil: zeros); it panics with ErrShape on bad extents.
func denseDims(extents []int, mins []int) []Dim {
	d := make([]Dim, len(extents))
	stride := 1
	for i, e := range extents {
		if e < 0 {
			panicf(ErrShape, "extent %d in %s: extents must be ≥ 0", e, dimName(i, len(extents)))
		}
		d[i] = Dim{Extent: e, Stride: stride}
		if mins != nil {
			d[i].Min = mins[i]
		}
		var ok bool
		if stride, ok = mulOK(stride, max(e, 1)); !ok {
			panicf(ErrShape, "extents %v: the element count overflows int", extents)
		}
	}
	if err := checkDims(d, maxInt); err != nil {
		panic(err)
	}
	return d
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
