package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
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
	return d.s.capture.Load(), d.s.Keep
}
