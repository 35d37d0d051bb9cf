package cuda

import (
	"fmt"

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
func (d *Device) own(a device.Allocation) (*alloc, error) { return devkit.Own(&d.s.pool, d, a) }

// Malloc returns a new allocation of bytes bytes, from the cache when a
// freed block of the same size bin is there. When the device is out of
// memory it frees the cache and tries once more.
func (d *Device) Malloc(bytes int) (device.Allocation, error) {
	s := d.s
	if bytes < 0 {
		return nil, fmt.Errorf("cuda: Malloc(%d): %w", bytes, device.ErrOutOfRange)
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.gate.Leave()
	size := devkit.BinSize(max(bytes, 1))
	h, hit, err := s.pool.Take(size, !s.opts.NoCache)
	if err != nil {
		return nil, err
	}
	ptr := cu.DevicePtr(h)
	if !hit {
		ptr, err = cu.MemAlloc(s.ctx, size)
		if cu.IsOutOfMemory(err) {
			d.ReleaseCache()
			ptr, err = cu.MemAlloc(s.ctx, size)
		}
		if err != nil {
			return nil, fmt.Errorf("cuda: Malloc(%d) on %s: %w", bytes, s.name, err)
		}
	}
	a, ok := devkit.Track(&s.pool, d, &devkit.Root{H: uintptr(ptr), Size: size, User: bytes})
	if !ok {
		cu.MemFree(s.ctx, ptr)
		return nil, ErrClosed
	}
	return a, nil
}

// Free releases an allocation or crop; the root's memory goes back to the
// cache once the root and all its crops are freed. Freeing twice, or after
// Close, is a no-op. All work is on one stream, so a cached block's next
// user comes after the work queued on it.
func (d *Device) Free(a device.Allocation) error {
	if err := d.s.enter(); err != nil {
		return nil // Close freed it
	}
	defer d.s.gate.Leave()
	r, err := devkit.Free(&d.s.pool, d, a)
	if r == nil || err != nil {
		return err
	}
	return cu.MemFree(d.s.ctx, cu.DevicePtr(r.H)) // waits for work queued on the block
}

// Crop returns an allocation that shares a's memory, starting off bytes
// into a and bytes long. Crops are not counted in AllocsLive.
func (d *Device) Crop(a device.Allocation, off, bytes int) (device.Allocation, error) {
	c, err := devkit.Crop(&d.s.pool, d, a, off, bytes)
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	return c, nil
}
