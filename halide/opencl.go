package halide

// #include "shim.h"
import "C"

import (
	"sync"

	"github.com/resident-go/resident/device/opencl"
)

// clShared is the device whose context and queue the Halide runtime uses
// (through the shim's strong halide_acquire_cl_context), so pipelines and
// the library see the same cl_mem objects and one in-order queue.
var clShared struct {
	mu  sync.Mutex
	dev *opencl.Device
}

// OpenCLDevice returns the device OpenCL pipelines run on: opencl.Default(),
// selected by HL_OCL_PLATFORM_NAME and HL_OCL_DEVICE_TYPE like Halide's own
// runtime. Its Stats count every transfer a call makes.
func OpenCLDevice() (*opencl.Device, error) {
	// Load before the first pipeline runs: with RTLD_GLOBAL the runtime
	// resolves OpenCL from the same libOpenCL.so.1 instead of dlopening
	// libOpenCL.so, which on some machines lists fewer platforms.
	if err := opencl.Load(); err != nil {
		return nil, err
	}
	d, err := opencl.Default()
	if err != nil {
		return nil, err
	}
	clShared.mu.Lock()
	if clShared.dev != d {
		// First use, or the default device was closed and reopened.
		C.gohl_set_cl(C.uintptr_t(d.Context()), C.uintptr_t(d.Queue()))
		// Pipelines with device intermediates keep them between calls
		// instead of allocating and freeing each time.
		C.halide_reuse_device_allocations(nil, true)
		clShared.dev = d
	}
	clShared.mu.Unlock()
	return d, nil
}

// contextAcquires counts the runtime's halide_acquire_cl_context calls; a
// test uses it to prove the runtime ran on our context.
func contextAcquires() int { return int(C.gohl_cl_acquires()) }

// reusesAllocations reports whether the runtime keeps device intermediates
// between calls (halide_reuse_device_allocations).
func reusesAllocations() bool { return bool(C.halide_can_reuse_device_allocations(nil)) }
