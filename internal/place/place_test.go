package place_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/place"
)

// TestWhereMemoryOnly: the rule's error cases and a device that only
// holds memory (sim.New): work on its data runs on the host.
func TestWhereMemoryOnly(t *testing.T) {
	d1, d2 := sim.New("a", 0), sim.New("b", 0)
	defer d1.Close()
	defer d2.Close()
	on := func(d device.Device) *array.Raw {
		a := array.New[float32](4)
		if err := a.CopyToDevice(d); err != nil {
			t.Fatal(err)
		}
		return a.Raw()
	}
	a1, a2 := on(d1), on(d2)
	host := array.FromSlice([]float32{1, 2, 3, 4}, 4).Raw()
	if _, err := place.Where(nil, place.Work{Op: "x", Outputs: []*array.Raw{a1}, Inputs: []*array.Raw{a2}}); !errors.Is(err, device.ErrForeign) {
		t.Errorf("two devices: %v, want ErrForeign", err)
	}
	if _, err := place.Where(d2, place.Work{Op: "x", Inputs: []*array.Raw{a1}}); !errors.Is(err, device.ErrForeign) {
		t.Errorf("explicit other device: %v, want ErrForeign", err)
	}
	if d, err := place.Where(nil, place.Work{Op: "x", Outputs: []*array.Raw{a1}, Inputs: []*array.Raw{a1}}); d != nil || err != nil {
		t.Errorf("memory-only device: %v, %v; want the host", d, err)
	}
	if d, err := place.Where(nil, place.Work{Op: "x", Outputs: []*array.Raw{a1}, Inputs: []*array.Raw{host}, DeviceOnly: true}); d != device.Device(d1) || err != nil {
		t.Errorf("device-only work: %v, %v; want %s", d, err, d1.Name())
	}
	if d, err := place.Where(nil, place.Work{Op: "x", Inputs: []*array.Raw{host}, DeviceOnly: true}); d != nil || err != nil {
		t.Errorf("device-only work, nothing allocated: %v, %v; want nil (the caller's default)", d, err)
	}
	if d, err := place.Where(d1, place.Work{Op: "x", Inputs: []*array.Raw{host}}); d != device.Device(d1) || err != nil {
		t.Errorf("explicit: %v, %v", d, err)
	}
	d3 := sim.New("c", 0)
	d3.Close()
	if _, err := place.Where(d3, place.Work{Op: "x", Inputs: []*array.Raw{host}}); !errors.Is(err, device.ErrClosed) {
		t.Errorf("explicit closed device: %v, want ErrClosed", err)
	}
}
