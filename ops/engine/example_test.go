package engine_test

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

// tensor's own API on a device: the Denses stay there between operations,
// and Host brings the result home.
func Example() {
	dev, err := opencl.Default()
	if err != nil {
		fmt.Println(err) // make test installs PoCL: CI always has a device
		return
	}
	e := engine.New(dev)
	defer e.Close()
	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
	h, _ := engine.Host(a) // the host-only view: written here, uploaded by the first op
	copy(h.Data().([]float32), []float32{1, 2, 3, 4, 5, 6})

	sq, _ := a.Mul(a) // uploads a once, then runs on the device
	before := dev.Stats()
	was := device.SetGuard(true) // any transfer now is an error
	sums, err := sq.Sum(1)
	device.SetGuard(was)
	moved := dev.Stats().Sub(before)

	out, _ := engine.Host(sums)
	fmt.Printf("%v on the device: %d uploads after the first, %d downloads\n", out.Data(), moved.H2DCalls, moved.D2HCalls)
	// Output: [14 77] on the device: 0 uploads after the first, 0 downloads
}
