package array_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
)

func ExampleLinspace() {
	fmt.Println(array.Linspace[float64](0, 1, 5)) // np.linspace(0, 1, 5)
	fmt.Println(array.Linspace[int32](0, 10, 4))  // np.linspace(0, 10, 4, dtype=np.int32)
	// Output:
	// [0.   0.25 0.5  0.75 1.  ]
	// [ 0  3  6 10]
}

func ExampleEye() {
	fmt.Println(array.Eye[float32](2, 3, 1)) // np.eye(2, 3, k=1, dtype=np.float32)
	// Output:
	// [[0. 1. 0.]
	//  [0. 0. 1.]]
}

func ExampleIdentity() {
	fmt.Println(array.Identity[int32](3)) // np.identity(3, dtype=np.int32)
	// Output:
	// [[1 0 0]
	//  [0 1 0]
	//  [0 0 1]]
}
