package cl

import (
	"github.com/resident-go/resident/device"

	"fmt"
	"unsafe"
)

// CommandQueue is a cl_command_queue. OpenCL queues are safe for concurrent
// enqueues; an in-order queue runs commands in enqueue order.
//
// Methods named Enqueue* do not block and take host memory as an
// unsafe.Pointer that must be C memory (a mapped buffer, AllocHost) kept
// valid until the command completes: cgo forbids C keeping a Go pointer.
// The other transfer methods block and take Go slices. Every method takes
// an optional wait list and, where it enqueues, an optional *Event to
// receive the command's event (which the caller then Releases).
type CommandQueue struct {
	h   uintptr
	dev DeviceID
}

// Handle returns the raw cl_command_queue.
func (q *CommandQueue) Handle() uintptr { return q.h }

// Device returns the queue's device.
func (q *CommandQueue) Device() DeviceID { return q.dev }

// Release drops the queue. Releasing twice is a no-op (not concurrently).
func (q *CommandQueue) Release() error { return releaseHandle(kindQueue, &q.h) }

// ReferenceCount is the queue's CL_QUEUE_REFERENCE_COUNT: the caller's
// references and the driver's (PoCL counts each event not yet released,
// its own references to finished commands' events included). Stale the
// moment it is read.
func (q *CommandQueue) ReferenceCount() (int, error) {
	n, err := infoUint("clGetCommandQueueInfo", kindQueue, q.h, 0, queueReferenceCount)
	return int(n), err
}

// Flush submits queued commands to the device without waiting (clFlush).
func (q *CommandQueue) Flush() error { return check("clFlush", clFlush(q.h)) }

// Finish blocks until every queued command completes (clFinish).
func (q *CommandQueue) Finish() error { return check("clFinish", clFinish(q.h)) }

func bufRange(op string, b *Buffer, off, n int) error {
	if off < 0 || n < 0 || off+n > b.size {
		return fmt.Errorf("opencl: %s [%d, %d) of a %d-byte buffer: %w", op, off, off+n, b.size, device.ErrOutOfRange)
	}
	return nil
}

// ReadBuffer copies len(dst) bytes from src at srcOff into dst, blocking.
func (q *CommandQueue) ReadBuffer(dst []byte, src *Buffer, srcOff int, wait []Event) error {
	if err := bufRange("ReadBuffer", src, srcOff, len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	return check("clEnqueueReadBuffer", clRW(q.h, src.h, false, true, srcOff, len(dst), unsafe.Pointer(&dst[0]), nonZero(wait), nil))
}

// WriteBuffer copies src into dst at dstOff, blocking.
func (q *CommandQueue) WriteBuffer(dst *Buffer, dstOff int, src []byte, wait []Event) error {
	if err := bufRange("WriteBuffer", dst, dstOff, len(src)); err != nil || len(src) == 0 {
		return err
	}
	return check("clEnqueueWriteBuffer", clRW(q.h, dst.h, true, true, dstOff, len(src), unsafe.Pointer(&src[0]), nonZero(wait), nil))
}

// EnqueueReadBuffer starts a copy of n bytes from src at srcOff to the C
// memory at dst.
func (q *CommandQueue) EnqueueReadBuffer(dst unsafe.Pointer, src *Buffer, srcOff, n int, wait []Event, ev *Event) error {
	if err := bufRange("EnqueueReadBuffer", src, srcOff, n); err != nil {
		return err
	}
	return check("clEnqueueReadBuffer", clRW(q.h, src.h, false, false, srcOff, n, dst, nonZero(wait), ev))
}

// EnqueueWriteBuffer starts a copy of n bytes from the C memory at src to
// dst at dstOff.
func (q *CommandQueue) EnqueueWriteBuffer(dst *Buffer, dstOff int, src unsafe.Pointer, n int, wait []Event, ev *Event) error {
	if err := bufRange("EnqueueWriteBuffer", dst, dstOff, n); err != nil {
		return err
	}
	return check("clEnqueueWriteBuffer", clRW(q.h, dst.h, true, false, dstOff, n, src, nonZero(wait), ev))
}

// Rect is a 3-D box for the *BufferRect transfers: origins and Region are
// (bytes, rows, slices); a zero pitch means tightly packed. Region entries
// must be ≥ 1 (use 1 for unused dimensions).
type Rect struct {
	BufferOrigin, HostOrigin, Region [3]int
	BufferRowPitch, BufferSlicePitch int
	HostRowPitch, HostSlicePitch     int
}

// resolveSide fills in one side's default pitches (0: tightly packed) and
// checks that its box is well formed and ends within size bytes (size < 0:
// C memory of unknown size, not checked).
func resolveSide(op, side string, origin, region [3]int, rowp, slicep *int, size int) error {
	row, slice := *rowp, *slicep
	if row == 0 {
		row = region[0]
	}
	if slice == 0 {
		slice = region[1] * row
	}
	*rowp, *slicep = row, slice
	for i := range 3 {
		if origin[i] < 0 || region[i] < 1 {
			return fmt.Errorf("opencl: %s %s: origin %v region %v: want origin ≥ 0, region ≥ 1: %w", op, side, origin, region, device.ErrOutOfRange)
		}
	}
	if row < region[0] || slice < region[1]*row || slice%row != 0 {
		return fmt.Errorf("opencl: %s %s: row pitch %d, slice pitch %d for region %v: want row ≥ region[0], slice ≥ region[1]·row and a multiple of row: %w", op, side, row, slice, region, device.ErrOutOfRange)
	}
	// One past the last byte the box touches.
	end := origin[0] + origin[1]*row + origin[2]*slice + region[0] + (region[1]-1)*row + (region[2]-1)*slice
	if size >= 0 && end > size {
		return fmt.Errorf("opencl: %s reaches byte %d of %d %s bytes: %w", op, end, size, side, device.ErrOutOfRange)
	}
	return nil
}

func (r *Rect) resolve(op string, bufSize, hostLen int) error {
	if err := resolveSide(op, "buffer", r.BufferOrigin, r.Region, &r.BufferRowPitch, &r.BufferSlicePitch, bufSize); err != nil {
		return err
	}
	return resolveSide(op, "host", r.HostOrigin, r.Region, &r.HostRowPitch, &r.HostSlicePitch, hostLen)
}

// ReadBufferRect copies the box r from src into dst, blocking.
func (q *CommandQueue) ReadBufferRect(dst []byte, src *Buffer, r Rect, wait []Event) error {
	if err := r.resolve("ReadBufferRect", src.size, len(dst)); err != nil {
		return err
	}
	return check("clEnqueueReadBufferRect", clRWRect(q.h, src.h, false, true, &r, unsafe.Pointer(&dst[0]), nonZero(wait), nil))
}

// WriteBufferRect copies the box r from src into dst, blocking.
func (q *CommandQueue) WriteBufferRect(dst *Buffer, src []byte, r Rect, wait []Event) error {
	if err := r.resolve("WriteBufferRect", dst.size, len(src)); err != nil {
		return err
	}
	return check("clEnqueueWriteBufferRect", clRWRect(q.h, dst.h, true, true, &r, unsafe.Pointer(&src[0]), nonZero(wait), nil))
}

// EnqueueReadBufferRect starts a copy of the box r from src to C memory at
// dst, which must hold the whole host box.
func (q *CommandQueue) EnqueueReadBufferRect(dst unsafe.Pointer, src *Buffer, r Rect, wait []Event, ev *Event) error {
	if err := r.resolve("EnqueueReadBufferRect", src.size, -1); err != nil {
		return err
	}
	return check("clEnqueueReadBufferRect", clRWRect(q.h, src.h, false, false, &r, dst, nonZero(wait), ev))
}

// EnqueueWriteBufferRect starts a copy of the box r from C memory at src
// into dst.
func (q *CommandQueue) EnqueueWriteBufferRect(dst *Buffer, src unsafe.Pointer, r Rect, wait []Event, ev *Event) error {
	if err := r.resolve("EnqueueWriteBufferRect", dst.size, -1); err != nil {
		return err
	}
	return check("clEnqueueWriteBufferRect", clRWRect(q.h, dst.h, true, false, &r, src, nonZero(wait), ev))
}

// CopyBuffer enqueues a device-side copy of n bytes.
func (q *CommandQueue) CopyBuffer(dst *Buffer, dstOff int, src *Buffer, srcOff, n int, wait []Event, ev *Event) error {
	if err := bufRange("CopyBuffer source", src, srcOff, n); err != nil {
		return err
	}
	if err := bufRange("CopyBuffer destination", dst, dstOff, n); err != nil {
		return err
	}
	return check("clEnqueueCopyBuffer", clCopy(q.h, src.h, dst.h, srcOff, dstOff, n, nonZero(wait), ev))
}

// CopyRect is a 3-D box for CopyBufferRect, laid out like Rect.
type CopyRect struct {
	SrcOrigin, DstOrigin, Region [3]int
	SrcRowPitch, SrcSlicePitch   int
	DstRowPitch, DstSlicePitch   int
}

// CopyBufferRect enqueues a device-side copy of a box.
func (q *CommandQueue) CopyBufferRect(dst, src *Buffer, r CopyRect, wait []Event, ev *Event) error {
	if err := resolveSide("CopyBufferRect", "source", r.SrcOrigin, r.Region, &r.SrcRowPitch, &r.SrcSlicePitch, src.size); err != nil {
		return err
	}
	if err := resolveSide("CopyBufferRect", "destination", r.DstOrigin, r.Region, &r.DstRowPitch, &r.DstSlicePitch, dst.size); err != nil {
		return err
	}
	return check("clEnqueueCopyBufferRect", clCopyRect(q.h, src.h, dst.h, &r, nonZero(wait), ev))
}

// FillBuffer enqueues filling n bytes at off with a repeated pattern of 1,
// 2, 4, …, 128 bytes; off and n must be multiples of len(pattern).
func (q *CommandQueue) FillBuffer(dst *Buffer, pattern []byte, off, n int, wait []Event, ev *Event) error {
	p := len(pattern)
	if p == 0 || p&(p-1) != 0 || p > 128 || off%p != 0 || n%p != 0 {
		return fmt.Errorf("opencl: FillBuffer: pattern of %d bytes at %d for %d bytes: %w", p, off, n, &Error{Op: "clEnqueueFillBuffer", Code: CodeInvalidValue})
	}
	if err := bufRange("FillBuffer", dst, off, n); err != nil {
		return err
	}
	return check("clEnqueueFillBuffer", clFill(q.h, dst.h, pattern, off, n, nonZero(wait), ev))
}

// MapFlags is a cl_map_flags bit set.
type MapFlags uint64

const (
	MapRead                  MapFlags = 1 << 0
	MapWrite                 MapFlags = 1 << 1
	MapWriteInvalidateRegion MapFlags = 1 << 2
)

// MapBuffer maps n bytes of b at off into host memory, blocking, and
// returns them as a slice over C memory, valid until UnmapBuffer.
func (q *CommandQueue) MapBuffer(b *Buffer, flags MapFlags, off, n int, wait []Event) ([]byte, error) {
	if err := bufRange("MapBuffer", b, off, n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("opencl: MapBuffer of 0 bytes: %w", &Error{Op: "clEnqueueMapBuffer", Code: CodeInvalidValue})
	}
	p, code := clMap(q.h, b.h, true, uint64(flags), off, n, nonZero(wait), nil)
	if err := check("clEnqueueMapBuffer", code); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), n), nil
}

// UnmapBuffer enqueues the unmapping of a slice MapBuffer returned.
func (q *CommandQueue) UnmapBuffer(b *Buffer, mapped []byte, wait []Event, ev *Event) error {
	if len(mapped) == 0 {
		return fmt.Errorf("opencl: UnmapBuffer of an empty slice: %w", &Error{Op: "clEnqueueUnmapMemObject", Code: CodeInvalidValue})
	}
	return check("clEnqueueUnmapMemObject", clUnmap(q.h, b.h, unsafe.Pointer(&mapped[0]), nonZero(wait), ev))
}

// EnqueueKernel enqueues k over a 1-, 2- or 3-D range. offset and local may
// be nil (no offset; the driver picks the work-group size); otherwise they
// have len(global) entries.
func (q *CommandQueue) EnqueueKernel(k *Kernel, offset, global, local []int, wait []Event, ev *Event) error {
	dims := len(global)
	if dims < 1 || dims > 3 || (offset != nil && len(offset) != dims) || (local != nil && len(local) != dims) {
		return fmt.Errorf("opencl: EnqueueKernel %s: global %v, offset %v, local %v: want 1 to 3 dimensions, the same in each: %w", k.name, global, offset, local, &Error{Op: "clEnqueueNDRangeKernel", Code: -53})
	}
	var g [3]int
	copy(g[:], global)
	var o, l *[3]int
	if offset != nil {
		o = new([3]int)
		copy(o[:], offset)
	}
	if local != nil {
		l = new([3]int)
		copy(l[:], local)
	}
	return check("clEnqueueNDRangeKernel", clNDRange(q.h, k.h, dims, o, &g, l, nonZero(wait), ev))
}
