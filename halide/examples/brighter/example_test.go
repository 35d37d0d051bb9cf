package brighter_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// The README's tour: eight OpenCL stages on a device-aware Array move the
// image across the bus twice, once each way.
func Example() {
	dev, _ := opencl.Default() // HL_OCL_PLATFORM_NAME / HL_OCL_DEVICE_TYPE, else first GPU, else CPU
	before := dev.Stats()

	img := array.New[uint8](1024, 768) // device-aware, dimension 0 innermost
	h, _ := img.Host()                 // host view: writing marks the host dirty
	h.Fill(100)

	a, b := array.Like(img), array.Like(img)
	brighter.Brighter(img, 1, a) // uploads img once; a stays on the device
	for range 7 {                // seven more stages, no transfers
		brighter.Brighter(a, 1, b)
		a, b = b, a
	}
	v, _ := a.HostReadOnly() // the one download
	s := dev.Stats().Sub(before)
	fmt.Println(v.At(1023, 767), s.H2DCalls, s.D2HCalls)
	// Output: 108 1 1
}
