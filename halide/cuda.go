package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"sync"

	"github.com/resident-go/resident/device"
)

// CUDA pipelines (halide-gen -target cuda) run on a CUDA device: a
// device.Device whose device.Native API is "CUDA", such as a
// *cuda.Device. The call hands Halide's CUDA runtime that device's primary
// context and stream (cuda.c overrides halide_cuda_acquire_context,
// _release_context and _get_stream), so the runtime's kernels queue behind
// the device's own uploads and copies on one stream. An Array's
// allocation is a root CUdeviceptr plus a byte offset, and a CUDA device
// pointer takes the offset as it is: every view, aligned or not, runs in
// place. The residency rules are the OpenCL pipelines' (residency.go).

// cuGlue runs pipelines whose target names cuda on a CUDA device.
var cuGlue = &glue{
	api:           "CUDA",
	match:         func(t string) bool { return hasFeature(t, "cuda") },
	kind:          "a CUDA device",
	open:          "cuda.Open, halide.DefaultDevice(\"CUDA\")",
	noDevice:      "run on a machine with an NVIDIA driver (libcuda.so.1), pass a device (cuda.Open) or build the generator for the host or OpenCL",
	defaultDevice: func() (device.Device, error) { return backendDefault("CUDA") },
	enter:         enterCU,
	closing:       cuClosing,
	setDevice:     setCUDADevice,
}

// After OpenCL's: a target naming both runs on OpenCL.
func init() {
	cuGlue.acquires = cudaAcquires // set here: it refers to cuGlue
	glues = append(glues, cuGlue)
}

// asCU is d as a CUDA device, or false when d is not one. The methods a
// call needs of its device (gpuDevice's) name no backend.
func asCU(d device.Device) (gpuDevice, bool) { return cuGlue.as(d) }

// cuKey is the key of a device's cuEntry in its Value state.
type cuKey struct{}

// cuMu guards every cuEntry's cu.
var cuMu sync.Mutex

// cuEntry is one CUDA device's C state and the gate its calls pass, as
// clEntry is an OpenCL device's: the device's Close shuts its gate, waits
// for the calls inside, then closes the entry (the runtime's modules for
// the context go).
type cuEntry struct {
	deviceGate
	cu *rt.CU // nil until made, and once the device closed
}

var cuReuseOnce sync.Once

// cuStateOf returns d's C state, making it on first use.
func cuStateOf(d gpuDevice) (*cuEntry, error) {
	cuReuseOnce.Do(func() {
		// Device intermediates stay between calls, as for OpenCL.
		rt.ReuseDeviceAllocations(true)
	})
	e := d.Value(cuKey{}, func() any { return newCUEntry(d) }).(*cuEntry)
	if e.shut() || d.Closed() {
		return nil, closedErr("CUDA")
	}
	cuMu.Lock()
	ok := e.cu != nil
	cuMu.Unlock()
	switch {
	case ok:
	case e.shut() || d.Closed():
		return nil, closedErr("CUDA")
	default:
		return nil, fmt.Errorf("out of C memory for the device's state")
	}
	return e, nil
}

// newCUEntry makes d's entry (see newCLEntry).
func newCUEntry(d gpuDevice) *cuEntry {
	e := &cuEntry{}
	e.gate = gateFor(d, e)
	cuMu.Lock()
	defer cuMu.Unlock()
	if e.shut() || d.Closed() {
		return e
	}
	ctx, stream := d.Handles()
	e.cu = rt.CUDA(ctx, stream)
	return e
}

// Close releases the runtime's modules for the context (see
// clEntry.Close).
func (e *cuEntry) Close() error {
	cuMu.Lock()
	c := e.cu
	e.cu = nil
	cuMu.Unlock()
	if c != nil {
		c.Close()
	}
	return nil
}

// cuClosing reports whether d's close has begun.
func cuClosing(d gpuDevice) bool {
	if d.Closed() {
		return true
	}
	e, _ := d.Value(cuKey{}, nil).(*cuEntry)
	return e == nil || e.shut()
}

// enterCU makes d's C state, enters d's gate and routes f's ctx to it.
func enterCU(p *Pipeline, f *frame, d gpuDevice) error {
	e, err := cuStateOf(d)
	if err == nil && !e.enter() {
		err = closedErr("CUDA")
	}
	if err != nil {
		return err
	}
	f.gate = &e.deviceGate // left when the call returns
	e.cu.Bind(&f.c.Ctx)
	return nil
}

// setCUDADevice points the call's buffer at byte off of the allocation
// whose root CUdeviceptr is mem.
func setCUDADevice(p *Pipeline, f *frame, cb *rt.Buf, mem uintptr, off int) error {
	ptr := uint64(mem) + uint64(off)
	if cb.Kind == rt.DevCUDA && uint64(cb.Mem) == ptr {
		return nil // the frame's previous call had the same pointer
	}
	if rc := cb.SetCUDADevice(&f.c.Ctx, ptr); rc != 0 {
		return p.runtimeError(f, rc)
	}
	return nil
}

// cudaAcquires counts the runtime's halide_cuda_acquire_context calls on
// d, or on every device when d is nil: tests use it to prove the runtime
// ran on the call's context.
func cudaAcquires(d device.Device) int {
	if d == nil {
		return int((*rt.CU)(nil).Acquires())
	}
	c, ok := asCU(d)
	if !ok {
		return 0
	}
	e, _ := c.Value(cuKey{}, nil).(*cuEntry)
	if e == nil {
		return 0
	}
	cuMu.Lock()
	defer cuMu.Unlock()
	if e.cu == nil {
		return 0
	}
	return int(e.cu.Acquires())
}

// cudaRuntimeTransfers counts the copies between host and device that
// Halide's CUDA runtime made by itself.
func cudaRuntimeTransfers() (reads, writes int64) {
	return rt.CUDARuntimeTransfers()
}
