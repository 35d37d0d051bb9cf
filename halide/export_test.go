package halide

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// Test hooks.
var (
	LoopInC                 = (*Pipeline).loopInC
	ContextAcquires         = func() int { return contextAcquires(nil) }
	DeviceAcquires          = contextAcquires
	ReusesDeviceAllocations = reusesAllocations
	ChosenTarget            = chosenTarget
)

func CallAcrossClose(p *Pipeline, old *opencl.Device, between func() *opencl.Device, args ...any) (int, bool, error) {
	return p.callAcrossClose(old, func() device.Device { return between() }, args...)
}

var CallMismatched = (*Pipeline).callMismatched

// CUDA test hooks (cuda.go).
var (
	CUDAAcquires         = cudaAcquires
	CUDARuntimeTransfers = cudaRuntimeTransfers
)
