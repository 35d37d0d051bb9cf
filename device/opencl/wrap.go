package opencl

import (
	"fmt"
)

// Wrap makes a Device over a cl_context and in-order cl_command_queue the
// caller created, for code that shares its own OpenCL context with this
// library and with Halide pipelines (Halide's user-context override). The
// queue must belong to the context. Wrap retains both and Close releases
// only those references: the caller keeps its own and releases them when
// it is done, before or after Close. Options tune the Device as for Open;
// Platform and Type are ignored.
func Wrap(context, queue uintptr, o Options) (*Device, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	if context == 0 || queue == 0 {
		return nil, fmt.Errorf("opencl: Wrap: null context or queue: %w", &Error{Op: "Wrap", Code: CodeInvalidValue})
	}
	qctx, err := infoUint("clGetCommandQueueInfo", kindQueue, queue, 0, queueContext)
	if err != nil {
		return nil, fmt.Errorf("opencl: Wrap: not a command queue: %w", err)
	}
	if uintptr(qctx) != context {
		return nil, fmt.Errorf("opencl: Wrap: the queue belongs to context %#x, not %#x: pass a queue created on the context: %w",
			qctx, context, &Error{Op: "Wrap", Code: -34 /* CL_INVALID_CONTEXT */})
	}
	dev, err := infoUint("clGetCommandQueueInfo", kindQueue, queue, 0, queueDevice)
	if err != nil {
		return nil, err
	}
	props, err := infoUint("clGetCommandQueueInfo", kindQueue, queue, 0, queueProperties)
	if err != nil {
		return nil, err
	}
	if QueueProperties(props)&QueueOutOfOrder != 0 {
		return nil, fmt.Errorf("opencl: Wrap: the queue is out-of-order; Halide and this library need an in-order queue: %w",
			&Error{Op: "Wrap", Code: CodeInvalidValue})
	}
	if err := check("clRetainContext", clRetain(kindContext, context)); err != nil {
		return nil, err
	}
	if err := check("clRetainCommandQueue", clRetain(kindQueue, queue)); err != nil {
		release(kindContext, context)
		return nil, err
	}
	o.defaults()
	id := DeviceID{uintptr(dev)}
	ctx := &Context{h: context, devices: []DeviceID{id}}
	q := &CommandQueue{h: queue, dev: id}
	return newDevice(o, id.Platform(), id, ctx, q), nil
}

// Queue info parameters (OpenCL 1.2).
const (
	queueContext    = 0x1090
	queueDevice     = 0x1091
	queueProperties = 0x1093

	contextReferenceCount = 0x1080
)

// Closed reports whether Close has run.
func (d *Device) Closed() bool { return d.isClosed() }

// ReferenceCount is the context's CL_CONTEXT_REFERENCE_COUNT: the
// references held by this library, by the caller and by objects made on
// it (programs, queues, buffers). OpenCL calls it stale the moment it is
// read; it is for finding leaks.
func (c *Context) ReferenceCount() (int, error) {
	n, err := infoUint("clGetContextInfo", kindContext, c.h, 0, contextReferenceCount)
	return int(n), err
}
