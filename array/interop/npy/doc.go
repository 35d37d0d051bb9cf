// Package npy reads and writes NumPy .npy files (format versions 1.0, 2.0
// and 3.0) as Arrays: C and Fortran order, every Array element type.
//
// Axis order. NumPy lists the outermost axis first and an Array lists
// dimension 0, the innermost, first, so shapes reverse: a file of shape
// (2, 3) is an Array of extents (3, 2), and NumPy's a[i, j] is Array
// element (j, i). A C-order file reads as a dense Array (dimension 0 stride
// 1); a Fortran-order file reads without reordering as the Array with the
// matching strides (dimension 0 outermost in memory). Write picks the order
// that matches the Array's memory — C order for dense Arrays, Fortran order
// for their full reversal (a.Permute(n-1, …, 0)) — and writes any other
// layout (crops, other permutations) in C order, element by element. An
// interleaved image (x, y, c) is NumPy's (c, y, x); write
// a.Permute(2, 0, 1) to get the usual (height, width, channels). Array mins
// are not stored: read Arrays start at 0.
//
// Element types. Files are written little-endian; big-endian files are
// read too (the bytes are swapped on reading). The dtypes are
//
//	int8 |i1   int16 <i2   int32 <i4   int64 <i8
//	uint8 |u1  uint16 <u2  uint32 <u4  uint64 <u8
//	Float16 <f2   float32 <f4   float64 <f8
//	BFloat16 |V2
//	uint8 as bool |b1 (read as 0 and 1; written by WriteBool)
//
// NumPy has no bfloat16: ml_dtypes' bfloat16 arrays save as the 2-byte void
// dtype |V2, which is what Write writes and what Read and ReadAny read as
// BFloat16 (in NumPy, a.view(ml_dtypes.bfloat16) or a.view('<u2') for the
// bits). NumPy's bool reads as uint8 (any non-zero byte as 1), the mask
// type of package ops; WriteBool writes a uint8 Array as bool. Other
// dtypes (complex, strings, objects, structured dtypes) are errors that
// name the dtype.
//
// Why not github.com/sbinet/npyio: it writes C order only, has no float16
// or bfloat16, and allocates the element count a header claims before it
// reads any data. This package is small, allocates as data arrives, and
// returns an error — never a panic — for a truncated file, a bad header or
// an unsupported dtype (FuzzRead checks that).
package npy
