// Package gorgonia converts between gorgonia.org/tensor's *tensor.Dense and
// Arrays, without copying, both ways. It is its own package because tensor
// links protobuf, arrow and gonum; package array stays light.
//
// Axis order. A Dense is row-major — its last axis is innermost — and an
// Array lists dimension 0, the innermost, first, so shapes and strides
// reverse: a Dense of shape (2, 3, 4) and strides (12, 4, 1) is the Array
// of extents (4, 3, 2) and strides (1, 4, 12), and d.At(i, j, k) is Array
// element (k, j, i). A scalar Dense is a 0-D Array.
//
// Views. FromDense maps a view of a Dense (d.Slice, with steps too, and the
// lazy transpose d.T) to the Array view with the same strides over the same
// memory. ToDense maps a dense Array to a plain Dense and any permutation of
// one (Transpose, Permute) to a Dense transposed with T over the same
// memory. A tensor.Dense cannot address other strided layouts — a crop of a
// larger Array, a slice with a step — without its parent: ToDense returns an
// error wrapping array.ErrLayout that says so, and ToDenseCopy is the explicit
// copy. (Converting the parent and slicing the Dense with d.Slice keeps it
// zero-copy.)
//
// Element types map one to one: int8 … int64, uint8 … uint64, float32 and
// float64 are tensor.Int8 … tensor.Float64. Array's Float16 and BFloat16
// have no tensor Dtype, and tensor's Int, Uint, Bool, Complex64/128, String
// and pointer Dtypes have no Array element type: converting them is an error
// wrapping array.ErrType that names the type.
//
// Sharing. A write through one side is seen by the other. ToDense takes
// the Array's writable host view (Array.Host): device data is copied to host
// first when it is newer and the Array is marked host dirty, so the next
// device consumer uploads what tensor wrote. A later device write to the
// Array is not seen by the Dense until the Array's host view is taken again
// (convert again, or call Host or HostReadOnly). Arrays made by FromDense
// are host-only (array.Wrap): pipelines always leave their data current.
// Dense operations that move data in place (d.Transpose, which materializes
// a lazy transpose) break the correspondence of layouts; an Array made
// before then addresses the old layout.
package gorgonia
