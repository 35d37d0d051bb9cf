package array_test

import (
	"errors"
	"fmt"

	"github.com/resident-go/resident/array"
)

// The Examples of the NumPy table in the package documentation, one per
// row; each prints what NumPy prints for its expression.

func ExampleZeros() {
	a := array.Zeros[float32](2, 3) // np.zeros((2, 3), np.float32)
	fmt.Println(a)
	// Output:
	// [[0. 0. 0.]
	//  [0. 0. 0.]]
}

func ExampleEmpty() {
	a := array.Empty[float32](2, 3) // np.empty((2, 3), np.float32): write every element before reading
	v, _ := a.Host()
	v.Fill(1)
	fmt.Println(a)
	// Output:
	// [[1. 1. 1.]
	//  [1. 1. 1.]]
}

func ExampleFull() {
	fmt.Println(array.Full[int32](7, 2, 2)) // np.full((2, 2), 7, np.int32)
	// Output:
	// [[7 7]
	//  [7 7]]
}

func ExampleFromRows() {
	a := array.FromRows([][]float64{{1, 2, 3}, {4, 5, 6}}) // np.array([[1., 2, 3], [4, 5, 6]])
	fmt.Println(a, a.Shape(), a.Extents())
	// Output:
	// [[1. 2. 3.]
	//  [4. 5. 6.]] [2 3] [3 2]
}

func ExampleFromValues() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5}, 3, 2) // np.array([0, …, 5]).reshape(3, 2)
	fmt.Println(a)
	// Output:
	// [[0 1]
	//  [2 3]
	//  [4 5]]
}

func ExampleArray_Shape() {
	a := array.New[float32](4, 3, 2) // extents, dimension 0 innermost
	fmt.Println(a.Shape())           // a.shape
	// Output: [2 3 4]
}

func ExampleArray_Rank() {
	fmt.Println(array.Zeros[uint8](2, 3, 4).Rank()) // a.ndim
	// Output: 3
}

func ExampleArray_Len() {
	fmt.Println(array.Zeros[uint8](2, 3, 4).Len()) // a.size
	// Output: 24
}

func ExampleArray_DimOf() {
	a := array.Zeros[float32](2, 3, 4)
	// NumPy's axis=-1 (the innermost) is dimension 0; axis 0 is dimension 2.
	fmt.Println(a.DimOf(-1), a.DimOf(0), a.Dim(a.DimOf(0)).Extent)
	// Output: 0 2 2
}

func ExampleArray_Reshape() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5}, 6)
	b, err := a.Reshape(3, -1) // a.reshape(3, -1): a view, sharing memory
	if err != nil {
		panic(err)
	}
	fmt.Println(b)
	// Output:
	// [[0 1]
	//  [2 3]
	//  [4 5]]
}

func ExampleArray_Index() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)
	fmt.Println(a.Index(array.R(1, 3), array.From(-2))) // a[1:3, -2:]: a view
	fmt.Println(a.Index(array.All, array.I(1)))         // a[:, 1]
	// Output:
	// [[ 6  7]
	//  [10 11]]
	// [1 5 9]
}

func ExampleArray_Transpose_numpyT() {
	a := array.FromRows([][]int32{{1, 2, 3}, {4, 5, 6}})
	fmt.Println(a.Transpose(0, 1)) // a.T: a view
	// Output:
	// [[1 4]
	//  [2 5]
	//  [3 6]]
}

func ExampleArray_Squeeze() {
	a := array.Zeros[int32](1, 3, 1)
	fmt.Println(a.Squeeze().Shape()) // np.squeeze(a).shape
	// Output: [3]
}

func ExampleArray_ExpandDims() {
	a := array.FromValues([]int32{1, 2, 3})
	fmt.Println(a.ExpandDims(0), a.ExpandDims(-1).Shape()) // np.expand_dims(a, 0)
	// Output: [[1 2 3]] [3 1]
}

func ExampleArray_Split() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5}, 2, 3)
	for _, p := range a.Split(3, -1) { // np.split(a, 3, axis=-1): views
		fmt.Println(p.Shape(), p.Index(array.All, array.I(0)))
	}
	// Output:
	// [2 1] [0 3]
	// [2 1] [1 4]
	// [2 1] [2 5]
}

func ExampleArray_BroadcastTo() {
	a := array.FromValues([]int32{1, 2, 3})
	b, _ := a.BroadcastTo(2, 3) // np.broadcast_to(a, (2, 3)): a read-only view
	fmt.Println(b, b.Dims())
	_, err := b.Host() // writes are refused: write a, or a copy
	fmt.Println(errors.Is(err, array.ErrReadOnly))
	h, _ := a.Host()
	h.Set(7, 1) // the view shares a's memory
	fmt.Println(b)
	// Output:
	// [[1 2 3]
	//  [1 2 3]] [{0 3 1} {0 2 0}]
	// true
	// [[1 7 3]
	//  [1 7 3]]
}
