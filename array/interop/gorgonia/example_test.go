package gorgonia_test

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
)

// A row-major (2, 3) Dense is the Array of extents (3, 2); both share one
// memory, and a transposed Array is a lazily transposed Dense.
func Example() {
	d := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6}))
	a, _ := rg.FromDense[float32](d)
	fmt.Println(a.Dims())

	h, _ := a.Host()
	h.Set(60, 2, 1) // Dense (1, 2)
	fmt.Println(d.At(1, 2))

	t, _ := rg.ToDense(a.Transpose(0, 1))
	fmt.Println(t.Shape(), t.Strides())

	_, err := rg.ToDense(a.Crop(0, 0, 2))
	fmt.Println(err != nil)
	c, _ := rg.ToDenseCopy(a.Crop(0, 0, 2))
	fmt.Println(c.Shape(), c.Data())
	// Output:
	// [{0 3 1} {0 2 3}]
	// 60 <nil>
	// (3, 2) [1 3]
	// true
	// (2, 2) [1 2 4 5]
}

// Arrays of any element type tensor knows come back typed from
// FromDenseAny.
func ExampleFromDenseAny() {
	d := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]uint8{1, 2, 3, 4}))
	b, _ := rg.FromDenseAny(d)
	a := b.(*array.Array[uint8])
	v, _ := a.HostReadOnly()
	fmt.Println(a.Dims(), v.At(0, 1))
	// Output: [{0 2 1} {0 2 2}] 3
}
