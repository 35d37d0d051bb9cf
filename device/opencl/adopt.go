package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// Adopt makes mem, a cl_mem of d's context that other code made (a Halide
// runtime's buffer, a C library's), one of d's allocations: bytes bytes
// from the start of mem, without copying. With retain the allocation takes
// a reference of its own and the caller keeps its own; without, the
// caller's reference is handed over. Either way Free drops the
// allocation's reference (never into the cache), and Stats count it as an
// allocation. mem must belong to d's context (else ErrForeign) and hold
// bytes.
func (d *Device) Adopt(mem uintptr, bytes int, retain bool) (device.Allocation, error) {
	s := d.s
	if mem == 0 || bytes < 0 {
		return nil, fmt.Errorf("opencl: Adopt(%#x, %d bytes): %w", mem, bytes, device.ErrOutOfRange)
	}
	if err := s.Enter(); err != nil {
		return nil, err
	}
	defer s.Gate.Leave()
	ctx, size, err := cl.MemInfo(mem)
	if err != nil {
		return nil, fmt.Errorf("opencl: Adopt: %w", err)
	}
	if ctx != s.ctx.Handle() {
		return nil, fmt.Errorf("%w: Adopt of a cl_mem of another context than %s's", ErrForeign, s.Name)
	}
	if bytes > size {
		return nil, fmt.Errorf("opencl: Adopt of %d bytes of a %d-byte cl_mem: %w", bytes, size, device.ErrOutOfRange)
	}
	if retain {
		if err := cl.Retain(cl.KindMem, mem); err != nil {
			return nil, err
		}
	}
	return d.track(&devkit.Root{H: mem, Size: size, User: bytes, Adopted: true})
}
