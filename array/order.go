package array

import "strconv"

// Order is the memory order of a new copy (Like, Compact, ops.Clone), as
// NumPy's order= argument. The zero value, KeepOrder, is the default.
type Order int

const (
	// KeepOrder (NumPy's order='K') lays the copy out densely with its
	// dimensions in the source's stride order: an interleaved
	// (channel-innermost) source gives an interleaved copy, a transposed
	// view a transposed copy. Stride ties (a broadcast's stride-0
	// dimensions, which go innermost, as NumPy's) keep dimension order.
	// So every Reshape view of a source laid out by views (crops, slices,
	// permutations, broadcasts of a dense root) is one of the copy too.
	KeepOrder Order = iota
	// COrder (NumPy's order='C') lays the copy out densely in NumPy's C
	// order, dimension 0 innermost: New's planar layout, whatever the
	// source's strides.
	COrder
)

func (o Order) String() string {
	switch o {
	case KeepOrder:
		return "KeepOrder"
	case COrder:
		return "COrder"
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// orderOf is the one Order of a variadic order argument (none: KeepOrder);
// more than one, or an unknown one, panics with ErrShape.
func orderOf(op string, order []Order) Order {
	switch {
	case len(order) == 0:
		return KeepOrder
	case len(order) > 1:
		panicf(ErrShape, "%s with %d orders %v: pass at most one (KeepOrder or COrder)", op, len(order), order)
	case order[0] != KeepOrder && order[0] != COrder:
		panicf(ErrShape, "%s with %v: pass KeepOrder or COrder", op, order[0])
	}
	return order[0]
}

// orderedDims is the dense layout with src's mins and extents, in order o:
// dimensions by increasing source stride (stable) for KeepOrder.
func orderedDims(src []Dim, o Order) []Dim {
	ext, mins := make([]int, len(src)), make([]int, len(src))
	for i, d := range src {
		ext[i], mins[i] = d.Extent, d.Min
	}
	dense := denseDims(ext, mins) // checks extents and the element count
	if o == COrder {
		return dense
	}
	stride := 1
	for _, k := range sortedByStride(src) {
		dense[k].Stride = stride
		stride *= max(ext[k], 1) // cannot overflow: denseDims checked the product
	}
	return dense
}
