package gonum

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/resident-go/resident/array"
)

// fromGeneral wraps g's memory as a 2-D Array of extents (g.Cols, g.Rows)
// and strides (1, g.Stride), without copying: element (j, i) is
// g.Data[i*g.Stride+j].
func fromGeneral(g blas64.General) (*array.Array[float64], error) {
	if g.Rows < 0 || g.Cols < 0 {
		return nil, fmt.Errorf("%w: blas64.General is %d×%d: want rows and cols ≥ 0", array.ErrLayout, g.Rows, g.Cols)
	}
	if g.Rows > 1 && g.Stride < g.Cols {
		return nil, fmt.Errorf("%w: blas64.General has stride %d < cols %d: rows would overlap", array.ErrLayout, g.Stride, g.Cols)
	}
	a, err := array.Wrap(g.Data, []array.Dim{{Extent: g.Cols, Stride: 1}, {Extent: g.Rows, Stride: g.Stride}})
	if err != nil {
		return nil, fmt.Errorf("%w: blas64.General %d×%d stride %d over %d elements: %v", array.ErrLayout, g.Rows, g.Cols, g.Stride, len(g.Data), err)
	}
	return a, nil
}

// FromDense wraps m's memory (m.RawMatrix) as a 2-D Array of extents
// (cols, rows), without copying: m.At(i, j) is element (j, i). A view made
// by m.Slice maps to the matching strided Array. An empty Dense gives an
// empty Array. A blas64.General g converts as the Dense over it (var m
// mat.Dense; m.SetRawMatrix(g)).
func FromDense(m *mat.Dense) (*array.Array[float64], error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil *mat.Dense", array.ErrLayout)
	}
	return fromGeneral(m.RawMatrix())
}

// fromVector wraps v's memory as a 1-D Array of extent v.N and stride
// v.Inc, without copying: element i is v.Data[i*v.Inc].
func fromVector(v blas64.Vector) (*array.Array[float64], error) {
	if v.N < 0 {
		return nil, fmt.Errorf("%w: blas64.Vector has N = %d: want ≥ 0", array.ErrLayout, v.N)
	}
	if v.N > 1 && v.Inc <= 0 {
		return nil, fmt.Errorf("%w: blas64.Vector has Inc = %d: Arrays need a positive stride (reverse a copy instead)", array.ErrLayout, v.Inc)
	}
	inc := v.Inc
	if v.N <= 1 {
		inc = 1
	}
	a, err := array.Wrap(v.Data, []array.Dim{{Extent: v.N, Stride: inc}})
	if err != nil {
		return nil, fmt.Errorf("%w: blas64.Vector N %d Inc %d over %d elements: %v", array.ErrLayout, v.N, v.Inc, len(v.Data), err)
	}
	return a, nil
}

// FromVecDense wraps v's memory (v.RawVector) as a 1-D Array, without
// copying: v.AtVec(i) is element i. Column views (m.ColView) map to strided
// Arrays; a blas64.Vector converts as the VecDense over it
// (v.SetRawVector).
func FromVecDense(v *mat.VecDense) (*array.Array[float64], error) {
	if v == nil {
		return nil, fmt.Errorf("%w: nil *mat.VecDense", array.ErrLayout)
	}
	return fromVector(v.RawVector())
}

// toGeneral returns a blas64.General over a's host memory, without copying:
// a must be 2-D with dimension 0 contiguous (stride 1), and element (j, i)
// becomes row i, column j. It takes a's writable host view (see the package
// documentation for what that syncs).
func toGeneral(a *array.Array[float64]) (blas64.General, error) {
	if a.Rank() != 2 {
		return blas64.General{}, fmt.Errorf("%w: Array is %d-D, a matrix is 2-D (columns, rows): Slice it to 2-D first", array.ErrLayout, a.Rank())
	}
	x, y := a.Dim(0), a.Dim(1)
	if x.Extent == 0 || y.Extent == 0 {
		return blas64.General{}, fmt.Errorf("%w: Array is %d×%d: gonum matrices cannot be empty", array.ErrLayout, x.Extent, y.Extent)
	}
	if x.Extent > 1 && x.Stride != 1 {
		return blas64.General{}, fmt.Errorf("%w: dimension 0 has stride %d: gonum rows are contiguous, so dimension 0 must have stride 1 (for a transposed Array, convert a.Transpose(0, 1) and use the matrix's T(); otherwise copy it: d := array.New[float64](%d, %d); ops.Copy(d, a))", array.ErrLayout, x.Stride, x.Extent, y.Extent)
	}
	stride := y.Stride
	if y.Extent == 1 {
		stride = x.Extent // one row: its stride is never used
	}
	if stride < x.Extent {
		return blas64.General{}, fmt.Errorf("%w: dimension 1 has stride %d < extent %d of dimension 0: rows overlap", array.ErrLayout, y.Stride, x.Extent)
	}
	h, err := a.Host()
	if err != nil {
		return blas64.General{}, err
	}
	return blas64.General{Rows: y.Extent, Cols: x.Extent, Stride: stride, Data: h.Data()}, nil
}

// ToDense returns a *mat.Dense over a's host memory, without copying: a
// must be 2-D with dimension 0 contiguous (stride 1), and a 2-D Array of
// extents (c, r) becomes an r×c matrix whose m.At(i, j) is element (j,
// i); m.RawMatrix() is the blas64.General over the same memory. It takes
// a's writable host view (see the package documentation for what that
// syncs).
func ToDense(a *array.Array[float64]) (*mat.Dense, error) {
	g, err := toGeneral(a)
	if err != nil {
		return nil, err
	}
	var m mat.Dense
	m.SetRawMatrix(g)
	return &m, nil
}

// toVector returns a blas64.Vector over a's host memory, without copying:
// a must be 1-D and not empty, and its stride becomes Inc. It takes a's
// writable host view.
func toVector(a *array.Array[float64]) (blas64.Vector, error) {
	if a.Rank() != 1 {
		return blas64.Vector{}, fmt.Errorf("%w: Array is %d-D, a vector is 1-D: Slice it first", array.ErrLayout, a.Rank())
	}
	d := a.Dim(0)
	if d.Extent == 0 {
		return blas64.Vector{}, fmt.Errorf("%w: Array is empty: gonum vectors cannot be empty", array.ErrLayout)
	}
	inc := d.Stride
	if d.Extent == 1 {
		inc = 1
	}
	h, err := a.Host()
	if err != nil {
		return blas64.Vector{}, err
	}
	return blas64.Vector{N: d.Extent, Inc: inc, Data: h.Data()}, nil
}

// ToVecDense returns a *mat.VecDense over a's host memory, without
// copying: a must be 1-D and not empty, and its stride becomes the
// vector's increment (v.RawVector() is the blas64.Vector). It takes a's
// writable host view.
func ToVecDense(a *array.Array[float64]) (*mat.VecDense, error) {
	r, err := toVector(a)
	if err != nil {
		return nil, err
	}
	var v mat.VecDense
	v.SetRawVector(r)
	return &v, nil
}
