package engine_test

import (
	"fmt"
	"strings"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops/engine"
)

// tensor's own API on a device: a Dense of the engine lives there, every
// op runs there (its result is device-dirty: newer on the device than on
// the host), nothing moves under the transfer guard, and printing is the
// one counted copy home. Were the ops run on the host, the results would
// not be device-dirty and printing would copy nothing. The default OpenCL
// device, or where there is no OpenCL driver a simulated device that
// computes (device/sim): the counters are the same.
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
	was := device.SetDeviceGuard(dev, true) // any automatic transfer to or from dev now is an error
	sums, err := sq.Sum(1)
	big, _ := sq.GtScalar(float32(10), true)
	text := fmt.Sprint(engine.Formatter(sums)) // refused: printing needs a copy home
	fmt.Println(err, "print refused:", strings.Contains(text, device.ErrTransferGuard.Error()))
	device.SetDeviceGuard(dev, was)
	moved := dev.Stats().Sub(before)
	fmt.Printf("under the guard: %d uploads, %d downloads\n", moved.H2DCalls, moved.D2HCalls)

	s, _ := engine.Array[float32](e, sums)
	fmt.Println("sums on the device:", s.Device() == dev, "device-dirty:", s.DeviceDirty())

	before = dev.Stats()
	fmt.Println(fmt.Sprint(engine.Formatter(sums)), fmt.Sprint(engine.Formatter(big)))
	fmt.Printf("printing: %d downloads\n", dev.Stats().Sub(before).D2HCalls)
	// Output:
	// first op: 1 upload
	// <nil> print refused: true
	// under the guard: 0 uploads, 0 downloads
	// sums on the device: true device-dirty: true
	// [14. 77.] [[0 0 0]
	//  [1 1 1]]
	// printing: 2 downloads
}
