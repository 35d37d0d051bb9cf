package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// The capture side (package device/capture). Kernels, copies and
// transfers run as they are queued and are recorded at these entry points
// with their arguments. Where the device has cl_khr_command_buffer
// (0.9.0 to 0.9.4: PoCL 3.1 lists 0.9.0) and the work is kernels and
// buffer copies only, EndCapture records them into a command buffer and
// a replay is one enqueue (cmdbuf.go); else a replay queues the recorded
// steps again, skipping everything above the driver (placement,
// residency, argument planning). The buffers the steps use stay
// allocated until the Graph closes, so an op's temporaries are not
// reused under it.

var _ devkit.Capturer = (*Device)(nil)

// beginCapture starts recording d's queue into rec (Face.BeginCapture).
func (d *Device) beginCapture(rec *devkit.Recording) error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	return d.s.capture.Begin("opencl: "+d.s.Name, rec)
}

// endCapture stops recording into rec (Face.EndCapture).
func (d *Device) endCapture(rec *devkit.Recording) (devkit.Replayer, error) {
	if !d.s.capture.End(rec) {
		return nil, fmt.Errorf("opencl: EndCapture on %s without its BeginCapture", d.s.Name)
	}
	steps := rec.Steps()
	for _, st := range steps {
		if fk, ok := st.Data.(*devkit.ForeignKernel); ok { // Halide's
			f := &foreignStep{k: cl.KernelOf(fk.Kernel), g: fk.Grid}
			st.Data, st.Run = f, func(args []any) error { return d.enqueueForeign(f, args) }
		}
	}
	if r, err := d.commandBuffer(steps); r != nil || err != nil {
		return r, err
	}
	return &devkit.ReplaySteps{Gate: &d.s.Gate, ErrClosed: ErrClosed, Steps: steps}, nil
}

// record adds a step while a capture is on, keeping the buffers of args
// and extra allocated; data is what a command buffer records of it (nil:
// none can).
func (d *Device) record(name string, args []any, run func([]any) error, data any, extra ...uintptr) {
	if rec := d.s.capture.Load(); rec != nil {
		rec.Record(&devkit.Step{Name: name, Args: args, Run: run, Data: data}, d.s.Keep, extra...)
	}
}

// refuseRead fails a read-back inside a capture: a replay would not read
// again.
func (d *Device) refuseRead(what string) error {
	if rec := d.s.capture.Load(); rec != nil {
		return rec.Refuse(fmt.Errorf("opencl: %s on %s during a capture: a replay does not read results back to the host: keep the result in an Array (the reductions into an Array, not the *All forms): %w", what, d.s.Name, device.ErrOutOfRange))
	}
	return nil
}

var _ devkit.ForeignRecorder = (*Device)(nil)

// recording is the capture d's queue records into, nil when none, and
// d's block lookup (devkit.ForeignRecorder: Halide's pipeline calls).
func (d *Device) recording() (*devkit.Recording, func(h uintptr) func() func() error) {
	rec := d.s.capture.Load()
	if rec == nil {
		return nil, nil // no method value: calls outside a capture allocate nothing here
	}
	return rec, d.s.Keep
}

// foreignStep replays a kernel another runtime queued on d's queue
// (devkit.ForeignKernel): the Recording holds the kernel, so only the
// step sets its arguments, the scalars among a step's Args ([]byte), and
// only where Args is not the slice it set last (Scalar.Set makes a new
// one).
type foreignStep struct {
	k    *cl.Kernel
	g    device.Grid
	last []any
}

func (f *foreignStep) setArgs(args []any) error {
	if len(args) == 0 || len(f.last) > 0 && &f.last[0] == &args[0] {
		return nil
	}
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			if err := f.k.SetArg(i, b); err != nil {
				return err
			}
		}
	}
	f.last = args
	return nil
}

// enqueueForeign queues f again with args, counted as a launch.
func (d *Device) enqueueForeign(f *foreignStep, args []any) error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	if err := f.setArgs(args); err != nil {
		return fmt.Errorf("opencl: a recorded kernel on %s: %w", d.s.Name, err)
	}
	if err := d.s.queue.EnqueueKernel(f.k, nil, f.g.Global[:f.g.Dims], localOf(&f.g), nil, nil); err != nil {
		return fmt.Errorf("opencl: a recorded kernel on %s: %w", d.s.Name, err)
	}
	return d.pace()
}
