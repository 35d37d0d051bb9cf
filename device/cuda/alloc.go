package cuda

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// alloc is an Allocation of a Device: a root CUdeviceptr (Native) or a
// crop of it, its first byte at Native()+Offset().
type alloc = devkit.Alloc[*Device]

// at is the device address of byte off of a.
func at(a *alloc, off int) cu.DevicePtr { return cu.DevicePtr(a.Root.H) + cu.DevicePtr(a.Off+off) }

// own returns a as one of d's live allocations.
func (d *Device) own(a device.Allocation) (*alloc, error) { return devkit.Own(&d.s.Pool, d, a) }

// NewBlock allocates device memory (devkit.Driver).
func (s *state) NewBlock(size int) (uintptr, error) {
	p, err := cu.MemAlloc(s.ctx, size)
	return uintptr(p), err
}

// OutOfMemory is cu.IsOutOfMemory (devkit.Driver).
func (s *state) OutOfMemory(err error) bool { return cu.IsOutOfMemory(err) }
