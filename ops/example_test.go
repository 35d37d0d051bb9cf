package ops_test

import (
	"errors"
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// Binary broadcasts: a row of 3 (extents (3)) is added to each of the 2 rows
// of a 3×2 Array (extents (3, 2), dimension 0 innermost).
func ExampleBinary() {
	m := array.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	row := array.FromSlice([]float32{10, 20, 30}, 3)
	dst := array.New[float32](3, 2)
	if err := ops.Binary(dst, m, row, ops.OpAdd); err != nil {
		panic(err)
	}
	v, _ := dst.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [11 22 33 14 25 36]
}

func ExampleBinaryScalar() {
	a := array.FromSlice([]uint8{250, 1, 2}, 3)
	ops.BinaryScalar(a, a, 10, ops.OpAdd) // in place; uint8 wraps
	v, _ := a.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [4 11 12]
}

// Sum along dimension 1 (down the columns) and over everything.
func ExampleSum() {
	m := array.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	cols := array.New[float64](3)
	ops.Sum(cols, m, -2)
	v, _ := cols.HostReadOnly()
	all, _ := ops.Value(ops.Sum, m)
	arg, _ := ops.ArgMaxAll(m)
	fmt.Println(v.Data(), all, arg)
	// Output: [5 7 9] 21 [2 1]
}

// A 2×3 matrix times a 3×2 matrix. A matrix with M rows and K columns has
// extents (K, M).
func ExampleMatMul() {
	a := array.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2) // rows [1 2 3] [4 5 6]
	b := array.FromSlice([]float64{1, 0, 0, 1, 1, 1}, 2, 3) // rows [1 0] [0 1] [1 1]
	c := array.New[float64](2, 2)
	if err := ops.MatMul(c, a, b); err != nil {
		panic(err)
	}
	v, _ := c.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [4 5 10 11]
}

// Transposes are views; Copy turns one into a dense Array.
func ExampleCopy_transpose() {
	a := array.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 3, 2)
	t := array.New[int32](2, 3)
	ops.Copy(t, a.Transpose(0, 1))
	v, _ := t.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [1 4 2 5 3 6]
}

func ExampleCastSaturate() {
	f := array.FromSlice([]float32{-3.7, 0.5, 254.9, 300, 1e9}, 5)
	s := array.New[uint8](5)
	w := array.New[uint8](5)
	ops.CastSaturate(s, f)
	ops.CastWrap(w, f)
	sv, _ := s.HostReadOnly()
	wv, _ := w.HostReadOnly()
	fmt.Println(sv.Data(), wv.Data())
	// Output: [0 0 254 255 255] [253 0 254 44 0]
}

// Compare makes a uint8 mask; Where selects with it. Here: ReLU.
func ExampleWhere() {
	x := array.FromSlice([]float32{-2, 3, -1, 4}, 4)
	zero := array.FromSlice([]float32{0}, 1)
	mask := array.New[uint8](4)
	ops.CompareScalar(mask, x, 0, ops.GT)
	ops.Where(x, mask, x, zero)
	m, _ := mask.HostReadOnly()
	v, _ := x.HostReadOnly()
	fmt.Println(m.Data(), v.Data())
	// Output: [0 1 0 1] [0 3 0 4]
}

func ExampleUnary() {
	i := array.FromSlice([]int32{4, 9}, 2)
	err := ops.Unary(i, i, ops.OpSqrt)
	fmt.Println(errors.Is(err, ops.ErrUnsupported))
	h := array.FromSlice([]array.Float16{array.F16(2), array.F16(9)}, 2)
	ops.Unary(h, h, ops.OpSqrt)
	v, _ := h.HostReadOnly()
	fmt.Println(v.At(0).Float32(), v.At(1).Float32())
	// Output:
	// true
	// 1.4140625 3
}

func ExampleIota() {
	a := array.NewWithMins[int16]([]int{5, 0}, []int{3, 2})
	ops.Iota(a, -1)
	v, _ := a.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [5 6 7 5 6 7]
}
