package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// alloc is an Allocation of a Device: the whole root cl_mem (Native) or a
// crop of it, Offset bytes in.
type alloc = devkit.Alloc[*Device]

// own returns a as one of d's live allocations.
func (d *Device) own(a device.Allocation) (*alloc, error) { return devkit.Own(&d.s.Pool, d, a) }

// fit refuses n bytes above CL_DEVICE_MAX_MEM_ALLOC_SIZE and returns n's
// size bin, or n where the bin would exceed it.
func (s *state) fit(n int) (int, error) {
	if n > s.maxAlloc {
		return 0, fmt.Errorf("opencl: Malloc(%d) on %s exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (%d bytes): %w",
			n, s.Name, s.maxAlloc, &cl.Error{Op: "clCreateBuffer", Code: cl.CodeInvalidBufferSize})
	}
	if size := devkit.BinSize(n); size <= s.maxAlloc {
		return size, nil
	}
	return n, nil
}

// NewBlock creates a cl_mem (devkit.Driver).
func (s *state) NewBlock(size int) (uintptr, error) {
	return cl.CreateMem(s.ctx.Handle(), cl.MemReadWrite, size)
}

// OutOfMemory is cl.IsOutOfMemory (devkit.Driver).
func (s *state) OutOfMemory(err error) bool { return cl.IsOutOfMemory(err) }

// track makes r live and returns its whole-root allocation; on a device
// closed meanwhile it releases r's cl_mem instead, so nothing leaks.
func (d *Device) track(r *devkit.Root) (device.Allocation, error) {
	return devkit.TrackRoot(&d.s.Core, d, r)
}

// subBufferAlign is the byte multiple a crop's offset must have to be a
// cl_mem sub-buffer (CL_DEVICE_MEM_BASE_ADDR_ALIGN), as Halide makes crops.
func (d *Device) subBufferAlign() int { return d.s.align }
