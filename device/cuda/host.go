package cuda

import (
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
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

var (
	_ device.HostAllocator = (*Device)(nil)
	_ device.HostBlock     = (*HostBlock)(nil)
)

// AllocHost returns bytes bytes of pinned host memory, page-aligned, as a
// []byte over C memory. Free it with the block's Free (Close frees it
// too, unless it is still in use).
func (d *Device) AllocHost(bytes int) (device.HostBlock, error) {
	ctx := d.s.ctx
	p, err := devkit.AllocHost(&d.s.Core, bytes, func() (*pinned, error) {
		ptr, err := cu.HostAlloc(ctx, bytes, cu.HostAllocPortable)
		return &pinned{ptr: ptr, n: bytes}, err
	}, func(p *pinned) error { return cu.HostFree(ctx, p.ptr) })
	if err != nil {
		return nil, err
	}
	return &HostBlock{d: d, p: p}, nil
}

// Bytes returns the block's memory, valid until Free.
func (b *HostBlock) Bytes() []byte { return unsafe.Slice((*byte)(b.p.ptr), b.p.n) }

// Free releases the block. Idempotent. After the Device's Close, the last
// block freed releases the context.
func (b *HostBlock) Free() error {
	return b.d.s.FreeHost(b.p, func() error { return cu.HostFree(b.d.s.ctx, b.p.ptr) })
}
