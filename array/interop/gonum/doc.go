// Package gonum converts between gonum's row-major float64 matrices and
// vectors (mat.Dense, mat.VecDense, and through them blas64.General and
// blas64.Vector: RawMatrix, SetRawMatrix) and Array[float64], without
// copying.
//
// A row-major r×c matrix with row stride s is the 2-D Array of extents
// (c, r) and strides (1, s): dimension 0 runs along a row, so m.At(i, j) is
// the Array element (j, i). a.Transpose(0, 1) is the (row, column) view of
// the same memory. A vector with increment inc is the 1-D Array of stride
// inc. Submatrices (m.Slice) and vector views (m.ColView, v.SliceVec) map
// to the matching strided Arrays.
//
// Every conversion shares memory: a write through the gonum value is seen
// through the Array's host view and the other way round. To* functions take
// the Array's writable host view (Array.Host): device data is copied to host
// first when it is newer, and the Array is marked host dirty so the next
// device consumer uploads what gonum wrote. Later device writes to the
// Array are not seen by the gonum value until the host view is taken again.
// Array mins are not kept: gonum indices start at 0.
//
// Layouts gonum cannot express — dimension 0 not contiguous (a transposed
// Array), a rank other than 2 for matrices or 1 for vectors, an empty Array
// — are errors wrapping array.ErrLayout that name the fix; a gonum value with an
// invalid stride is rejected the same way.
package gonum
