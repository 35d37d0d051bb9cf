package halide

// #include "shim.h"
import "C"

import (
	"fmt"
	"sync"
	"weak"

	"github.com/resident-go/resident/device/opencl"
)

// clDevices is the C state (context, queue, lock) of every OpenCL device a
// pipeline has run on. halide_acquire_cl_context hands the runtime the
// state named in the call's user_context, so pipelines and the library see
// the same cl_mem objects and one in-order queue per device, and several
// devices work side by side. Keys are weak: the table never keeps a
// Device alive, and the Device's close hook removes its entry.
var clDevices struct {
	mu sync.Mutex
	m  map[weak.Pointer[opencl.Device]]*C.gohl_cl
}

var reuseOnce sync.Once

// clStateOf returns d's C state, making it on first use. The close hook it
// registers releases the Halide runtime's state for d's context (the
// compiled programs, which hold references to the context and would keep
// it and its memory alive after Close) while the context is still valid.
func clStateOf(d *opencl.Device) (*C.gohl_cl, error) {
	reuseOnce.Do(func() {
		// Pipelines with device intermediates keep them between calls
		// instead of allocating and freeing each time.
		C.halide_reuse_device_allocations(nil, true)
	})
	key := weak.Make(d)
	clDevices.mu.Lock()
	if cl, ok := clDevices.m[key]; ok {
		clDevices.mu.Unlock()
		return cl, nil
	}
	clDevices.mu.Unlock()
	// The hook first: a device whose close has begun runs it at once,
	// maybe after its context is gone, so it must find no state to
	// release (cl still nil), and this call gets ErrClosed. Registered
	// unlocked; it must not hold d: the Device's cleanup backstop runs it.
	var e struct {
		cl     *C.gohl_cl
		closed bool
	}
	d.OnClose(func() {
		clDevices.mu.Lock()
		e.closed = true
		cl := e.cl
		if cl != nil && clDevices.m[key] == cl {
			delete(clDevices.m, key)
		}
		clDevices.mu.Unlock()
		if cl != nil {
			C.gohl_cl_close(cl)
		}
	})
	clDevices.mu.Lock()
	defer clDevices.mu.Unlock()
	if e.closed || d.Closed() {
		return nil, opencl.ErrClosed
	}
	if cl, ok := clDevices.m[key]; ok {
		return cl, nil // another call made it meanwhile
	}
	cl := C.gohl_cl_open(C.uintptr_t(d.Context()), C.uintptr_t(d.Queue()))
	if cl == nil {
		return nil, fmt.Errorf("out of C memory for the device's state")
	}
	if clDevices.m == nil {
		clDevices.m = map[weak.Pointer[opencl.Device]]*C.gohl_cl{}
	}
	e.cl = cl
	clDevices.m[key] = cl
	return cl, nil
}

// closing reports whether d's close has begun: its close hook released
// the runtime's state for it (calls on it then fail in the runtime), or it
// is closed.
func closing(d *opencl.Device) bool {
	if d.Closed() {
		return true
	}
	clDevices.mu.Lock()
	_, ok := clDevices.m[weak.Make(d)]
	clDevices.mu.Unlock()
	return !ok
}

// OpenCLDevice returns the default device of OpenCL pipelines:
// opencl.Default(), selected by HL_OCL_PLATFORM_NAME and HL_OCL_DEVICE_TYPE
// like Halide's own runtime. Pipeline.SetDevice and CallOn choose another.
// Its Stats count every transfer a call makes.
func OpenCLDevice() (*opencl.Device, error) {
	// Load before the first pipeline runs: with RTLD_GLOBAL the runtime
	// resolves OpenCL from the same libOpenCL.so.1 instead of dlopening
	// libOpenCL.so, which on some machines lists fewer platforms.
	if err := opencl.Load(); err != nil {
		return nil, err
	}
	return opencl.Default()
}

// contextAcquires counts the runtime's halide_acquire_cl_context calls on
// d, or on every device when d is nil; tests use it to prove the runtime
// ran on the call's context.
func contextAcquires(d *opencl.Device) int {
	if d == nil {
		return int(C.gohl_cl_acquires(nil))
	}
	clDevices.mu.Lock()
	cl := clDevices.m[weak.Make(d)]
	clDevices.mu.Unlock()
	if cl == nil {
		return 0
	}
	return int(C.gohl_cl_acquires(cl))
}

// reusesAllocations reports whether the runtime keeps device intermediates
// between calls (halide_reuse_device_allocations).
func reusesAllocations() bool { return bool(C.halide_can_reuse_device_allocations(nil)) }
