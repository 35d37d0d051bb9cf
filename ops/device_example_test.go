package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// On places the first operands of a chain on a device; the ops that
// follow run there because their operands' freshest copy is there, and
// the result stays there until the host reads it. The default OpenCL
// device, or where there is no OpenCL driver a simulated device that
// computes (device/sim): the counters say the same either way.
func ExampleOn() {
	var d device.Device = sim.NewCompute("sim", 0)
	if cl, err := opencl.Default(); err == nil {
		d = cl
	}
	a := array.New[float32](4)
	h, _ := a.Host()
	copy(h.Data(), []float32{1, 2, 3, 4})
	if err := ops.On(d, a); err != nil { // one explicit upload
		fmt.Println(err)
		return
	}
	b := array.New[float32](4)
	s0 := d.Stats()
	_ = ops.BinaryScalar(b, a, 10, ops.OpMul) // a is current on d: runs on d
	_ = ops.Binary(b, b, a, ops.OpAdd)        // b is device-dirty: runs on d
	s := d.Stats().Sub(s0)
	fmt.Println(b.Device() == d, b.DeviceDirty(), s.Launches, s.H2DCalls, s.D2HCalls)
	v, _ := b.HostReadOnly() // the one copy home
	fmt.Println(v.Data(), d.Stats().Sub(s0).D2HCalls)
	// Output:
	// true true 2 0 0
	// [11 22 33 44] 1
}
