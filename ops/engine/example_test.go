package engine_test

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops/engine"
)

// tensor's own API on a device: a Dense of the engine lives there, every
// op runs there (kernels launched), and nothing is uploaded under the
// transfer guard. Where Linux lets the process use userfaultfd, results
// stay on the device until something reads them; without it, each call's
// results come home when it ends, so host code reading Data() sees them
// either way (doc.go). The default OpenCL device, or where there is no
// OpenCL driver a simulated device that computes (device/sim): the
// counters are the same.
func Example() {
	var dev device.Device = sim.NewCompute("sim", 0)
	if cl, err := opencl.Default(); err == nil {
		dev = cl
	}
	e := engine.New(dev)
	defer e.Close()
	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
	h, _ := engine.Host(a) // the host-only view: written here, uploaded by the first op
	copy(h.Data().([]float32), []float32{1, 2, 3, 4, 5, 6})

	start := dev.Stats()
	sq, _ := a.Mul(a) // uploads a once, then runs on the device
	fmt.Printf("first op: %d upload\n", dev.Stats().Sub(start).H2DCalls)

	before := dev.Stats()
	was := device.SetDeviceGuard(dev, true) // an automatic upload now is an error
	sums, err := sq.Sum(1)
	big, _ := sq.GtScalar(float32(10), true)
	device.SetDeviceGuard(dev, was)
	moved := dev.Stats().Sub(before)
	fmt.Printf("under the guard: %v, %d uploads, %d kernels\n", err, moved.H2DCalls, moved.Launches)

	s, _ := engine.Array[float32](e, sums)
	fmt.Println("sums on the device:", s.Device() == dev)
	fmt.Println(fmt.Sprint(engine.Formatter(sums)), fmt.Sprint(engine.Formatter(big)))
	// Output:
	// first op: 1 upload
	// under the guard: <nil>, 0 uploads, 2 kernels
	// sums on the device: true
	// [14. 77.] [[0 0 0]
	//  [1 1 1]]
}
