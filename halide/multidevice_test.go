package halide_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// A pipeline runs on the device its Arrays live on; Arrays on two devices
// are refused until the caller moves one (MoveTo: a direct copy within one
// context); nothing moves on its own.
func TestPipelineRunsWhereDataIs(t *testing.T) {
	clDevice(t)
	d0, d1 := opencltest.Halves(t)
	runWhereDataIs(t, d0, d1, device.PathDirect)
}

// The same across platforms: PoCL's CPU device and a GPU (NVIDIA's on the
// H200 machine), each in its own context, so MoveTo stages through pinned
// host memory. Skips without a GPU.
func TestPipelineCPUAndGPU(t *testing.T) {
	clDevice(t)
	cpu, gpu := opencltest.CPUAndGPU(t)
	runWhereDataIs(t, gpu, cpu, device.PathStaged)
}

// runWhereDataIs runs brighter on d1, where its input lives, is refused
// with an output on d0, then moves the result to d0 by path and runs
// there.
func runWhereDataIs(t *testing.T, d0, d1 *opencl.Device, path device.Path) {
	const w, h = 64, 32
	src := pattern(w, h)
	in := array.New[uint8](w, h)
	hv, _ := in.Host()
	copy(hv.Data(), src)
	if err := in.CopyToDevice(d1); err != nil {
		t.Fatal(err)
	}
	out := array.New[uint8](w, h)
	was := guard.Set(true)
	err := brighter.Brighter(in, 2, out) // runs on d1, where in lives
	guard.Set(was)
	if err != nil {
		t.Fatal(err)
	}
	if out.Device() != device.Device(d1) || !out.DeviceDirty() {
		t.Fatalf("output on %v (dirty %v), want device-dirty on %s", out.Device(), out.DeviceDirty(), d1.Name())
	}

	// out on d1 and a new output placed on d0: mixing is an error.
	other := array.New[uint8](w, h)
	if err := other.DeviceMalloc(d0); err != nil {
		t.Fatal(err)
	}
	before0, before1 := d0.Stats(), d1.Stats()
	err = brighter.Brighter(out, 1, other)
	var he *halide.Error
	if !errors.As(err, &he) || he.Code != int(halide.ErrForeignDevice) || !errors.Is(err, device.ErrForeign) {
		t.Fatalf("Arrays on two devices: %v, want ErrForeignDevice", err)
	}
	if s0, s1 := d0.Stats().Sub(before0), d1.Stats().Sub(before1); s0.H2DCalls+s0.D2HCalls+s1.H2DCalls+s1.D2HCalls+s0.PeerCalls != 0 {
		t.Fatalf("a refused call moved data: %v / %v", s0, s1)
	}

	// The caller moves out to d0 (direct, within the context); the call runs there.
	p, err := out.MoveTo(d0)
	if err != nil || p != path {
		t.Fatalf("MoveTo: %v, %v; want %v", p, err, path)
	}
	if err := brighter.Brighter(out, 1, other); err != nil {
		t.Fatal(err)
	}
	s0, s1 := d0.Stats().Sub(before0), d1.Stats().Sub(before1)
	if path == device.PathDirect && (s0.PeerCalls != 1 || s0.H2DCalls != 0) {
		t.Fatalf("d0 counters %v: want one peer copy, no upload", s0)
	}
	if path == device.PathStaged && (s0.PeerCalls != 0 || s0.H2DCalls == 0 || s1.D2HCalls == 0) {
		t.Fatalf("counters %v / %v: want a staged copy (D2H on d1, H2D on d0)", s0, s1)
	}
	v, err := other.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	checkImage(t, v.Data(), src, 3)
}
