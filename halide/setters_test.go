package halide_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// freshCL opens a device of its own (its own context): the runtime builds
// kernels once per context, so build options need one no pipeline ran on.
func freshCL(t *testing.T) *opencl.Device {
	t.Helper()
	clDevice(t)
	d, err := opencl.Open(opencl.Options{NoCache: true})
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Build options reach the OpenCL compiler of one device only, in Halide's
// define_extern_opencl style: a bad option fails that device's build (the
// call returns the runtime's code and names the option), leaving the Arrays
// as they were and nothing allocated by the call; a good option builds and
// computes the right values; a device without options is untouched;
// options set after a device ran a pipeline are refused.
func TestOpenCLBuildOptions(t *testing.T) {
	const w, h = 16, 8
	src := pattern(w, h)
	var open []*array.Array[uint8]
	closeAll := func(t *testing.T) {
		for _, a := range open {
			a.Close()
		}
		open = nil
	}
	t.Cleanup(func() { closeAll(t) })
	run := func(d *opencl.Device) (*array.Array[uint8], error) {
		in := halide.NewArray[uint8]([]array.Dim{{Extent: w}, {Extent: h}})
		v, _ := in.Host()
		copy(v.Data(), src)
		out := halide.NewArray[uint8]([]array.Dim{{Extent: w}, {Extent: h}})
		open = append(open, in, out)
		return out, brighter.BrighterPipeline.CallOn(d, in, uint8(3), out)
	}

	bad := freshCL(t)
	const opt = "-cl-no-such-option-resident"
	if err := halide.SetOpenCLBuildOptions(bad, opt); err != nil {
		t.Fatal(err)
	}
	out, err := run(bad)
	var he *halide.Error
	if !errors.As(err, &he) || he.Code >= 0 || !strings.Contains(err.Error(), opt) || !strings.Contains(err.Error(), "clBuildProgram") {
		t.Fatalf("a bad build option: %v; want the runtime's error naming %s", err, opt)
	}
	t.Log(err)
	if out.DeviceDirty() {
		t.Error("the failed call left its output device-dirty")
	}
	out.Close()
	closeAll(t)
	if s := bad.Stats(); s.AllocsLive != 0 || s.Launches != 0 {
		t.Errorf("after the failed build and Close: %d allocations live, %d launches", s.AllocsLive, s.Launches)
	}
	if err := halide.SetOpenCLBuildOptions(bad, ""); !errors.Is(err, halide.ErrBuildOptionsLate) {
		t.Errorf("options after a call: %v, want ErrBuildOptionsLate", err)
	}

	good := freshCL(t)
	if err := halide.SetOpenCLBuildOptions(good, "-cl-fast-relaxed-math -DRESIDENT_TEST=1"); err != nil {
		t.Fatal(err)
	}
	if out, err = run(good); err != nil {
		t.Fatal(err)
	}
	checkBrightened(t, "with good options", out, src, 3)
	if s := good.Stats(); s.Launches == 0 {
		t.Errorf("good options: no launch on the device (%+v)", s)
	}
	if out, err = run(clDevice(t)); err != nil { // the default device has no options
		t.Fatal(err)
	}
	checkBrightened(t, "without options", out, src, 3)
	if err := halide.SetOpenCLBuildOptions(nil, "-w"); !errors.Is(err, halide.ErrNoDevice) {
		t.Errorf("a nil device: %v", err)
	}
	if err := halide.SetOpenCLBuildOptions(freshCL(t), strings.Repeat("x", 512)); err == nil {
		t.Error("512 bytes of options accepted")
	}
}
