package halide_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// halide.Move opts an Array on another device into the move: its
// device-dirty data comes home (counted on that device) and the call runs;
// under the transfer guard the move is refused before anything moves.
func TestMoveOptIn(t *testing.T) {
	dev := clDevice(t)
	const w, h = 16, 16
	src := pattern(w, h)
	sd := sim.New("other", 0)
	in, out := array.New[uint8](w, h), array.New[uint8](w, h)
	hv, _ := in.Host()
	copy(hv.Data(), src)
	if err := in.CopyToDevice(sd); err != nil {
		t.Fatal(err)
	}
	in.SetDeviceDirty(true)
	was := guard.Set(true)
	err := brighter.Brighter(halide.Move(in), 2, out)
	guard.Set(was)
	if !errors.Is(err, device.ErrTransferGuard) || sd.Stats().D2HCalls != 0 {
		t.Fatalf("guarded move: %v, %v", err, sd.Stats())
	}
	if err := brighter.Brighter(halide.Move(in), 2, out); err != nil {
		t.Fatal(err)
	}
	if s := sd.Stats(); s.D2HCalls != 1 || s.AllocsLive != 0 || in.Device() != device.Device(dev) {
		t.Errorf("after the move: %v, input on %v", s, in.Device())
	}
	v, _ := out.HostReadOnly()
	checkImage(t, v.Data(), src, 2)
}

// An empty Array is never a bounds query: Halide gets a real host pointer,
// checks the bounds and refuses, instead of returning success having
// computed nothing.
func TestEmptyArrayNotBoundsQuery(t *testing.T) {
	for _, p := range []*halide.Pipeline{brighter.BrighterHostPipeline, brighter.BrighterPipeline} {
		t.Run(p.Name(), func(t *testing.T) {
			if p.API() == "OpenCL" {
				clDevice(t)
			}
			empty := array.New[uint8](0, 0)
			out := array.New[uint8](31, 15)
			err := p.Call(empty, uint8(1), out)
			if !errors.Is(err, halide.ErrAccessOutOfBounds) {
				t.Fatalf("empty input for a 31×15 output: %v, want access_out_of_bounds", err)
			}
			if d := empty.Dims(); d[0].Extent != 0 || d[1].Extent != 0 {
				t.Fatalf("the empty Array's dims changed: %v", d)
			}
			// An empty output with an empty input is a real call that
			// computes nothing.
			if err := p.Call(empty, uint8(1), array.New[uint8](0, 0)); err != nil {
				t.Fatalf("empty in, empty out: %v", err)
			}
		})
	}
}
