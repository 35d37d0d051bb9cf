package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
)

// HostBlock is pinned host memory from cuMemHostAlloc. Transfers from or
// to slices inside it skip staging and run at the bus's full speed.
type HostBlock struct {
	d *Device // keeps the Device, and so the context, alive
	p *pinned
}

// pinned is the memory behind a HostBlock. The Device's state lists it, so
// it must not point back to the Device.
type pinned struct {
	ptr unsafe.Pointer // C memory, page-aligned
	n   int
}

// Range is where the block lies, for the device's PinnedSet.
func (p *pinned) Range() (uintptr, int) { return uintptr(p.ptr), p.n }

// HostAlign is the alignment of AllocHost memory at least (the driver's
// is a page), as Halide's host allocations have.
const HostAlign = 128

var _ device.HostBlock = (*HostBlock)(nil)

// AllocHost returns bytes bytes of pinned host memory, page-aligned, as a
// []byte over C memory. Free it with the block's Free (Close frees it
// too, unless it is still in use).
func (d *Device) AllocHost(bytes int) (device.HostBlock, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost(%d): want > 0: %w", bytes, device.ErrOutOfRange)
	}
	if err := d.s.enter(); err != nil {
		return nil, err
	}
	defer d.s.gate.Leave()
	ptr, err := cu.HostAlloc(d.s.ctx, bytes, cu.HostAllocPortable)
	if err != nil {
		return nil, fmt.Errorf("cuda: AllocHost(%d) on %s: %w", bytes, d.s.name, err)
	}
	p := &pinned{ptr: ptr, n: bytes}
	if !d.s.pins.Add(p) {
		cu.HostFree(d.s.ctx, ptr)
		return nil, ErrClosed
	}
	return &HostBlock{d: d, p: p}, nil
}

// Bytes returns the block's memory, valid until Free.
func (b *HostBlock) Bytes() []byte { return unsafe.Slice((*byte)(b.p.ptr), b.p.n) }

// Free releases the block. Idempotent. After the Device's Close, the last
// block freed releases the context.
func (b *HostBlock) Free() error {
	s := b.d.s
	removed, last := s.pins.Remove(b.p)
	if !removed {
		return nil
	}
	err := cu.HostFree(s.ctx, b.p.ptr)
	if last {
		err = errors.Join(err, s.release())
	}
	return err
}

// pinnedHost reports whether host lies in one of the device's pinned
// blocks.
func (s *state) pinnedHost(host []byte) bool {
	return len(host) > 0 && s.pins.Contains(uintptr(unsafe.Pointer(&host[0])), len(host))
}
