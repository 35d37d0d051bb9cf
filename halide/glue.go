package halide

import (
	"fmt"
	"io"
	"sync"

	"github.com/resident-go/resident/device"
	_ "github.com/resident-go/resident/halide/internal/backends" // links and registers OpenCL and CUDA
	"github.com/resident-go/resident/halide/internal/rt"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
)

// glue is the Halide runtime adapter of one device API (opencl.go,
// cuda.go): its C side hands Halide's runtime for that API the call's
// device (context and queue or stream) and sets buffers' device handles
// as that runtime takes them. A pipeline's target picks its glue; the
// device package behind the API registered itself (plumb.Backend), and
// package halide names none.
type glue struct {
	api   string              // device.Native's API, plumb.Backend's key
	match func(t string) bool // whether target t runs on this API
	kind  string              // "an OpenCL device", for messages
	open  string              // how a user opens such a device, for messages
	// noDevice is the fix when the default device cannot be opened.
	noDevice string
	// defaultDevice is the placement rule's device when nothing chose one.
	defaultDevice func() (device.Device, error)
	// enter makes d's runtime state, lets the call into d's gate (left
	// when the call returns: f.gate) and routes f's ctx to d.
	enter func(p *Pipeline, f *frame, d gpuDevice) error
	// closing reports whether d's close has begun.
	closing func(d gpuDevice) bool
	// setDevice points the call's buffer cb at byte off of mem.
	setDevice func(p *Pipeline, f *frame, cb *rt.Buf, mem uintptr, off int) error
	// acquires counts the runtime's context acquires on d (nil: all).
	acquires func(d device.Device) int
	// note is what a runtime failure on d adds to its message; nil: none.
	note func(d gpuDevice) string

	once sync.Once
	be   plumb.Backend // the registered backend of api, found at first use
}

// backend is the device package registered for g's API: its pacing,
// alignment and closed sentinel (zero fields where none is linked).
func (g *glue) backend() *plumb.Backend {
	g.once.Do(func() { g.be, _ = plumb.BackendOf(g.api) })
	return &g.be
}

// gpuDevice is what a call on a device needs of it: the native context
// and queue or stream (device.Native), per-device state (Value) and
// close notification. Calls find it through device.Native and the backend
// registry (glue.as), never through a concrete type; *opencl.Device and
// *cuda.Device implement it.
type gpuDevice interface {
	device.Device
	device.Native
	device.CloseNotifier
	Closed() bool
	Value(key any, init func() any) any
}

// deviceGate is the gate a call passes on its device: the device's own
// (devkit.Gate), which every call into its driver passes. A call enters
// before it takes anything from the device (allocations, native handles,
// the runtime's state) and leaves when it no longer uses any of it; the
// device's Close shuts the gate and waits for the calls inside before it
// releases anything.
type deviceGate struct{ gate *devkit.Gate }

// enter lets a call in; false once the gate is shut.
func (e *deviceGate) enter() bool { return e.gate.Enter() }

func (e *deviceGate) leave() { e.gate.Leave() }

// shut reports whether the device's close has shut the gate.
func (e *deviceGate) shut() bool { return e.gate.IsShut() }

// gateFor is d's gate. A device without one of devkit's gets one of the
// entry's own that its close hook shuts before closing the entry c.
func gateFor(d gpuDevice, c io.Closer) *devkit.Gate {
	if g := devkit.GateOf(d); g != nil {
		return g
	}
	g := new(devkit.Gate)
	d.OnClose(func() { g.Shut(); c.Close() })
	return g
}

// glues are the runtime adapters package halide carries, by init.
var glues []*glue

// glueFor is the adapter of pipelines built for target t; nil: the host.
func glueFor(t string) *glue {
	for _, g := range glues {
		if g.match(t) {
			return g
		}
	}
	return nil
}

// as is d as a device of g's API, or false when d is not one (or lacks
// what calls need).
func (g *glue) as(d device.Device) (gpuDevice, bool) {
	if isNil(d) {
		return nil, false
	}
	if n, ok := d.(device.Native); !ok || n.API() != g.api {
		return nil, false
	}
	if b := g.backend(); b.Owns == nil || !b.Owns(d) {
		return nil, false // a device that merely reports the API
	}
	c, ok := d.(gpuDevice)
	return c, ok
}

// backendDefault is the default device of the backend registered for api.
// DefaultDevice returns the default device of the pipelines whose API
// (Pipeline.API) is api, found through the backend registry (package
// halide imports no device package); a call's Options.Device chooses
// another. Its Stats count every transfer a call makes.
//
//   - "OpenCL": opencl.Default(), selected by HL_OCL_PLATFORM_NAME and
//     HL_OCL_DEVICE_TYPE like Halide's own runtime. When C code chose
//     otherwise with Halide's halide_opencl_set_platform_name or
//     halide_opencl_set_device_type, it is the device those name instead
//     (opened once per choice, kept open).
//   - "CUDA": cuda.Default() (device $RESIDENT_CUDA_DEVICE, else 0);
//     where there is no CUDA the error wraps cuda.ErrNoCUDA and says what
//     is missing.
//
// An api with no backend linked is an error naming it.
func DefaultDevice(api string) (device.Device, error) {
	for _, g := range glues {
		if g.api == api {
			return g.defaultDevice()
		}
	}
	return backendDefault(api)
}

func backendDefault(api string) (device.Device, error) {
	b, ok := plumb.BackendOf(api)
	if !ok || b.Default == nil {
		return nil, fmt.Errorf("halide: no %s backend is linked", api)
	}
	return b.Default()
}

// closedErr is the closed sentinel of api's backend (it wraps
// device.ErrClosed), or device.ErrClosed itself.
func closedErr(api string) error {
	if b, ok := plumb.BackendOf(api); ok && b.Closed != nil {
		return b.Closed
	}
	return device.ErrClosed
}
