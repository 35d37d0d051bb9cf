package array

import "slices"

// NumPy's order. An Array keeps Halide's layout, dimension 0 innermost;
// NumPy lists axes outermost first. One rule joins the two: a parameter
// named shape, or of type Axis or Sel, is in NumPy's order; a parameter
// named extents or dim is in Halide's. So NumPy's shape (2, 3) is extents
// (3, 2), axis 0 (or -2) is dimension 1, axis -1 is dimension 0, and a
// row-major (C-order) slice of values is exactly the dense layout.

// Axis is an axis in NumPy's order: 0 is the outermost dimension (Halide's
// Rank-1), and a negative Axis counts from the innermost, -1 being
// dimension 0, as NumPy's axis arguments do.
type Axis int

// DimOf returns the dimension (Halide's order) that axis ax names; an
// axis outside [-Rank, Rank) panics with ErrShape, as NumPy's AxisError.
func (a *Array[T]) DimOf(ax Axis) int { return dimOf(a.raw.rank, ax) }

func dimOf(rank int, ax Axis) int {
	switch {
	case ax < 0 && int(ax) >= -rank:
		return -1 - int(ax)
	case ax >= 0 && int(ax) < rank:
		return rank - 1 - int(ax)
	}
	panicf(ErrShape, "axis %d of a %d-D Array: want -%d ≤ axis < %d (NumPy's order, outermost first)", ax, rank, rank, rank)
	return 0
}

// Shape returns the extents in NumPy's order, outermost first: the
// reverse of Extents. A 0-D Array's shape is empty.
func (a *Array[T]) Shape() []int {
	s := a.raw.Extents()
	slices.Reverse(s)
	return s
}

// extentsOf is shape in Halide's order.
func extentsOf(shape []int) []int {
	e := slices.Clone(shape)
	slices.Reverse(e)
	return e
}

// Zeros returns a zeroed, dense, device-aware Array of the given shape in
// NumPy's order (outermost first): Zeros[float32](2, 3) is New(3, 2).
func Zeros[T Elem](shape ...int) *Array[T] {
	for _, x := range shape { // else New names the extent in its own order
		if x < 0 {
			panicf(ErrShape, "shape %s: extents must be ≥ 0", pyShape(shape))
		}
	}
	return New[T](extentsOf(shape)...)
}

// Empty is Zeros without the clearing, NumPy's np.empty: the elements are
// unspecified (host memory recycled from dropped Arrays, see "Recycled
// host storage"), for a caller that writes every one of them before
// reading any, as the allocating forms of package ops do.
func Empty[T Elem](shape ...int) *Array[T] {
	for _, x := range shape {
		if x < 0 {
			panicf(ErrShape, "shape %s: extents must be ≥ 0", pyShape(shape))
		}
	}
	d := denseDims(extentsOf(shape), nil)
	return newHost[T](d, false)
}

// Full returns a dense, device-aware Array of the given shape in NumPy's
// order with every element x, filled on the host.
func Full[T Elem](x T, shape ...int) *Array[T] {
	a := Zeros[T](shape...)
	for i := range a.data {
		a.data[i] = x
	}
	return a
}

// FromValues returns a dense, device-aware Array of the given shape in
// NumPy's order holding a copy of data in row-major (C) order, like
// np.array(data).reshape(shape); no shape means one axis of len(data).
// A data length other than the shape's element count panics with
// ErrShape. FromSlice is the form that wraps data without copying.
func FromValues[T Elem](data []T, shape ...int) *Array[T] {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	a := Zeros[T](shape...)
	if len(data) != len(a.data) {
		a.Close()
		panicf(ErrShape, "%d values for shape %s (%d elements): pass exactly %d", len(data), pyShape(shape), len(a.data), len(a.data))
	}
	copy(a.data, data)
	return a
}

// FromRows returns a dense, device-aware 2-D Array holding a copy of rows,
// shape (len(rows), len(rows[0])) in NumPy's order, like np.array(rows).
// Rows of different lengths panic with ErrShape.
func FromRows[T Elem](rows [][]T) *Array[T] {
	n := 0
	if len(rows) > 0 {
		n = len(rows[0])
	}
	for i, r := range rows {
		if len(r) != n {
			panicf(ErrShape, "row %d has %d values, row 0 has %d: give every row the same length", i, len(r), n)
		}
	}
	a := Zeros[T](len(rows), n)
	for i, r := range rows {
		copy(a.data[i*n:], r)
	}
	return a
}
