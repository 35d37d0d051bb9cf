package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
)

// ErrClosed is returned by a Device used after Close; it wraps
// device.ErrClosed.
var ErrClosed = fmt.Errorf("opencl: %w", device.ErrClosed)

// ErrForeign is returned when an Allocation from another device (or a
// freed one) is given to a Device; it wraps device.ErrForeign.
var ErrForeign = fmt.Errorf("opencl: %w (or one already freed)", device.ErrForeign)

// ErrNoOpenCL is wrapped by Open's and Default's error when no OpenCL
// driver is installed (cl.ErrNoOpenCL).
var ErrNoOpenCL = cl.ErrNoOpenCL

// BuildError is a failed kernel build with every device's log (the raw
// binding's type): errors.As(err, new(*opencl.BuildError)) matches.
type BuildError = cl.BuildError

// DeviceType selects devices by kind in Options.
type DeviceType = cl.DeviceType

// Device kinds for Options.Type.
const (
	DeviceDefault     = cl.DeviceDefault
	DeviceCPU         = cl.DeviceCPU
	DeviceGPU         = cl.DeviceGPU
	DeviceAccelerator = cl.DeviceAccelerator
	DeviceAll         = cl.DeviceAll
)

// ParseDeviceType parses HL_OCL_DEVICE_TYPE's words ("cpu", "gpu",
// "acc", "gpu,cpu").
func ParseDeviceType(s string) (DeviceType, error) { return cl.ParseDeviceType(s) }
