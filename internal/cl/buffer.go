package cl

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// Buffer is a cl_mem buffer object, or a sub-buffer of one.
type Buffer struct {
	h    uintptr
	size int
}

// WrapBuffer returns a Buffer for a raw cl_mem of size bytes that the caller
// owns; Release on it releases one reference.
func WrapBuffer(mem uintptr, size int) *Buffer { return &Buffer{h: mem, size: size} }

// Handle returns the raw cl_mem.
func (b *Buffer) Handle() uintptr { return b.h }

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Release drops the buffer. Releasing twice is a no-op (not concurrently).
func (b *Buffer) Release() error { return releaseHandle(kindMem, &b.h) }

// SubBuffer returns a buffer that shares b's memory from origin, size bytes
// long. origin must be a multiple of the device's MemBaseAddrAlign()/8
// bytes, or OpenCL returns CL_MISALIGNED_SUB_BUFFER_OFFSET.
func (b *Buffer) SubBuffer(flags MemFlags, origin, size int) (*Buffer, error) {
	if origin < 0 || size <= 0 || origin+size > b.size {
		return nil, fmt.Errorf("opencl: SubBuffer [%d, %d) of a %d-byte buffer: %w", origin, origin+size, b.size, device.ErrOutOfRange)
	}
	h, code := clCreateSubBuffer(b.h, uint64(flags&^memHostPtrFlags), origin, size)
	if err := check("clCreateSubBuffer", code); err != nil {
		return nil, err
	}
	return &Buffer{h: h, size: size}, nil
}
