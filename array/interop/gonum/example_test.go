package gonum_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/gonum"
)

// A 2×3 matrix is the Array of extents (3, 2): columns first. Both share
// one memory.
func Example() {
	m := mat.NewDense(2, 3, []float64{
		1, 2, 3,
		4, 5, 6,
	})
	a, _ := gonum.FromDense(m)
	fmt.Println(a.Dims())

	h, _ := a.Host()
	h.Set(50, 1, 1) // column 1, row 1
	fmt.Println(m.At(1, 1))

	// And back: gonum computes straight into an Array's memory.
	out := array.New[float64](3, 2)
	om, _ := gonum.ToDense(out)
	om.Scale(2, m)
	v, _ := out.HostReadOnly()
	fmt.Println(v.Data())
	// Output:
	// [{0 3 1} {0 2 3}]
	// 50
	// [2 4 6 8 100 12]
}
