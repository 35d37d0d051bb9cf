package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// MaxPool2D with a 2×2 window and stride 2 over one 4×4 image, its argmax
// (row·W + column in the image) and the gradient that sends each pooled
// gradient back to its argmax.
func ExampleMaxPool2D() {
	x := array.FromValues([]float32{
		1, 2, 0, 0,
		3, 4, 0, 9,
		5, 0, 1, 1,
		0, 6, 1, 1,
	}, 1, 1, 4, 4)
	g := ops.Pool2D{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}}
	oh, ow := g.Out(4, 4)
	y, idx := array.Zeros[float32](1, 1, oh, ow), array.Zeros[int32](1, 1, oh, ow)
	if err := ops.MaxPool2D(y, idx, x, g); err != nil {
		panic(err)
	}
	dx := array.Zeros[float32](1, 1, 4, 4)
	if err := ops.MaxPool2DBackward(dx, array.Full[float32](1, 1, 1, oh, ow), idx, g); err != nil {
		panic(err)
	}
	fmt.Println(y)
	fmt.Println(idx)
	fmt.Println(dx)
	// Output:
	// [[[[4. 9.]
	//    [6. 1.]]]]
	// [[[[ 5  7]
	//    [13 10]]]]
	// [[[[0. 0. 0. 0.]
	//    [0. 1. 0. 1.]
	//    [0. 0. 1. 0.]
	//    [0. 1. 0. 0.]]]]
}

// Im2Col of one 2-channel 3×3 image with a 2×2 window: one row per
// output position, C·2·2 columns.
func ExampleIm2Col() {
	x := array.FromValues([]float64{
		1, 2, 3, 4, 5, 6, 7, 8, 9,
		-1, -2, -3, -4, -5, -6, -7, -8, -9,
	}, 1, 2, 3, 3)
	g := ops.Conv2D{Kernel: [2]int{2, 2}}
	oh, ow := g.Out(3, 3)
	col := array.Zeros[float64](1, oh, ow, 2*2*2)
	if err := ops.Im2Col(col, x, g); err != nil {
		panic(err)
	}
	fmt.Println(col)
	// Output:
	// [[[[ 1.  2.  4.  5. -1. -2. -4. -5.]
	//    [ 2.  3.  5.  6. -2. -3. -5. -6.]]
	//
	//   [[ 4.  5.  7.  8. -4. -5. -7. -8.]
	//    [ 5.  6.  8.  9. -5. -6. -8. -9.]]]]
}
