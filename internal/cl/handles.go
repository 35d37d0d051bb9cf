package cl

import (
	"errors"
	"strings"
	"unsafe"
)

// Handle-level calls, for layers that keep raw handles (a caching
// allocator of cl_mem, staging with events) and so skip the wrapper
// objects. Each returns an *Error naming the entry point on failure.

// kinds of Retain and Release.
const (
	KindMem     = kindMem
	KindContext = kindContext
	KindQueue   = kindQueue
)

// Retain adds a reference to the handle h of kind k (KindMem, ...).
func Retain(k int, h uintptr) error {
	return check(strings.Replace(releaseOps[k], "Release", "Retain", 1), clRetain(k, h))
}

// Release drops a reference to the handle h of kind k.
func Release(k int, h uintptr) error { return release(k, h) }

// ReleaseDevice drops a sub-device (a no-op on a root device).
func ReleaseDevice(d DeviceID) error { return check("clReleaseDevice", clReleaseDevice(d.id)) }

// CreateMem makes a cl_mem of size bytes in the context ctx.
func CreateMem(ctx uintptr, flags MemFlags, size int) (uintptr, error) {
	h, code := clCreateBuffer(ctx, uint64(flags), size)
	return h, check("clCreateBuffer", code)
}

// CreateSubMem makes a sub-buffer of mem: size bytes from origin.
func CreateSubMem(mem uintptr, flags MemFlags, origin, size int) (uintptr, error) {
	h, code := clCreateSubBuffer(mem, uint64(flags), origin, size)
	return h, check("clCreateSubBuffer", code)
}

// IsOutOfMemory reports whether err is an OpenCL out-of-memory code
// (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
// CL_OUT_OF_HOST_MEMORY): freeing cached memory and trying again may help.
func IsOutOfMemory(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Code == CodeMemObjectAllocationFail || e.Code == CodeOutOfResources || e.Code == CodeOutOfHostMemory)
}

func rwName(write, rect bool) string {
	n := "clEnqueueReadBuffer"
	if write {
		n = "clEnqueueWriteBuffer"
	}
	if rect {
		n += "Rect"
	}
	return n
}

// ReadWrite copies n bytes between host memory p and mem at off (write:
// host to device). Non-blocking calls need C or pinned memory at p.
func ReadWrite(q, mem uintptr, write, blocking bool, off, n int, p unsafe.Pointer, wait []Event, ev *Event) error {
	return check(rwName(write, false), clRW(q, mem, write, blocking, off, n, p, nonZero(wait), ev))
}

// ReadWriteRect is ReadWrite for the box r.
func ReadWriteRect(q, mem uintptr, write, blocking bool, r *Rect, p unsafe.Pointer, wait []Event, ev *Event) error {
	return check(rwName(write, true), clRWRect(q, mem, write, blocking, r, p, nonZero(wait), ev))
}

// CopyMem queues a copy of n bytes from src at srcOff to dst at dstOff.
func CopyMem(q, src, dst uintptr, srcOff, dstOff, n int, wait []Event, ev *Event) error {
	return check("clEnqueueCopyBuffer", clCopy(q, src, dst, srcOff, dstOff, n, nonZero(wait), ev))
}

// CopyMemRect queues a copy of the box r from src to dst.
func CopyMemRect(q, src, dst uintptr, r *CopyRect, wait []Event, ev *Event) error {
	return check("clEnqueueCopyBufferRect", clCopyRect(q, src, dst, r, nonZero(wait), ev))
}

// MapMem maps n bytes of mem at off into host memory.
func MapMem(q, mem uintptr, blocking bool, flags MapFlags, off, n int, wait []Event, ev *Event) (unsafe.Pointer, error) {
	p, code := clMap(q, mem, blocking, uint64(flags), off, n, nonZero(wait), ev)
	return p, check("clEnqueueMapBuffer", code)
}

// UnmapMem unmaps p, mapped from mem.
func UnmapMem(q, mem uintptr, p unsafe.Pointer, wait []Event, ev *Event) error {
	return check("clEnqueueUnmapMemObject", clUnmap(q, mem, p, nonZero(wait), ev))
}

// Flush submits the queue's commands to the device.
func Flush(q uintptr) error { return check("clFlush", clFlush(q)) }

// Marker queues a marker and returns its event, which completes when every
// command queued on q before it has.
func Marker(q uintptr) (Event, error) { return MarkerAfter(q, nil) }

// MarkerAfter queues a marker whose event completes when the events in
// wait have (with none, when every command queued on q before it has).
// The caller Releases the event.
func MarkerAfter(q uintptr, wait []Event) (Event, error) {
	ev, code := clMarker(q, nonZero(wait))
	return ev, check("clEnqueueMarkerWithWaitList", code)
}

// Barrier holds back the commands queued on q after it until the events in
// wait complete (with none, until every command queued before it has):
// how one in-order queue waits for another's work. ev, when not nil,
// receives the barrier's event.
func Barrier(q uintptr, wait []Event, ev *Event) error {
	return check("clEnqueueBarrierWithWaitList", clBarrier(q, nonZero(wait), ev))
}

// EventOf wraps a raw cl_event the caller holds a reference for.
func EventOf(h uintptr) Event { return Event{h: h} }

// DeviceOf wraps a raw cl_device_id.
func DeviceOf(h uintptr) DeviceID { return DeviceID{id: h} }

// Handle returns the raw cl_device_id.
func (d DeviceID) Handle() uintptr { return d.id }

// ContextOf wraps a cl_context the caller holds a reference for (Release
// drops it) whose devices are devs.
func ContextOf(h uintptr, devs ...DeviceID) *Context {
	return &Context{h: h, devices: append([]DeviceID(nil), devs...)}
}

// QueueOf wraps a cl_command_queue on dev the caller holds a reference for.
func QueueOf(h uintptr, dev DeviceID) *CommandQueue { return &CommandQueue{h: h, dev: dev} }

// QueueInfo returns a queue's context, device and properties.
func QueueInfo(q uintptr) (ctx uintptr, dev DeviceID, props QueueProperties, err error) {
	c, err := infoUint("clGetCommandQueueInfo", kindQueue, q, 0, queueContext)
	if err != nil {
		return 0, DeviceID{}, 0, err
	}
	d, err := infoUint("clGetCommandQueueInfo", kindQueue, q, 0, queueDevice)
	if err != nil {
		return 0, DeviceID{}, 0, err
	}
	p, err := infoUint("clGetCommandQueueInfo", kindQueue, q, 0, queueProperties)
	return uintptr(c), DeviceID{id: uintptr(d)}, QueueProperties(p), err
}

// Queue and context info parameters (OpenCL 1.2).
const (
	queueContext          = 0x1090
	queueDevice           = 0x1091
	queueReferenceCount   = 0x1092
	queueProperties       = 0x1093
	contextReferenceCount = 0x1080
)

// ReferenceCount is the context's CL_CONTEXT_REFERENCE_COUNT: the
// references held by this library, by the caller and by objects made on
// it (programs, queues, buffers). OpenCL calls it stale the moment it is
// read; it is for finding leaks.
func (c *Context) ReferenceCount() (int, error) {
	n, err := infoUint("clGetContextInfo", kindContext, c.h, 0, contextReferenceCount)
	return int(n), err
}

// MemInfo returns the context a cl_mem belongs to and its size in bytes.
func MemInfo(mem uintptr) (ctx uintptr, size int, err error) {
	c, err := infoUint("clGetMemObjectInfo", kindMem, mem, 0, 0x1106) // CL_MEM_CONTEXT
	if err != nil {
		return 0, 0, err
	}
	n, err := infoUint("clGetMemObjectInfo", kindMem, mem, 0, 0x1102) // CL_MEM_SIZE
	return uintptr(c), int(n), err
}
