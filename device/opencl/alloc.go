package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// root is one cl_mem shared by an allocation and its crops.
type root struct {
	mem  uintptr
	size int // bytes of the cl_mem (the cache bin)
	user int // bytes the Malloc asked for, as counted in Stats
	refs int // the root allocation and its crops not yet freed; under state.mu
	// adopted: made by other code (Adopt), so released, never cached.
	adopted bool
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

// Native returns the root cl_mem; Offset says where this allocation starts
// in it.
func (a *alloc) Native() uintptr { return a.r.mem }
func (a *alloc) Offset() int     { return a.off }
func (a *alloc) Bytes() int      { return a.bytes }

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

// ownLocked is own for a caller that holds d.s.mu.
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
// freed block of the same size bin is there. Sizes above the device's
// CL_DEVICE_MAX_MEM_ALLOC_SIZE fail with CL_INVALID_BUFFER_SIZE.
func (d *Device) Malloc(bytes int) (device.Allocation, error) {
	s := d.s
	if bytes < 0 {
		return nil, fmt.Errorf("opencl: Malloc(%d): %w", bytes, device.ErrOutOfRange)
	}
	n := max(bytes, 1)
	if n > s.maxAlloc {
		return nil, fmt.Errorf("opencl: Malloc(%d) on %s exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (%d bytes): %w",
			bytes, s.name, s.maxAlloc, &cl.Error{Op: "clCreateBuffer", Code: cl.CodeInvalidBufferSize})
	}
	size := devkit.BinSize(n)
	if size > s.maxAlloc {
		size = n
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	mem, hit := s.cache.Get(size)
	s.mu.Unlock()
	if hit {
		s.counters.CacheHit()
		s.counters.Cached(-size)
	} else {
		if !s.opts.NoCache {
			s.counters.CacheMiss()
		}
		var err error
		mem, err = cl.CreateMem(s.ctx.Handle(), cl.MemReadWrite, size)
		if cl.IsOutOfMemory(err) {
			d.ReleaseCache()
			mem, err = cl.CreateMem(s.ctx.Handle(), cl.MemReadWrite, size)
		}
		if err != nil {
			return nil, fmt.Errorf("opencl: Malloc(%d) on %s: %w", bytes, s.name, err)
		}
	}
	return d.track(&root{mem: mem, size: size, user: bytes, refs: 1})
}

// track makes r live and returns its whole-root allocation; on a device
// closed meanwhile it releases r's cl_mem instead, so nothing leaks.
func (d *Device) track(r *root) (device.Allocation, error) {
	s := d.s
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cl.Release(cl.KindMem, r.mem)
		return nil, ErrClosed
	}
	s.live[r] = struct{}{}
	s.mu.Unlock()
	s.counters.Alloc(r.user)
	return &alloc{d: d, r: r, bytes: r.user}, nil
}

// Free releases an allocation or crop; the root's memory goes back to the
// cache once the root and all its crops are freed. Freeing twice, or after
// Close, is a no-op.
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
	kept := !r.adopted && s.cache.Put(r.mem, r.size)
	s.mu.Unlock()
	s.counters.Release(r.user)
	if kept {
		s.counters.Cached(r.size)
		return nil
	}
	return cl.Release(cl.KindMem, r.mem)
}

// Crop returns an allocation that shares a's memory (same root cl_mem),
// starting off bytes into a and bytes long. Crops are not counted in
// AllocsLive: they allocate nothing.
func (d *Device) Crop(a device.Allocation, off, bytes int) (device.Allocation, error) {
	// One critical section: the checks and the new reference must not be
	// split by a concurrent Free.
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	x, err := d.ownLocked(a)
	if err != nil {
		return nil, err
	}
	if off < 0 || bytes < 0 || off > x.bytes || bytes > x.bytes-off {
		return nil, fmt.Errorf("opencl: Crop [%d, %d) of a %d-byte allocation: %w", off, off+bytes, x.bytes, device.ErrOutOfRange)
	}
	x.r.refs++
	return &alloc{d: d, r: x.r, off: x.off + off, bytes: bytes}, nil
}

// subBufferAlign is the byte multiple a crop's offset must have to be a
// cl_mem sub-buffer (CL_DEVICE_MEM_BASE_ADDR_ALIGN), as Halide makes crops.
func (d *Device) subBufferAlign() int { return d.s.align }
