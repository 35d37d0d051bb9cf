package halide

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/checked"
	"github.com/resident-go/resident/internal/plumb"
)

// Ownership is what WrapCBuffer does with the buffer's device
// allocation, as Halide's Runtime::Buffer's BufferDeviceOwnership says who
// frees it.
type Ownership int

const (
	// IgnoreDevice wraps the host memory only; a device-dirty buffer is
	// refused (ErrDeviceDirtyWithNoDeviceSupport).
	IgnoreDevice Ownership = iota
	// TakeDevice: the Array takes the allocation over (Halide's
	// BufferDeviceOwnership::Allocated): it becomes the Array's device
	// copy, device-dirty as C's flags say, and is freed when the Array's
	// memory lets it go (Close, DeviceFree). C's struct lets go of it
	// (halide_device_detach_native: device = 0, dirty bits cleared).
	TakeDevice
	// ShareDevice: the Array's device copy is C's allocation too, with a
	// reference of its own (BufferDeviceOwnership::Unmanaged for the
	// Array): C keeps its struct as it was and frees its allocation as
	// before; neither side may use the memory while the other does.
	ShareDevice
)

// WrapOptions are WrapCBuffer's choices.
type WrapOptions struct {
	// Ownership of the buffer's device allocation; the zero value ignores it.
	Ownership Ownership
	// Device is the OpenCL device whose context holds the allocation
	// (nil: DefaultDevice("OpenCL")); a cl_mem of another context is refused
	// (ErrForeignDevice).
	Device device.Device
}

// WrapCBuffer wraps the host memory of a halide_buffer_t that C code owns
// (buf is a struct halide_buffer_t*) as a host-only Array, without
// copying: element (x0, x1, …) is the one halide_buffer_t::address_of
// gives. The dims are copied, so the struct itself may go away; the host
// memory may not: C must keep it valid, and must not free it or write it
// concurrently, for as long as the Array or any view of it is in use (Close
// the Array first). The Array never frees it. Being host-only, the Array
// is left current on the host by every pipeline call, as Halide's C
// callers expect.
//
// o chooses what happens to the buffer's device allocation (an OpenCL
// one, at offset 0: a device crop is refused). The zero WrapOptions
// ignores it, and a device-dirty buffer is refused; with TakeDevice or
// ShareDevice a device-dirty buffer is accepted: the Array's device copy
// is C's allocation, without copying, and the next OpenCL pipeline on
// that device reads it there; reading it on the host copies it home
// (counted in the device's Stats). The other refusals are layouts an
// Array cannot hold (ErrBufferExtentsNegative for a negative extent,
// ErrBadDimensions for a negative stride, or one of stride 0, or strides
// that alias, ErrBadType, ErrHostIsNull, ErrBufferExtentsTooLarge): pass
// such a buffer to a pipeline as it is with PassCBuffer, which lets the
// pipeline accept it or return its own code, as Halide does.
func WrapCBuffer[T array.Elem](buf unsafe.Pointer, o WrapOptions) (*array.Array[T], error) {
	if buf == nil {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the halide_buffer_t* is NULL", ErrBufferIsNull)
	}
	b := (*rt.Buffer)(buf)
	t := goType(b.Type)
	if want := array.TypeOf[T](); t != want {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the buffer holds %s, the Array %s: wrap it as the matching element type", ErrBadType, t, want)
	}
	if o.Ownership == IgnoreDevice && b.Flags&rt.DeviceDirty != 0 {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the buffer's data is newer on its device (device_dirty): call halide_copy_to_host first, or wrap it with an Ownership (TakeDevice, ShareDevice)", ErrDeviceDirtyWithNoDeviceSupport)
	}
	if o.Ownership < IgnoreDevice || o.Ownership > ShareDevice {
		return nil, fmt.Errorf("halide: WrapCBuffer: Ownership %d: use IgnoreDevice, TakeDevice or ShareDevice", o.Ownership)
	}
	if b.Host == nil {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the buffer has no host memory (a device-only buffer, or a bounds query): pass it to the pipeline as it is with PassCBuffer", ErrHostIsNull)
	}
	rank := int(b.Dimensions)
	if rank < 0 || (rank > 0 && b.Dim == nil) {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: %d dimensions, dim %p", ErrBadDimensions, rank, b.Dim)
	}
	cd := unsafe.Slice(b.Dim, rank)
	dims := make([]array.Dim, rank)
	span := 1 // elements from the min corner to the max, checked: C's dims are anything
	for i := range dims {
		d := goDim(cd[i])
		if d.Extent < 0 {
			return nil, fmt.Errorf("halide: WrapCBuffer: %w: dimension %d has extent %d: an Array's extents are ≥ 0 (PassCBuffer lets the pipeline return its own code)", ErrBufferExtentsNegative, i, d.Extent)
		}
		if d.Stride < 0 || d.Stride == 0 && d.Extent > 1 {
			return nil, fmt.Errorf("halide: WrapCBuffer: %w: dimension %d has stride %d: an Array's strides are > 0 (pass a broadcast or reversed buffer as it is with PassCBuffer)", ErrBadDimensions, i, d.Stride)
		}
		if d.Extent == 0 {
			span = 0
		} else if span > 0 {
			step, ok := checked.Mul(d.Extent-1, d.Stride)
			if ok {
				span, ok = checked.Add(span, step)
			}
			if !ok {
				return nil, fmt.Errorf("halide: WrapCBuffer: %w: dimension %d (extent %d, stride %d) takes the buffer's span past the int range: no such buffer fits in memory", ErrBufferExtentsTooLarge, i, d.Extent, d.Stride)
			}
		}
		dims[i] = d
	}
	size := int(unsafe.Sizeof(*new(T)))
	if bytes, ok := checked.Mul(span, size); !ok || bytes > maxWrapBytes || uintptr(bytes) > ^uintptr(0)-uintptr(unsafe.Pointer(b.Host)) {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: dims %v span %d elements of %d bytes, more than fit in memory at %p", ErrBufferExtentsTooLarge, dims, span, size, unsafe.Pointer(b.Host))
	}
	data := unsafe.Slice((*T)(unsafe.Pointer(b.Host)), span)
	a, err := array.Wrap(data, dims)
	if err != nil {
		// Strides that alias: two elements at one address.
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: %w (pass the buffer as it is with PassCBuffer)", ErrBadDimensions, err)
	}
	if o.Ownership == IgnoreDevice || b.Device == 0 {
		return a, nil
	}
	if err := adoptDevice(a, b, span*size, o); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// adoptDevice makes b's OpenCL allocation a's device copy (wrapOpts' Ownership).
func adoptDevice[T array.Elem](a *array.Array[T], b *rt.Buffer, bytes int, o WrapOptions) error {
	if b.DeviceInterface != rt.OpenCLDeviceInterface() {
		return fmt.Errorf("halide: WrapCBuffer: %w: the buffer's device allocation is not an OpenCL one (only OpenCL buffers can be adopted): copy it home with halide_copy_to_host and wrap with IgnoreDevice", ErrIncompatibleDeviceInterface)
	}
	dev := o.Device
	if dev == nil {
		d, err := DefaultDevice("OpenCL")
		if err != nil {
			return fmt.Errorf("halide: WrapCBuffer: %w: %w", ErrNoDevice, err)
		}
		dev = d
	}
	d, ok := asCL(dev)
	if !ok {
		return fmt.Errorf("halide: WrapCBuffer: %w: %s is not an OpenCL device", ErrNoDevice, dev.Name())
	}
	adopter, ok := dev.(interface {
		Adopt(mem uintptr, bytes int, retain bool) (device.Allocation, error)
	})
	if !ok {
		return fmt.Errorf("halide: WrapCBuffer: %w: %s cannot adopt a cl_mem", ErrNoDevice, dev.Name())
	}
	var ctx rt.Ctx
	rt.InitCtx(&ctx)
	if off := rt.OpenCLCropOffset(unsafe.Pointer(&ctx), b); off != 0 {
		return fmt.Errorf("halide: WrapCBuffer: %w: the buffer is a device crop (byte offset %d in its cl_mem): wrap its parent, or copy it home with halide_copy_to_host", ErrBadDimensions, off)
	}
	mem := rt.OpenCLMem(unsafe.Pointer(&ctx), b)
	// A reference of the Array's own, whoever owns C's.
	alloc, err := adopter.Adopt(mem, bytes, true)
	if err != nil {
		if errors.Is(err, device.ErrForeign) {
			return &Error{Pipeline: "(WrapCBuffer)", Code: int(ErrForeignDevice), err: err, Msg: fmt.Sprintf("the buffer's cl_mem is not of %s's context: pass its device in WrapOptions.Device: %v", d.Name(), err)}
		}
		return fmt.Errorf("halide: WrapCBuffer: %w", err)
	}
	dirty := b.Flags&rt.DeviceDirty != 0
	if err := a.DeviceAdopt(d, alloc); err != nil { // frees alloc on error
		return fmt.Errorf("halide: WrapCBuffer: %w", err)
	}
	if o.Ownership == TakeDevice {
		// C's struct lets go of its handle, and its reference to the
		// cl_mem is dropped: the Array's is the one left.
		if rc := rt.DeviceDetachNative(unsafe.Pointer(&ctx), b); rc != 0 {
			return &Error{Pipeline: "(WrapCBuffer)", Code: int(rc), Msg: "halide_device_detach_native failed"}
		}
		rt.ReleaseCLMem(mem)
		b.Flags &^= rt.DeviceDirty | rt.HostDirty
	}
	if dirty {
		a.SetDeviceDirty(true)
	}
	return nil
}

// maxWrapBytes bounds the memory a wrapped buffer may claim: more than a
// 64-bit address space holds (2^47 bytes, amd64's and arm64's user space)
// is a corrupt halide_buffer_t, refused before unsafe.Slice panics on it.
const maxWrapBytes = 1<<47*(strconv.IntSize/64) + (1<<31-1)*(1-strconv.IntSize/64)

// goType is a halide_type_t as an array.Type.
func goType(t rt.Type) array.Type {
	return array.Type{Code: array.Code(t.Code), Bits: uint8(t.Bits), Lanes: uint16(t.Lanes)}
}

// goDim is a halide_dimension_t as an array.Dim (strides in elements).
func goDim(d rt.Dim) array.Dim {
	return array.Dim{Min: int(d.Min), Extent: int(d.Extent), Stride: int(d.Stride)}
}

// CBuffer is a halide_buffer_t in C memory that describes an Array's host
// memory, for C code that takes one (a Halide pipeline called from C, a C
// library). Get one with ExportBuffer; Ptr is the struct halide_buffer_t*.
//
// Ownership: the CBuffer owns the struct, and pins the Array's host memory
// while it is open, so C may keep the pointer until Close. C must not free
// the struct or the host memory. The Array must stay open (not Closed)
// while C uses the buffer; the CBuffer keeps it from being collected.
// While C uses it, Go code must not use the Array, and no pipeline may
// run on it. Close is idempotent; a cleanup closes a CBuffer that becomes
// unreachable.
type CBuffer struct {
	s *cbufState
	r *array.Raw // keeps the Array alive while exported
}

type cbufState struct {
	c   *rt.Buf
	pin runtime.Pinner
}

// ExportBuffer returns a halide_buffer_t for b's host memory. It brings
// the host copy up to date first (copying from the device when the device
// copy is newer, which the transfer guard may refuse), and, as C may write
// through it, marks the host dirty when b has a device copy, like
// Array.Host: the next device consumer uploads. A read-only view
// (array.Array.BroadcastTo: stride 0 where it repeats) is exported for
// reading only, marking nothing: C must not write through it. The struct
// has no device handle and no dirty bits. Close it when C is done.
func ExportBuffer(b array.Buffer) (*CBuffer, error) {
	r := rawOf(b)
	if r == nil || plumb.Array.Closed(r) {
		return nil, fmt.Errorf("halide: ExportBuffer: %w: a nil or closed Array", ErrBufferArgumentIsNull)
	}
	s := &cbufState{}
	c, err := newCBuf(r, &s.pin)
	if err != nil {
		return nil, fmt.Errorf("halide: ExportBuffer: %w", err)
	}
	s.c = c
	if plumb.Array.NeedsDownload(r) {
		err := plumb.CheckAutomatic(r.Device(), "export to C of a device-dirty "+r.Type().String()+" Array")
		if err == nil {
			err = plumb.Array.SyncHost(r)
		}
		if err != nil {
			s.close()
			return nil, err
		}
	}
	if r.Writable() {
		plumb.Array.Wrote(r, plumb.Host) // C may write: the next device consumer uploads
	}
	cb := &CBuffer{s: s, r: r}
	runtime.AddCleanup(cb, func(s *cbufState) { s.close() }, s)
	return cb, nil
}

// Ptr is the struct halide_buffer_t*, valid until Close.
func (c *CBuffer) Ptr() unsafe.Pointer {
	if c.s.c == nil {
		return nil
	}
	return unsafe.Pointer(&c.s.c.B)
}

// Close frees the struct and unpins the host memory. If C gave the buffer
// a device allocation (an OpenCL pipeline run from C does), Close copies
// its data to host and frees it first, through the runtime.
func (c *CBuffer) Close() error {
	err := c.s.close()
	runtime.KeepAlive(c)
	return err
}

func (s *cbufState) close() error {
	if s.c == nil {
		return nil
	}
	var rc int
	if s.c.B.Device != 0 {
		var ctx rt.Ctx
		rt.InitCtx(&ctx)
		rc = s.c.Reclaim(&ctx)
	}
	rt.FreeBuf(s.c)
	s.c = nil
	s.pin.Unpin()
	if rc != 0 {
		return &Error{Pipeline: "(CBuffer.Close)", Code: int(rc), Msg: "freeing the device allocation C made"}
	}
	return nil
}
