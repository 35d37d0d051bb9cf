package cuda

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// root is one cuMemAlloc block shared by an allocation and its crops.
type root struct {
	ptr  cu.DevicePtr
	size int // bytes of the block (the cache bin)
	user int // bytes the Malloc asked for, as counted in Stats
	refs int // the root allocation and its crops not yet freed; under state.mu
}

// alloc is an Allocation of a Device: the whole root or a crop of it.
type alloc struct {
	d     *Device
	r     *root
	off   int
	bytes int
	freed bool // under state.mu
}

func (a *alloc) Device() device.Device { return a.d }

// Native returns the root's CUdeviceptr; Offset says where this allocation
// starts in it, so its first byte is at Native()+Offset().
func (a *alloc) Native() uintptr { return uintptr(a.r.ptr) }
func (a *alloc) Offset() int     { return a.off }
func (a *alloc) Bytes() int      { return a.bytes }

// at is the device address of byte off of a.
func (a *alloc) at(off int) cu.DevicePtr { return a.r.ptr + cu.DevicePtr(a.off+off) }

// mine returns a as one of d's allocations, live or not.
func (d *Device) mine(a device.Allocation) (*alloc, error) {
	x, ok := a.(*alloc)
	if !ok || x == nil || x.d != d {
		return nil, fmt.Errorf("%w: %T", ErrForeign, a)
	}
	return x, nil
}

// own returns a as one of d's live allocations.
func (d *Device) own(a device.Allocation) (*alloc, error) {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	return d.ownLocked(a)
}

func (d *Device) ownLocked(a device.Allocation) (*alloc, error) {
	x, err := d.mine(a)
	if err != nil {
		return nil, err
	}
	if d.s.closed {
		return nil, ErrClosed
	}
	if x.freed {
		return nil, fmt.Errorf("%w: used after Free", ErrForeign)
	}
	return x, nil
}

// Malloc returns a new allocation of bytes bytes, from the cache when a
// freed block of the same size bin is there. When the device is out of
// memory it frees the cache and tries once more.
func (d *Device) Malloc(bytes int) (device.Allocation, error) {
	s := d.s
	if bytes < 0 {
		return nil, fmt.Errorf("cuda: Malloc(%d): %w", bytes, device.ErrOutOfRange)
	}
	size := devkit.BinSize(max(bytes, 1))
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	p, hit := s.cache.Get(size)
	s.mu.Unlock()
	ptr := cu.DevicePtr(p)
	if hit {
		s.counters.CacheHit()
		s.counters.Cached(-size)
	} else {
		if !s.opts.NoCache {
			s.counters.CacheMiss()
		}
		var err error
		ptr, err = cu.MemAlloc(s.ctx, size)
		if cu.IsOutOfMemory(err) {
			d.ReleaseCache()
			ptr, err = cu.MemAlloc(s.ctx, size)
		}
		if err != nil {
			return nil, fmt.Errorf("cuda: Malloc(%d) on %s: %w", bytes, s.name, err)
		}
	}
	r := &root{ptr: ptr, size: size, user: bytes, refs: 1}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cu.MemFree(s.ctx, ptr)
		return nil, ErrClosed
	}
	s.live[r] = struct{}{}
	s.mu.Unlock()
	s.counters.Alloc(bytes)
	return &alloc{d: d, r: r, bytes: bytes}, nil
}

// Free releases an allocation or crop; the root's memory goes back to the
// cache once the root and all its crops are freed. Freeing twice, or after
// Close, is a no-op. Work queued on the stream that still uses the block
// is ordered before any later use of it, since all of it is on one stream.
func (d *Device) Free(a device.Allocation) error {
	x, err := d.mine(a)
	if err != nil {
		return err
	}
	s := d.s
	s.mu.Lock()
	if x.freed || s.closed {
		s.mu.Unlock()
		return nil
	}
	x.freed = true
	r := x.r
	r.refs--
	if r.refs > 0 {
		s.mu.Unlock()
		return nil
	}
	delete(s.live, r)
	kept := s.cache.Put(uintptr(r.ptr), r.size)
	s.mu.Unlock()
	s.counters.Release(r.user)
	if kept {
		s.counters.Cached(r.size)
		return nil
	}
	// cuMemFree waits for the work queued on the block to finish.
	return cu.MemFree(s.ctx, r.ptr)
}

// Crop returns an allocation that shares a's memory, starting off bytes
// into a and bytes long. Crops are not counted in AllocsLive.
func (d *Device) Crop(a device.Allocation, off, bytes int) (device.Allocation, error) {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	x, err := d.ownLocked(a)
	if err != nil {
		return nil, err
	}
	if off < 0 || bytes < 0 || off > x.bytes || bytes > x.bytes-off {
		return nil, fmt.Errorf("cuda: Crop [%d, %d) of a %d-byte allocation: %w", off, off+bytes, x.bytes, device.ErrOutOfRange)
	}
	x.r.refs++
	return &alloc{d: d, r: x.r, off: x.off + off, bytes: bytes}, nil
}
