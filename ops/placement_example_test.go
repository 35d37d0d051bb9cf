package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// The placement rule's mixed cases, on a simulated device that computes
// (the same rule runs on OpenCL): a host-only operand keeps the op on the
// host (y, current on both sides, moves nothing; a device-dirty operand
// would come home, counted); with device-aware operands whose freshest
// copy is on the device the op runs there, and a host-newer input goes up
// for it (one counted H2D).
func Example_placement() {
	d := sim.NewCompute("gpu", 0)
	defer d.Close()
	y := array.New[float32](3)
	ops.Fill(y, 1)
	_ = y.CopyToDevice(d) // y is current on d

	// A host-only operand (caller-held memory, FromSlice or Wrap): host.
	x := array.FromSlice([]float32{1, 2, 3}, 3)
	s := d.Stats()
	_ = ops.Binary(y, y, x, ops.OpMul) // runs on the host: y's result is newest there
	st := d.Stats().Sub(s)
	fmt.Println("host-only operand:", st.Launches, "launches,", st.H2DCalls, "up,", st.D2HCalls, "down; y newer on the device:", y.DeviceDirty())

	// Device-aware operands, one of them newer on the host: the device.
	_ = y.CopyToDevice(d)                    // one explicit upload: y is current on d
	_ = ops.BinaryScalar(y, y, 1, ops.OpAdd) // runs on d: y is newest there
	z := array.New[float32](3)
	h, _ := z.Host()
	copy(h.Data(), []float32{10, 20, 30})
	s = d.Stats()
	_ = ops.Binary(y, y, z, ops.OpAdd) // y's freshest copy is on d: z goes up once
	st = d.Stats().Sub(s)
	fmt.Println("host-newer input:", st.Launches, "launch,", st.H2DCalls, "up,", st.D2HCalls, "down; y newer on the device:", y.DeviceDirty())
	v, _ := y.HostReadOnly() // the one copy home
	fmt.Println(v.Data())
	// Output:
	// host-only operand: 0 launches, 0 up, 0 down; y newer on the device: false
	// host-newer input: 1 launch, 1 up, 0 down; y newer on the device: true
	// [12 23 34]
}
