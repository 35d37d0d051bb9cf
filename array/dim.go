package array

// Dim is one dimension of an Array, as in halide_dimension_t. Coordinates
// run from Min to Min+Extent-1; Stride is the distance in elements between
// neighbours along the dimension, so element (x0, x1, …) lives at
// host[Σ (xi − Min_i)·Stride_i] from the element at the min corner.
type Dim struct {
	Min, Extent, Stride int
}

// Max is the largest coordinate in the dimension.
func (d Dim) Max() int { return d.Min + d.Extent - 1 }
