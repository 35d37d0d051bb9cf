package ops_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// A device's own transfer guard (device.SetDeviceGuard) refuses the
// automatic copies ops and host views would make to or from that device,
// and leaves other devices alone.
func TestDeviceGuard(t *testing.T) {
	d, other := sim.NewCompute("guarded", 0), sim.NewCompute("free", 0)
	defer d.Close()
	defer other.Close()
	mk := func(dev device.Device) (*array.Array[float32], *array.Array[float32]) {
		x, y := array.New[float32](4), array.New[float32](4)
		if err := ops.On(dev, x, y); err != nil {
			t.Fatal(err)
		}
		if err := ops.Fill(x, 2); err != nil { // device-dirty on dev
			t.Fatal(err)
		}
		h, err := y.Host() // host-newer: the next device op uploads it
		if err != nil {
			t.Fatal(err)
		}
		h.Fill(3)
		return x, y
	}
	gx, gy := mk(d)
	fx, fy := mk(other)
	device.SetDeviceGuard(d, true)
	defer device.SetDeviceGuard(d, false)
	before := d.Stats()
	if _, err := gx.HostReadOnly(); !errors.Is(err, device.ErrTransferGuard) {
		t.Errorf("host view of a device-dirty Array on a guarded device: %v, want ErrTransferGuard", err)
	}
	if err := ops.Binary(gx, gx, gy, ops.OpAdd); !errors.Is(err, device.ErrTransferGuard) {
		t.Errorf("op uploading a host-newer operand to a guarded device: %v, want ErrTransferGuard", err)
	}
	if s := d.Stats().Sub(before); s.H2DCalls != 0 || s.D2HCalls != 0 {
		t.Errorf("the guarded device moved data: %v", s)
	}
	if err := ops.Binary(fx, fx, fy, ops.OpAdd); err != nil {
		t.Errorf("another device's op: %v", err)
	}
	if v, err := fx.HostReadOnly(); err != nil || v.At(0) != 5 {
		t.Errorf("another device's host view: %v", err)
	}
}
