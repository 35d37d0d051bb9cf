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
func (d *Device) own(a device.Allocation) (*alloc, error) { return devkit.Own(&d.s.pool, d, a) }

// Malloc returns a new allocation of bytes bytes, from the cache when a
// freed block of the same size bin is there. Sizes above the device's
// CL_DEVICE_MAX_MEM_ALLOC_SIZE fail with CL_INVALID_BUFFER_SIZE.
func (d *Device) Malloc(bytes int) (device.Allocation, error) {
	s := d.s
	if bytes < 0 {
		return nil, fmt.Errorf("opencl: Malloc(%d): %w", bytes, device.ErrOutOfRange)
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.gate.Leave()
	n := max(bytes, 1)
	if n > s.maxAlloc {
		return nil, fmt.Errorf("opencl: Malloc(%d) on %s exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (%d bytes): %w",
			bytes, s.name, s.maxAlloc, &cl.Error{Op: "clCreateBuffer", Code: cl.CodeInvalidBufferSize})
	}
	size := devkit.BinSize(n)
	if size > s.maxAlloc {
		size = n
	}
	mem, hit, err := s.pool.Take(size, !s.opts.NoCache)
	if err != nil {
		return nil, err
	}
	if !hit {
		mem, err = cl.CreateMem(s.ctx.Handle(), cl.MemReadWrite, size)
		if cl.IsOutOfMemory(err) {
			d.ReleaseCache()
			mem, err = cl.CreateMem(s.ctx.Handle(), cl.MemReadWrite, size)
		}
		if err != nil {
			return nil, fmt.Errorf("opencl: Malloc(%d) on %s: %w", bytes, s.name, err)
		}
	}
	return d.track(&devkit.Root{H: mem, Size: size, User: bytes})
}

// track makes r live and returns its whole-root allocation; on a device
// closed meanwhile it releases r's cl_mem instead, so nothing leaks.
func (d *Device) track(r *devkit.Root) (device.Allocation, error) {
	a, ok := devkit.Track(&d.s.pool, d, r)
	if !ok {
		cl.Release(cl.KindMem, r.H)
		return nil, ErrClosed
	}
	return a, nil
}

// Free releases an allocation or crop; the root's memory goes back to the
// cache once the root and all its crops are freed. Freeing twice, or after
// Close, is a no-op.
func (d *Device) Free(a device.Allocation) error {
	if err := d.s.enter(); err != nil {
		return nil // Close freed it
	}
	defer d.s.gate.Leave()
	r, err := devkit.Free(&d.s.pool, d, a)
	if r == nil || err != nil {
		return err
	}
	return cl.Release(cl.KindMem, r.H)
}

// Crop returns an allocation that shares a's memory (same root cl_mem),
// starting off bytes into a and bytes long. Crops are not counted in
// AllocsLive: they allocate nothing.
func (d *Device) Crop(a device.Allocation, off, bytes int) (device.Allocation, error) {
	c, err := devkit.Crop(&d.s.pool, d, a, off, bytes)
	if err != nil {
		return nil, fmt.Errorf("opencl: %w", err)
	}
	return c, nil
}

// subBufferAlign is the byte multiple a crop's offset must have to be a
// cl_mem sub-buffer (CL_DEVICE_MEM_BASE_ADDR_ALIGN), as Halide makes crops.
func (d *Device) subBufferAlign() int { return d.s.align }
