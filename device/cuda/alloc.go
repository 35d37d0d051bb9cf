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

// Malloc returns a new allocation of bytes bytes, from the cache when a
// freed block of the same size bin is there. When the device is out of
// memory it frees the cache and tries once more.
func (d *Device) Malloc(bytes int) (device.Allocation, error) {
	return devkit.Malloc(&d.s.Core, d, bytes, d.s.opts.NoCache, nil)
}

// NewBlock allocates device memory (devkit.Driver).
func (s *state) NewBlock(size int) (uintptr, error) {
	p, err := cu.MemAlloc(s.ctx, size)
	return uintptr(p), err
}

// OutOfMemory is cu.IsOutOfMemory (devkit.Driver).
func (s *state) OutOfMemory(err error) bool { return cu.IsOutOfMemory(err) }

// Free releases an allocation or crop; the root's memory goes back to the
// cache once the root and all its crops are freed. Freeing twice, or after
// Close, is a no-op. All work is on one stream, so a cached block's next
// user comes after the work queued on it.
func (d *Device) Free(a device.Allocation) error { return devkit.FreeAlloc(&d.s.Core, d, a) }

// Crop returns an allocation that shares a's memory, starting off bytes
// into a and bytes long. Crops are not counted in AllocsLive.
func (d *Device) Crop(a device.Allocation, off, bytes int) (device.Allocation, error) {
	return devkit.CropAlloc(&d.s.Core, d, a, off, bytes)
}
