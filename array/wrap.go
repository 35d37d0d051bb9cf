package array

import (
	"fmt"
	"slices"
)

// Wrap wraps data, memory the caller holds, as a host-only Array with the
// given layout, without copying: the counterpart of Halide's
// Buffer(T *data, int dims, const halide_dimension_t *shape). Element
// (x0, x1, …) is data[Σ (xi − dims[i].Min)·dims[i].Stride]. The layout is
// checked: extents and strides ≥ 0, no arithmetic overflow, every element
// inside data, and no two elements at one address.
func Wrap[T Elem](data []T, dims []Dim) (*Array[T], error) {
	if err := checkLayout(dims, len(data)); err != nil {
		return nil, err
	}
	return newArray(data, slices.Clone(dims), true), nil
}

// checkLayout reports a layout that does not fit n elements of storage
// without overlap.
func checkLayout(dims []Dim, n int) error {
	order := make([]int, len(dims))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return dims[a].Stride - dims[b].Stride })
	span := 1 // elements the inner dimensions reach
	for _, i := range order {
		d := dims[i]
		if d.Extent < 0 || d.Stride < 0 {
			return fmt.Errorf("%w: dimension %d has extent %d, stride %d: want both ≥ 0", ErrShape, i, d.Extent, d.Stride)
		}
		if d.Extent == 0 {
			return nil
		}
		if d.Min > maxInt-d.Extent {
			return fmt.Errorf("%w: dimension %d: min %d + extent %d overflows int", ErrShape, i, d.Min, d.Extent)
		}
		if d.Extent > 1 && d.Stride < span {
			return fmt.Errorf("%w: dimension %d (stride %d) overlaps the dimensions inside it (span %d): strides must not alias", ErrShape, i, d.Stride, span)
		}
		reach := (d.Extent - 1)
		if d.Stride != 0 && reach > (maxInt-span)/d.Stride {
			return fmt.Errorf("%w: dimension %d: extent %d × stride %d overflows int", ErrShape, i, d.Extent, d.Stride)
		}
		span += reach * d.Stride
	}
	if span > n {
		return fmt.Errorf("%w: layout reaches %d elements, storage holds %d", ErrOutOfRange, span, n)
	}
	return nil
}

const maxInt = int(^uint(0) >> 1)
