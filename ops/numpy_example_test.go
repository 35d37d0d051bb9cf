package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// The Examples of the NumPy table in package array's documentation, one
// per row that package ops answers; each prints what NumPy prints.

func ExampleArange() {
	a, _ := ops.Arange[int32](5) // np.arange(5)
	fmt.Println(a)
	// Output: [0 1 2 3 4]
}

func ExampleReshape() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5}, 2, 3)
	b, _ := ops.Reshape(a.Transpose(0, 1), -1) // a.T.reshape(-1): a copy, a.T is not contiguous
	fmt.Println(b)
	// Output: [0 3 1 4 2 5]
}

func ExampleIndex() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)
	b, _ := ops.Index(a, array.All.Step(2), array.All.Step(-1)) // a[::2, ::-1]: a copy
	fmt.Println(b)
	// Output:
	// [[ 3  2  1  0]
	//  [11 10  9  8]]
}

func ExampleConcatenate() {
	a := array.FromRows([][]int32{{1, 2}, {3, 4}})
	b := array.FromRows([][]int32{{5, 6}})
	c, _ := ops.Concatenate(0, a, b) // np.concatenate([a, b], axis=0)
	fmt.Println(c)
	// Output:
	// [[1 2]
	//  [3 4]
	//  [5 6]]
}

func ExampleStack() {
	a := array.FromValues([]int32{1, 2, 3})
	b := array.FromValues([]int32{4, 5, 6})
	c, _ := ops.Stack(-1, a, b) // np.stack([a, b], axis=-1)
	fmt.Println(c)
	// Output:
	// [[1 4]
	//  [2 5]
	//  [3 6]]
}

func ExampleFlip() {
	a := array.FromRows([][]int32{{1, 2, 3}, {4, 5, 6}})
	b, _ := ops.Flip(a, -1) // np.flip(a, -1)
	fmt.Println(b)
	// Output:
	// [[3 2 1]
	//  [6 5 4]]
}

func ExampleBroadcastTo() {
	a := array.FromValues([]int32{1, 2, 3})
	b, _ := ops.BroadcastTo(a, 2, 3) // np.broadcast_to(a, (2, 3)).copy(): writable
	fmt.Println(b)
	// Output:
	// [[1 2 3]
	//  [1 2 3]]
}

func ExampleNew2() {
	a := array.FromRows([][]float32{{1, 2, 3}, {4, 5, 6}})
	b := array.FromValues([]float32{10, 20, 30})
	c, _ := ops.New2Op(ops.Binary, a, b, ops.OpAdd) // a + b, b broadcast along the rows
	fmt.Println(c)
	// Output:
	// [[11. 22. 33.]
	//  [14. 25. 36.]]
}

// On a device the result is made there: no transfer until it is read.
func ExampleNew2_device() {
	d := sim.NewCompute("gpu", 0)
	a := array.FromValues([]float32{1, 2, 3})
	x, _ := ops.Clone(d, a)
	before := d.Stats()
	y, _ := ops.New2Op(ops.Binary, x, x, ops.OpMul)
	s := d.Stats().Sub(before)
	fmt.Println(y.Device() == d, s.H2DCalls, s.D2HCalls, s.Launches)
	fmt.Println(y) // the one download
	// Output:
	// true 0 0 1
	// [1. 4. 9.]
}

func ExampleNewScalarOp() {
	a := array.FromValues([]float32{1, 2, 3})
	b, _ := ops.NewScalarOp(ops.BinaryScalar, a, 2, ops.OpMul) // a * 2
	fmt.Println(b)
	// Output: [2. 4. 6.]
}

func ExampleNew1() {
	a := array.FromValues([]float64{1, 4, 9})
	b, _ := ops.New1Op(ops.Unary, a, ops.OpSqrt) // np.sqrt(a)
	fmt.Println(b)
	// Output: [1. 2. 3.]
}

func ExampleNew1_astype() {
	a := array.FromValues([]float32{1.5, -2.5, 3})
	b, _ := ops.New1(ops.CastWrap[int32, float32], a) // a.astype(np.int32)
	fmt.Println(b)
	// Output: [ 1 -2  3]
}

func ExampleNew1_copy() {
	a := array.FromValues([]int32{1, 2, 3})
	b, _ := ops.New1(ops.Copy, a) // a.copy()
	fmt.Println(b)
	// Output: [1 2 3]
}

func ExampleNew2Op() {
	a := array.FromValues([]float32{1, 5, 3})
	b := array.FromValues([]float32{2, 2, 3})
	c, _ := ops.New2Op(ops.Compare, a, b, ops.LT) // a < b, as uint8
	fmt.Println(c)
	// Output: [1 0 0]
}

func ExampleNewWhere() {
	c := array.FromValues([]uint8{1, 0, 1})
	a := array.FromValues([]float32{1, 2, 3})
	b := array.FromValues([]float32{-1, -2, -3})
	r, _ := ops.NewWhere(c, a, b) // np.where(c, a, b)
	fmt.Println(r)
	// Output: [ 1. -2.  3.]
}

func ExampleNewReduce() {
	a := array.FromRows([][]float32{{1, 2, 3}, {4, 5, 6}})
	s, _ := ops.NewReduce(ops.Sum, a, -1) // a.sum(axis=-1)
	fmt.Println(s)
	// Output: [ 6. 15.]
}

func ExampleNewReduce_argmax() {
	a := array.FromRows([][]float32{{1, 9, 3}, {7, 5, 6}})
	i, _ := ops.NewReduce(ops.ArgMax, a, 1) // a.argmax(axis=1)
	fmt.Println(i)
	// Output: [1 0]
}

func ExampleNewMatMul() {
	a := array.FromRows([][]float32{{1, 2}, {3, 4}, {5, 6}}) // shape (3, 2)
	b := array.FromRows([][]float32{{1, 0, 1}, {0, 1, 1}})   // shape (2, 3)
	c, _ := ops.NewMatMul(a, b)                              // a @ b, shape (3, 3)
	fmt.Println(c)
	// Output:
	// [[ 1.  2.  3.]
	//  [ 3.  4.  7.]
	//  [ 5.  6. 11.]]
}

// Value reduces over every element, NumPy's axis=None; ArgMax's is the
// flat index in C order, as NumPy's, on views too.
func ExampleValue() {
	a := array.FromRows([][]float32{{1, 9}, {3, 4}})
	s, _ := ops.Value(ops.Sum, a)                    // a.sum()
	i, _ := ops.Value(ops.ArgMax, a)                 // a.argmax()
	j, _ := ops.Value(ops.ArgMax, a.Transpose(0, 1)) // a.T.argmax()
	sd, _ := ops.ValueOp(ops.Std, a, 1)              // a.std(ddof=1)
	any, _ := ops.Value(ops.Any, a)                  // a.any()
	fmt.Println(s, i, j, sd, any)
	// Output: 17 1 2 3.4034297 1
}

// np.einsum: a matrix product, a trace and an outer product in NumPy's
// subscripts.
func ExampleEinsum() {
	a := array.FromValues([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := array.FromValues([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	ab, _ := ops.Einsum("ij,jk->ik", a, b)
	fmt.Println(ab)
	tr, _ := ops.Einsum("ii", ab)
	fmt.Println(tr)
	outer, _ := ops.Einsum("i,j", array.FromValues([]int32{1, 2}, 2), array.FromValues([]int32{1, 10, 100}, 3))
	fmt.Println(outer)
	// Output:
	// [[ 4.  5.]
	//  [10. 11.]]
	// 15.0
	// [[  1  10 100]
	//  [  2  20 200]]
}
