package halide

// #include "shim.h"
import "C"

import (
	"fmt"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/checked"
	"github.com/resident-go/resident/internal/plumb"
)

// WrapCBuffer wraps the host memory of a halide_buffer_t that C code owns
// (buf is a struct halide_buffer_t*) as a host-only Array, without
// copying: element (x0, x1, …) is the one halide_buffer_t::address_of
// gives. The dims are copied, so the struct itself may go away; the host
// memory may not: C must keep it valid, and must not free it or write it
// concurrently, for as long as the Array or any view of it is in use (Close
// the Array first). The Array never frees it.
//
// Only host memory is wrapped: a buffer whose newer data is on a device
// (device_dirty) is refused, as are a NULL host pointer, a type other than
// T's, negative strides or extents, and dims whose span overflows or is
// more than memory holds (ErrBufferExtentsTooLarge). Being host-only, the
// Array is left current on the host by every pipeline call, as Halide's C
// callers expect.
func WrapCBuffer[T array.Elem](buf unsafe.Pointer) (*array.Array[T], error) {
	if buf == nil {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the halide_buffer_t* is NULL", ErrBufferIsNull)
	}
	b := (*C.struct_halide_buffer_t)(buf)
	t := goType(b._type)
	if want := array.TypeOf[T](); t != want {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the buffer holds %s, the Array %s: wrap it as the matching element type", ErrBadType, t, want)
	}
	if b.flags&C.halide_buffer_flag_device_dirty != 0 {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the buffer's data is newer on its device (device_dirty): call halide_copy_to_host first", ErrDeviceDirtyWithNoDeviceSupport)
	}
	if b.host == nil {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: the buffer has no host memory (a device-only buffer, or a bounds query)", ErrHostIsNull)
	}
	rank := int(b.dimensions)
	if rank < 0 || (rank > 0 && b.dim == nil) {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: %d dimensions, dim %p", ErrBadDimensions, rank, b.dim)
	}
	cd := unsafe.Slice(b.dim, rank)
	dims := make([]array.Dim, rank)
	span := 1 // elements from the min corner to the max, checked: C's dims are anything
	for i := range dims {
		d := goDim(cd[i])
		if d.Stride < 0 {
			return nil, fmt.Errorf("halide: WrapCBuffer: dimension %d has stride %d: negative strides are not supported, pass a buffer with positive strides", i, d.Stride)
		}
		if d.Extent < 0 {
			return nil, fmt.Errorf("halide: WrapCBuffer: %w: dimension %d has extent %d: pass extents ≥ 0", ErrBufferExtentsNegative, i, d.Extent)
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
	if bytes, ok := checked.Mul(span, size); !ok || bytes > maxWrapBytes || uintptr(bytes) > ^uintptr(0)-uintptr(unsafe.Pointer(b.host)) {
		return nil, fmt.Errorf("halide: WrapCBuffer: %w: dims %v span %d elements of %d bytes, more than fit in memory at %p", ErrBufferExtentsTooLarge, dims, span, size, unsafe.Pointer(b.host))
	}
	data := unsafe.Slice((*T)(unsafe.Pointer(b.host)), span)
	return array.Wrap(data, dims)
}

// maxWrapBytes bounds the memory a wrapped buffer may claim: more than a
// 64-bit address space holds (2^47 bytes, amd64's and arm64's user space)
// is a corrupt halide_buffer_t, refused before unsafe.Slice panics on it.
const maxWrapBytes = 1<<47*(strconv.IntSize/64) + (1<<31-1)*(1-strconv.IntSize/64)

// goType is a halide_type_t as an array.Type.
func goType(t C.struct_halide_type_t) array.Type {
	return array.Type{Code: array.Code(t.code), Bits: uint8(t.bits), Lanes: uint16(t.lanes)}
}

// goDim is a halide_dimension_t as an array.Dim (strides in elements).
func goDim(d C.struct_halide_dimension_t) array.Dim {
	return array.Dim{Min: int(d.min), Extent: int(d.extent), Stride: int(d.stride)}
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
	c   *C.gohl_buf
	pin runtime.Pinner
}

// ExportBuffer returns a halide_buffer_t for b's host memory. It brings
// the host copy up to date first (copying from the device when the device
// copy is newer, which the transfer guard may refuse), and, as C may write
// through it, marks the host dirty when b has a device copy, like
// Array.Host: the next device consumer uploads. The struct has no device
// handle and no dirty bits. Close it when C is done.
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
	plumb.Array.Wrote(r, plumb.Host) // C may write: the next device consumer uploads
	cb := &CBuffer{s: s, r: r}
	runtime.AddCleanup(cb, func(s *cbufState) { s.close() }, s)
	return cb, nil
}

// Ptr is the struct halide_buffer_t*, valid until Close.
func (c *CBuffer) Ptr() unsafe.Pointer {
	if c.s.c == nil {
		return nil
	}
	return unsafe.Pointer(&c.s.c.b)
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
	var rc C.int
	if s.c.b.device != 0 {
		var ctx C.gohl_ctx
		C.gohl_ctx_init(&ctx)
		rc = C.gohl_buf_reclaim(&ctx, s.c)
	}
	C.gohl_buf_free(s.c)
	s.c = nil
	s.pin.Unpin()
	if rc != 0 {
		return &Error{Pipeline: "(CBuffer.Close)", Code: int(rc), Msg: "freeing the device allocation C made"}
	}
	return nil
}
