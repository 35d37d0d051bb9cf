package brighter_test

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// The README's tour: eight OpenCL stages on a device-aware Array move the
// image across the bus twice, once each way. It prints where the result
// is ("true true": on dev, newest there), then a pixel and the uploads and
// downloads ("108 1 1"). It needs an OpenCL driver, so TestTour checks
// what it prints and skips where there is none.
func Example() {
	dev, err := opencl.Default() // HL_OCL_PLATFORM_NAME / HL_OCL_DEVICE_TYPE, else first GPU, else CPU
	if err != nil {
		fmt.Println(err) // names the driver to install
		return
	}
	tour(os.Stdout, dev)
}

func tour(w io.Writer, dev *opencl.Device) { tourOf(w, dev, brighter.Brighter) }

// tourOf is the tour on dev with stage, the OpenCL or the CUDA pipeline.
func tourOf(w io.Writer, dev device.Device, stage func(in array.Buffer, k uint8, out array.Buffer) error) {
	before := dev.Stats()
	img := array.New[uint8](1024, 768) // device-aware, dimension 0 innermost
	h, _ := img.Host()                 // host view: writing marks the host dirty
	h.Fill(100)

	a, b := array.Like(img), array.Like(img)
	stage(img, 1, a) // uploads img once; a stays on the device
	for range 7 {    // seven more stages, no transfers
		stage(a, 1, b)
		a, b = b, a
	}
	fmt.Fprintln(w, a.Device() == dev, a.DeviceDirty()) // the result is on the device
	v, _ := a.HostReadOnly()                            // the one download
	s := dev.Stats().Sub(before)
	fmt.Fprintln(w, v.At(1023, 767), s.H2DCalls, s.D2HCalls)
}

func TestTour(t *testing.T) {
	dev, err := opencl.Default()
	if err != nil {
		t.Skip("no OpenCL driver:", err)
	}
	var b strings.Builder
	tour(&b, dev)
	if got, want := b.String(), "true true\n108 1 1\n"; got != want {
		t.Fatalf("the tour printed %q, want %q", got, want)
	}
}

// The same tour with brighter_cuda on the default CUDA device: the same
// two transfers (it needs a GPU: bin/brighter.test on the H200).
func TestTourCUDA(t *testing.T) {
	dev, err := cuda.Default()
	if err != nil {
		t.Skip("no CUDA device:", err)
	}
	if strings.Contains(strings.ToLower(dev.Name()), "mock") {
		t.Skip("the mock libcuda runs no PTX")
	}
	var b strings.Builder
	tourOf(&b, dev, brighter.BrighterCuda)
	if got, want := b.String(), "true true\n108 1 1\n"; got != want {
		t.Fatalf("the CUDA tour printed %q, want %q", got, want)
	}
}
