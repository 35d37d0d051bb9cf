package halide

// #include "shim.h"
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
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
	m  map[weak.Pointer[opencl.Device]]*clEntry
}

// clEntry is one device's C state and the gate its calls pass: a call
// enters before it takes anything from the device (allocations, cl_mems,
// the runtime's state) and leaves when it no longer uses any of it. The
// device's close hook shuts the gate, waits for the calls inside, and only
// then releases the runtime's state; the device frees its memory, queue
// and context after its hooks. So a call never holds a cl_mem the device
// has released, never reaches a released queue, and a call that comes
// later fails with ErrClosed before it starts.
type clEntry struct {
	cl      *C.gohl_cl // nil until made, and once the device closed
	calls   atomic.Int64
	once    sync.Once
	drained chan struct{} // closed when the gate is shut and empty
}

const gateShut = 1 // calls is gateShut | calls inside·2

// enter lets a call in; false once the gate is shut.
func (e *clEntry) enter() bool {
	if e.calls.Add(2)&gateShut != 0 {
		e.leave()
		return false
	}
	return true
}

func (e *clEntry) leave() {
	if e.calls.Add(-2) == gateShut {
		e.once.Do(func() { close(e.drained) })
	}
}

// shut refuses new calls and waits for those inside to leave.
func (e *clEntry) shut() {
	if e.calls.Or(gateShut) == 0 {
		e.once.Do(func() { close(e.drained) })
	}
	<-e.drained
}

var reuseOnce sync.Once

// clStateOf returns d's C state, making it on first use. The close hook it
// registers shuts the entry's gate, then releases the Halide runtime's
// state for d's context (the compiled programs, which hold references to
// the context and would keep it and its memory alive after Close) while
// the context is still valid.
func clStateOf(d *opencl.Device) (*clEntry, error) {
	reuseOnce.Do(func() {
		// Pipelines with device intermediates keep them between calls
		// instead of allocating and freeing each time.
		C.halide_reuse_device_allocations(nil, true)
	})
	key := weak.Make(d)
	clDevices.mu.Lock()
	if e, ok := clDevices.m[key]; ok {
		clDevices.mu.Unlock()
		return e, nil
	}
	clDevices.mu.Unlock()
	// The hook first: a device whose close has begun runs it at once,
	// maybe after its context is gone, so it must find no state to
	// release (e.cl still nil), and this call gets ErrClosed. Registered
	// unlocked; it must not hold d: the Device's cleanup backstop runs it.
	e := &clEntry{drained: make(chan struct{})}
	d.OnClose(func() {
		e.shut()
		clDevices.mu.Lock()
		cl := e.cl
		e.cl = nil
		if clDevices.m[key] == e {
			delete(clDevices.m, key)
		}
		clDevices.mu.Unlock()
		if cl != nil {
			C.gohl_cl_close(cl)
		}
	})
	clDevices.mu.Lock()
	defer clDevices.mu.Unlock()
	if e.calls.Load()&gateShut != 0 || d.Closed() {
		return nil, opencl.ErrClosed
	}
	if other, ok := clDevices.m[key]; ok {
		e.shut()          // this hook finds nothing to release
		return other, nil // another call made it meanwhile
	}
	cl := C.gohl_cl_open(C.uintptr_t(d.Context()), C.uintptr_t(d.Queue()))
	if cl == nil {
		return nil, fmt.Errorf("out of C memory for the device's state")
	}
	if clDevices.m == nil {
		clDevices.m = map[weak.Pointer[opencl.Device]]*clEntry{}
	}
	e.cl = cl
	clDevices.m[key] = e
	return e, nil
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
	e := clDevices.m[weak.Make(d)]
	clDevices.mu.Unlock()
	if e == nil || e.cl == nil {
		return 0
	}
	return int(C.gohl_cl_acquires(e.cl))
}

// reusesAllocations reports whether the runtime keeps device intermediates
// between calls (halide_reuse_device_allocations).
func reusesAllocations() bool { return bool(C.halide_can_reuse_device_allocations(nil)) }

// callAcrossClose is a test hook: a call of p on args that chose old's
// runtime state and is still in flight (outside the gate, as a C caller's
// would be) when old closes and the device between opens reuses that
// state. It runs the pipeline on the frame as bound and returns the
// runtime's code and whether the state was reused.
func (p *Pipeline) callAcrossClose(old *opencl.Device, between func() *opencl.Device, args ...any) (int, bool, error) {
	f := p.getFrame()
	defer p.putFrame(f)
	if err := p.bind(f, args); err != nil {
		return 0, false, err
	}
	e, err := clStateOf(old)
	if err != nil {
		return 0, false, err
	}
	cl := e.cl
	bindCL(&f.c.ctx, cl)
	nd := between()
	ne, err := clStateOf(nd)
	if err != nil {
		return 0, false, err
	}
	rc := p.invoke(f)
	p.finish(f, nd, false) // frees what the runtime allocated by itself, if it ran
	return int(rc), ne.cl == cl, nil
}
