package ops_test

import (
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// A device op is one launch in the device's Stats, on sim and on OpenCL;
// a host op is none.
func TestLaunchesCounted(t *testing.T) {
	devs := []device.Device{sim.NewCompute("launches", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	}
	for _, d := range devs {
		x := array.New[float32](1024)
		if err := ops.On(d, x); err != nil {
			t.Fatal(err)
		}
		before := d.Stats()
		if err := ops.BinaryScalar(x, x, 1, ops.OpAdd); err != nil {
			t.Fatal(err)
		}
		if n := d.Stats().Sub(before).Launches; n != 1 {
			t.Errorf("%s: a device AddScalar counted %d launches, want 1", d.Name(), n)
		}
		h := array.New[float32](1024)
		before = d.Stats()
		if err := ops.BinaryScalar(h, h, 1, ops.OpAdd); err != nil {
			t.Fatal(err)
		}
		if n := d.Stats().Sub(before).Launches; n != 0 {
			t.Errorf("%s: a host AddScalar counted %d launches", d.Name(), n)
		}
		x.Close()
	}
}
