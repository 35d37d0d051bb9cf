package opencl

import (
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// pinned is the mapping behind a host block (a CL_MEM_ALLOC_HOST_PTR
// buffer mapped once and kept mapped). The Device's state lists it, so
// it must not point back to the Device: that would keep an unreachable
// Device alive and its cleanup would never run.
type pinned struct {
	mem  uintptr
	ptr  unsafe.Pointer // the mapping, C memory
	data unsafe.Pointer // the block's first byte, HostAlign-aligned
	n    int
}

// Range is where the block lies, for the device's PinnedSet.
func (p *pinned) Range() (uintptr, int) { return uintptr(p.data), p.n }

// Bytes is the block's memory, valid until its Free.
func (p *pinned) Bytes() []byte { return unsafe.Slice((*byte)(p.data), p.n) }

// HostAlign is the alignment of AllocHost memory, as Halide's host
// allocations have.
const HostAlign = 128

var _ device.HostAllocator = (*Device)(nil)

// AllocHost returns bytes bytes of pinned host memory, HostAlign-aligned, as
// a []byte over C memory; transfers from or to slices inside it skip
// staging. Free it with the block's Free (Close frees it too; a block
// still in use then keeps the queue and context until its last Free).
func (d *Device) AllocHost(bytes int) (device.HostBlock, error) {
	return devkit.AllocHost(&d.s.Core, d, bytes, func() (*pinned, error) { return d.s.pin(bytes) },
		func(p *pinned) error { return d.s.unmapped(p.mem, p.ptr) })
}

// pin maps bytes of host-visible memory, HostAlign-aligned.
func (s *state) pin(bytes int) (*pinned, error) {
	mem, ptr, err := s.mapped(bytes)
	if err != nil {
		return nil, err
	}
	skip := 0
	if r := int(uintptr(ptr) % HostAlign); r != 0 {
		// Drivers map at page or base-address alignment; this is for one
		// that does not.
		s.unmapped(mem, ptr)
		if mem, ptr, err = s.mapped(bytes + HostAlign); err != nil {
			return nil, err
		}
		skip = (HostAlign - int(uintptr(ptr)%HostAlign)) % HostAlign
	}
	return &pinned{mem: mem, ptr: ptr, data: unsafe.Add(ptr, skip), n: bytes}, nil
}

// mapped creates a host-visible buffer and maps all of it.
func (s *state) mapped(bytes int) (uintptr, unsafe.Pointer, error) {
	mem, err := cl.CreateMem(s.ctx.Handle(), cl.MemReadWrite|cl.MemAllocHostPtr, bytes)
	if err != nil {
		return 0, nil, err
	}
	ptr, err := cl.MapMem(s.queue.Handle(), mem, true, cl.MapRead|cl.MapWrite, 0, bytes, nil, nil)
	if err != nil {
		cl.Release(cl.KindMem, mem)
		return 0, nil, err
	}
	return mem, ptr, nil
}

func (s *state) unmapped(mem uintptr, ptr unsafe.Pointer) error {
	var ev cl.Event
	err := cl.UnmapMem(s.queue.Handle(), mem, ptr, nil, &ev)
	if err == nil {
		err = ev.Wait()
		ev.Release()
	}
	if e := cl.Release(cl.KindMem, mem); err == nil {
		err = e
	}
	return err
}
