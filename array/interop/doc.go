// Package interop is the index of the adapters between Arrays and the types
// Go users already hold. Each adapter lives in its own package so that
// package array stays light; import only the one you need:
//
//   - gonum: mat.Dense, mat.VecDense, blas64.General and blas64.Vector ↔
//     Array[float64], zero-copy both ways.
//   - gorgonia: gorgonia.org/tensor *tensor.Dense ↔ Array, zero-copy both
//     ways, views included (it links protobuf, arrow and gonum). Its
//     example, a gorgonia ExprGraph fed by Arrays that a Halide pipeline
//     writes, is a module of its own: cd gorgonia/example && go run .
//   - img: image.Gray, image.Gray16, image.RGBA and image.NRGBA ↔ Array,
//     zero-copy both ways, SubImages included.
//   - npy: NumPy .npy files, C and Fortran order, every element type.
//
// Conventions shared by all of them:
//
// Axis order. Foreign row-major layouts (tensor, gonum, NumPy) list their
// outermost axis first; Arrays list dimension 0, the innermost, first. So
// shapes and strides reverse: a row-major r×c matrix is an Array of extents
// (c, r), and m[i][j] is Array element (j, i). Images are (x, y) or
// (x, y, c) with c innermost in memory: Halide's interleaved layout.
//
// Shared memory. A zero-copy conversion shares host memory: a write through
// one side is seen by the other. Converting an Array takes its writable host
// view (Array.Host), which copies device data to host first when the device
// is newer and marks the host dirty, so the next device consumer uploads what
// the foreign value wrote. A later device write to the Array is not seen by
// the foreign value until the Array's host view is taken again (convert
// again, or call Host or HostReadOnly). Arrays made from foreign values are
// host-only (array.Wrap): pipelines always leave their host data current.
//
// Errors. A layout the other side cannot express is an error (wrapping the
// adapter's ErrLayout) that says which dimension or stride is the problem and
// names the fix; there is an explicit copy where one makes sense.
package interop
