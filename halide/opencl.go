package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"os"
	"strings"
	"sync"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// clGlue runs pipelines whose target names opencl on an OpenCL device.
var clGlue = &glue{
	api:           "OpenCL",
	match:         func(t string) bool { return strings.Contains(t, "opencl") },
	kind:          "an OpenCL device",
	open:          "opencl.Open, opencl.Wrap, halide.DefaultDevice(\"OpenCL\")",
	noDevice:      "install an OpenCL driver (PoCL: apt-get install pocl-opencl-icd), select one with HL_OCL_PLATFORM_NAME / HL_OCL_DEVICE_TYPE, or build the generator for the host",
	defaultDevice: openCLDevice,
	enter:         enterCL,
	closing:       closing,
	setDevice:     setCLDevice,
	note:          clNote,
}

func init() {
	clGlue.acquires = contextAcquires // set here: it refers to clGlue
	glues = append(glues, clGlue)
}

// enterCL makes d's C state, enters d's gate and routes f's ctx to the
// state; it refuses pipelines that use GPU textures.
func enterCL(p *Pipeline, f *frame, d gpuDevice) error {
	e, err := clStateOf(d)
	if err == nil && !e.enter() {
		err = closedErr("OpenCL")
	}
	if err != nil {
		return err
	}
	// Inside the gate until call returns (f.gate): the device's close
	// waits for this call before it releases anything the call uses.
	f.gate = &e.deviceGate
	if f.clOpts != "" {
		// Before the texture probe, which builds the kernels.
		if err := p.setBuildOptions(d, e, f.clOpts); err != nil {
			return err
		}
	}
	if err := p.checkTexture(e.cl, &f.c.Ctx); err != nil {
		return err
	}
	bindCL(&f.c.Ctx, e.cl)
	f.c.Ctx.Texture = 0
	return nil
}

// setCLDevice points the call's buffer at byte off of cl_mem mem: a
// wrapped handle, or a crop of one (dropped in finish).
func setCLDevice(p *Pipeline, f *frame, cb *rt.Buf, mem uintptr, off int) error {
	if uintptr(cb.Mem) == mem && int(cb.Off) == off && cb.Kind != rt.DevNone {
		return nil // the frame's previous call had the same handle
	}
	if off != 0 {
		f.crops = true
	}
	if rc := cb.SetDevice(&f.c.Ctx, uint64(mem), int64(off)); rc != 0 {
		return p.runtimeError(f, rc)
	}
	return nil
}

// asCL is d as an OpenCL device, or false when d is not one (or lacks
// what calls need).
func asCL(d device.Device) (gpuDevice, bool) { return clGlue.as(d) }

// clKey is the key of a device's clEntry in its Value state. The entry
// lives as long as the device and never points back to it.
type clKey struct{}

// clMu guards every clEntry's cl.
var clMu sync.Mutex

// clEntry is one device's C state and the gate its calls pass: the
// device's own gate (devkit.Gate), which every call into the driver
// passes. A call enters before it takes anything from the device
// (allocations, cl_mems, the runtime's state) and leaves when it no
// longer uses any of it. The device's Close shuts the gate, waits for the
// calls inside, and only then closes its Value state, this entry among it
// (Close: the runtime's state for the context goes), and frees its memory,
// queue and context. So a call never holds a cl_mem the device has
// released, never reaches a released queue, and a call that comes later
// fails with ErrClosed before it starts.
type clEntry struct {
	deviceGate
	cl *rt.CL // nil until made, and once the device closed
}

var reuseOnce sync.Once

// clStateOf returns d's C state (context, queue, lock: cl.c hands them
// to the runtime through halide_acquire_cl_context, named in the call's
// user_context), making it on first use.
func clStateOf(d gpuDevice) (*clEntry, error) {
	reuseOnce.Do(func() {
		// Pipelines with device intermediates keep them between calls
		// instead of allocating and freeing each time.
		rt.ReuseDeviceAllocations(true)
	})
	e := d.Value(clKey{}, func() any { return newCLEntry(d) }).(*clEntry)
	if e.shut() || d.Closed() {
		return nil, closedErr("OpenCL")
	}
	clMu.Lock()
	ok := e.cl != nil
	clMu.Unlock()
	switch {
	case ok:
	case e.shut() || d.Closed():
		// Closed between the check above and here: Close dropped e.cl.
		return nil, closedErr("OpenCL")
	default:
		return nil, fmt.Errorf("out of C memory for the device's state")
	}
	return e, nil
}

// newCLEntry makes d's entry; on a device whose close has begun it makes
// none of the runtime's state (e.cl stays nil), and calls get ErrClosed.
// The entry must not hold d: the Device's cleanup backstop closes it.
func newCLEntry(d gpuDevice) *clEntry {
	e := &clEntry{}
	e.gate = gateFor(d, e)
	clMu.Lock()
	defer clMu.Unlock()
	if e.shut() || d.Closed() {
		return e
	}
	ctx, q := d.Handles()
	e.cl = rt.OpenCL(ctx, q)
	return e
}

// Close releases the Halide runtime's state for the device's context (the
// compiled programs, which hold references to the context and would keep
// it and its memory alive after Close) while the context is still valid;
// the device calls it once its gate is empty.
func (e *clEntry) Close() error {
	clMu.Lock()
	cl := e.cl
	e.cl = nil
	clMu.Unlock()
	if cl != nil {
		cl.Close()
	}
	return nil
}

// closing reports whether d's close has begun: its close hook shut the
// gate and released the runtime's state for it (calls on it then fail in
// the runtime), or it is closed.
func closing(d gpuDevice) bool {
	if d.Closed() {
		return true
	}
	e, _ := d.Value(clKey{}, nil).(*clEntry)
	return e == nil || e.shut()
}

// openCLDevice is DefaultDevice("OpenCL").
func openCLDevice() (device.Device, error) {
	// Default and Open load OpenCL (RTLD_GLOBAL) before the first pipeline
	// runs, so the runtime resolves it from the same libOpenCL.so.1
	// instead of dlopening libOpenCL.so, which on some machines lists
	// fewer platforms.
	name, typ := rt.OpenCLPlatformName(), rt.OpenCLDeviceType()
	// An empty choice (C set "", as a clear) is no choice: opencl.Open
	// reads the environment for it, as Default does.
	if unchosen(name, "HL_OCL_PLATFORM_NAME") && unchosen(typ, "HL_OCL_DEVICE_TYPE") {
		return backendDefault("OpenCL")
	}
	return cChosenDevice(name, typ)
}

// unchosen reports whether C's value c of setting env leaves the choice
// to the environment: empty, or the environment's own value.
func unchosen(c, env string) bool { return c == "" || c == os.Getenv(env) }

// cChosen are the devices C's platform and device-type choices named.
var cChosen struct {
	mu   sync.Mutex
	devs map[[2]string]device.Device
}

func cChosenDevice(name, typ string) (device.Device, error) {
	cChosen.mu.Lock()
	defer cChosen.mu.Unlock()
	key := [2]string{name, typ}
	if d, ok := cChosen.devs[key].(interface{ Closed() bool }); ok && !d.Closed() {
		return cChosen.devs[key], nil
	}
	b, ok := plumb.BackendOf("OpenCL")
	if !ok || b.Select == nil {
		return nil, fmt.Errorf("halide: the OpenCL device C chose (halide_opencl_set_platform_name %q, halide_opencl_set_device_type %q): no OpenCL backend is linked", name, typ)
	}
	d, err := b.Select(name, typ)
	if err != nil {
		return nil, fmt.Errorf("halide: the OpenCL device C chose (halide_opencl_set_platform_name %q, halide_opencl_set_device_type %q): %w", name, typ, err)
	}
	if cChosen.devs == nil {
		cChosen.devs = map[[2]string]device.Device{}
	}
	cChosen.devs[key] = d
	return d, nil
}

// contextAcquires counts the runtime's halide_acquire_cl_context calls on
// d, or on every device when d is nil; tests use it to prove the runtime
// ran on the call's context.
func contextAcquires(d device.Device) int {
	if d == nil {
		return int((*rt.CL)(nil).Acquires())
	}
	c, ok := asCL(d)
	if !ok {
		return 0
	}
	e, _ := c.Value(clKey{}, nil).(*clEntry)
	if e == nil {
		return 0
	}
	clMu.Lock()
	defer clMu.Unlock()
	if e.cl == nil {
		return 0
	}
	return int(e.cl.Acquires())
}

// reusesAllocations reports whether the runtime keeps device intermediates
// between calls (halide_reuse_device_allocations).
func reusesAllocations() bool { return rt.ReusesDeviceAllocations() }

// callAcrossClose is a test hook: a call of p on args that chose old's
// runtime state and is still in flight (outside the gate, as a C caller's
// would be) when old closes and the device between opens reuses that
// state. It runs the pipeline on the frame as bound and returns the
// runtime's code and whether the state was reused.
func (p *Pipeline) callAcrossClose(old device.Device, between func() device.Device, args ...any) (int, bool, error) {
	f := p.getFrame()
	defer p.putFrame(f)
	if err := p.bind(f, args); err != nil {
		return 0, false, err
	}
	oc, _ := asCL(old)
	e, err := clStateOf(oc)
	if err != nil {
		return 0, false, err
	}
	cl := e.cl
	bindCL(&f.c.Ctx, cl)
	nd, _ := asCL(between())
	ne, err := clStateOf(nd)
	if err != nil {
		return 0, false, err
	}
	rc := p.invoke(f)
	p.finish(f, nd, false) // frees what the runtime allocated by itself, if it ran
	return int(rc), ne.cl == cl, nil
}
