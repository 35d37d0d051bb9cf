package cuda

import (
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// pinned is the memory behind a host block. The Device's state lists it, so
// it must not point back to the Device.
type pinned struct {
	ptr unsafe.Pointer // C memory, page-aligned
	n   int
}

// Range is where the block lies, for the device's PinnedSet.
func (p *pinned) Range() (uintptr, int) { return uintptr(p.ptr), p.n }

// Bytes is the block's memory, valid until its Free.
func (p *pinned) Bytes() []byte { return unsafe.Slice((*byte)(p.ptr), p.n) }

// HostAlign is the alignment of AllocHost memory at least (the driver's
// is a page), as Halide's host allocations have.
const HostAlign = 128

var _ device.HostAllocator = (*Device)(nil)

// AllocHost returns bytes bytes of pinned host memory (cuMemHostAlloc),
// page-aligned, as a []byte over C memory; transfers from or to slices
// inside it skip staging. Free it with the block's Free (Close frees it
// too, unless it is still in use; then its last Free releases the
// context).
func (d *Device) AllocHost(bytes int) (device.HostBlock, error) {
	ctx := d.s.ctx
	return devkit.AllocHost(&d.s.Core, d, bytes, func() (*pinned, error) {
		ptr, err := cu.HostAlloc(ctx, bytes, cu.HostAllocPortable)
		return &pinned{ptr: ptr, n: bytes}, err
	}, func(p *pinned) error { return cu.HostFree(ctx, p.ptr) })
}
