package ops_test

import (
	"fmt"
	"math"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// OpRound rounds halves to even, as NumPy's round does; OpFloor, OpCeil
// and OpTrunc are the other directions.
func ExampleUnary_rounding() {
	a := array.FromSlice([]float32{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5}, 6)
	dst := array.New[float32](6)
	for _, op := range []ops.UnaryOp{ops.OpRound, ops.OpFloor, ops.OpTrunc} {
		if err := ops.Unary(dst, a, op); err != nil {
			panic(err)
		}
		v, _ := dst.HostReadOnly()
		fmt.Println(v.Data())
	}
	// Output:
	// [-2 -2 -0 0 2 2]
	// [-3 -2 -1 0 1 2]
	// [-2 -1 -0 0 1 2]
}

// OpMod is floored, like NumPy's mod and Python's %: the result has the
// divisor's sign. Integer x mod 0 is 0; float x mod 0 is NaN.
func ExampleBinary_mod() {
	a := array.FromSlice([]int32{7, -7, 7, -7, 5}, 5)
	b := array.FromSlice([]int32{3, 3, -3, -3, 0}, 5)
	dst := array.New[int32](5)
	if err := ops.Binary(dst, a, b, ops.OpMod); err != nil {
		panic(err)
	}
	v, _ := dst.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [1 2 -2 -1 0]
}

// Clip limits to [lo, hi]; IsNaN writes a uint8 mask, as Compare does.
func ExampleClip() {
	a := array.FromSlice([]float64{-3, 0.5, 7, math.NaN()}, 4)
	dst := array.New[float64](4)
	mask := array.New[uint8](4)
	if err := ops.Clip(dst, a, 0, 1); err != nil {
		panic(err)
	}
	if err := ops.IsNaN(mask, dst); err != nil {
		panic(err)
	}
	v, _ := dst.HostReadOnly()
	m, _ := mask.HostReadOnly()
	fmt.Println(v.Data(), m.Data())
	// Output: [0 0.5 1 NaN] [0 0 0 1]
}
