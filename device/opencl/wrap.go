package opencl

import (
	"fmt"

	"github.com/resident-go/resident/internal/cl"
)

// Wrap makes a Device over a cl_context and in-order cl_command_queue the
// caller created, for code that shares its own OpenCL context with this
// library and with Halide pipelines (Halide's user-context override). The
// queue must belong to the context. Wrap retains both and Close releases
// only those references: the caller keeps its own and releases them when
// it is done, before or after Close. Options tune the Device as for Open;
// Platform and Type are ignored.
func Wrap(context, queue uintptr, o Options) (*Device, error) {
	if err := cl.Load(); err != nil {
		return nil, err
	}
	if context == 0 || queue == 0 {
		return nil, fmt.Errorf("opencl: Wrap: null context or queue: %w", &cl.Error{Op: "Wrap", Code: cl.CodeInvalidValue})
	}
	qctx, id, props, err := cl.QueueInfo(queue)
	if err != nil {
		return nil, fmt.Errorf("opencl: Wrap: not a command queue: %w", err)
	}
	if qctx != context {
		return nil, fmt.Errorf("opencl: Wrap: the queue belongs to context %#x, not %#x: pass a queue created on the context: %w",
			qctx, context, &cl.Error{Op: "Wrap", Code: -34 /* CL_INVALID_CONTEXT */})
	}
	if props&cl.QueueOutOfOrder != 0 {
		return nil, fmt.Errorf("opencl: Wrap: the queue is out-of-order; Halide and this library need an in-order queue: %w",
			&cl.Error{Op: "Wrap", Code: cl.CodeInvalidValue})
	}
	if err := cl.Retain(cl.KindContext, context); err != nil {
		return nil, err
	}
	if err := cl.Retain(cl.KindQueue, queue); err != nil {
		cl.Release(cl.KindContext, context)
		return nil, err
	}
	o.defaults()
	ctx := cl.ContextOf(context, id)
	q := cl.QueueOf(queue, id)
	return newDevice(o, id.Platform(), id, ctx, q), nil
}
