package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// ExampleRandUniform: element i of the fill (row order) is element
// offset+i of the seed's stream, so a fill can continue another, and a
// view of any layout takes the stream in its own row order.
func ExampleRandUniform() {
	a := array.New[float32](6)
	_ = ops.RandUniform(a, 42, 0)
	b := array.New[float32](3)
	_ = ops.RandUniform(b, 42, 3) // continues a's stream at element 3
	va, _ := a.HostReadOnly()
	vb, _ := b.HostReadOnly()
	fmt.Printf("%.4f\n%.4f\n", va.Data(), vb.Data())
	// Output:
	// [0.6130 0.4686 0.0732 0.3409 0.9877 0.3271]
	// [0.3409 0.9877 0.3271]
}

// ExampleRandNormal: a fill on a device gives the host's bits; here the
// Array lives on the simulator, so the fill runs there (one launch, no
// transfer).
func ExampleRandNormal() {
	d := sim.NewCompute("gpu", 0)
	defer d.Close()
	dev := array.New[float64](2, 2)
	_ = ops.On(d, dev)
	_ = ops.RandNormal(dev, 7, 0)
	host := array.New[float64](2, 2)
	_ = ops.RandNormal(host, 7, 0)
	eq, _ := array.Equal(dev, host)
	v, _ := host.HostReadOnly()
	fmt.Println(d.Runs(), eq)
	fmt.Printf("%.4f\n", v.Data())
	// Output:
	// 1 true
	// [0.6511 0.3887 0.6532 -0.1771]
}
