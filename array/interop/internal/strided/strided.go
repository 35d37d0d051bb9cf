// Package strided walks strided Array layouts for the interop packages,
// which copy them out row by row.
package strided

import (
	"iter"

	"github.com/resident-go/resident/array"
)

// Rows yields the offset of the first element of each dimension-0 row of a
// non-empty layout, dimension 1 fastest: the order in which the rows' elements
// follow one another with dimension 0 fastest. A 0-D layout has one row, at
// offset 0.
func Rows(dims []array.Dim) iter.Seq[int] {
	return func(yield func(int) bool) {
		coords := make([]int, len(dims)) // of dimensions 1…n-1, from 0
		off := 0                         // offset of (0, coords[1:]…)
		for {
			if !yield(off) {
				return
			}
			k := 1
			for ; k < len(dims); k++ {
				coords[k]++
				off += dims[k].Stride
				if coords[k] < dims[k].Extent {
					break
				}
				off -= coords[k] * dims[k].Stride
				coords[k] = 0
			}
			if k >= len(dims) {
				return
			}
		}
	}
}
