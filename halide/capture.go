package halide

import (
	"encoding/binary"
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide/internal/rt"
	"github.com/resident-go/resident/internal/devkit"
)

// Calls inside a capture (package device/capture). On CUDA the device's
// stream capture takes the runtime's launches by itself: they queue on the
// device's stream. On OpenCL the runtime's launches run as the call
// queues them and are recorded too (rt's clrec.c): each kernel with its
// arguments and grid, and a reference to it and to each device temporary
// and crop sub-buffer of the runtime's that it uses, held until the Graph
// closes. A call that moves data by itself (the runtime's own copies),
// or that fails, is refused: a replay would not do it as it ran.

// recording is a call's capture on an OpenCL device, nil when none.
type recording struct {
	rec  *devkit.Recording
	keep func(h uintptr) func() func() error
	c    *rt.CLRec
}

// beginRecording points f's ctx at a C record when the call runs on an
// OpenCL device that is capturing.
func (p *Pipeline) beginRecording(f *frame, d gpuDevice) (*recording, error) {
	if p.glue != clGlue {
		return nil, nil
	}
	fr, ok := d.(devkit.ForeignRecorder)
	if !ok {
		return nil, nil
	}
	rec, keep := fr.Recording()
	if rec == nil {
		return nil, nil
	}
	c := rt.NewCLRec()
	if c == nil {
		return nil, rec.Refuse(fmt.Errorf("halide: pipeline %s inside a capture on %s: out of C memory for its record: %w", p.name, d.Name(), devkit.ErrCapture))
	}
	f.c.Ctx.CLRec = c
	return &recording{rec, keep, c}, nil
}

// end adds what the call queued to the capture, as steps a replay queues
// again on d's queue, and refuses what a replay would not redo: a call
// that failed (ok false) among them, whose launches may be part of it.
func (r *recording) end(p *Pipeline, f *frame, d gpuDevice, ok bool) {
	f.c.Ctx.CLRec = nil
	ls, mems, why := r.c.Take()
	r.c.Free()
	release := func(h uintptr, kernel bool) func() error {
		return func() error {
			if code := rt.ReleaseCL(h, kernel); code != 0 {
				return fmt.Errorf("halide: releasing a recorded OpenCL object: error %d", code)
			}
			return nil
		}
	}
	for _, m := range mems {
		if err := devkit.KeepRef(r.rec, m, release(m, false)); err != nil {
			r.rec.Refuse(err)
		}
	}
	name := "halide." + p.name
	for _, l := range ls {
		if err := devkit.KeepRef(r.rec, l.Kernel, release(l.Kernel, true)); err != nil {
			r.rec.Refuse(err)
		}
		fk := &devkit.ForeignKernel{Kernel: l.Kernel, Grid: device.Grid{Dims: l.Dims}}
		for k := range l.Dims {
			fk.Grid.Global[k] = int(l.Global[k])
			if l.HasLocal {
				fk.Grid.Local[k] = int(l.Local[k])
			}
		}
		// Scalars of 1, 2 or 4 bytes are the step's Args (Graph.Scalar
		// finds them by their bytes); 8-byte values may be cl_mems: the
		// library's among them stay allocated (roots).
		var roots []uintptr
		args := make([]any, len(l.Args))
		for j, a := range l.Args {
			switch {
			case !a.Has:
			case a.Size == 8:
				if a.Val != 0 {
					roots = append(roots, uintptr(a.Val))
				}
			case a.Size == 1 || a.Size == 2 || a.Size == 4:
				args[j] = binary.LittleEndian.AppendUint64(nil, a.Val)[:a.Size]
			}
		}
		// Run is the device's (EndCapture): it queues the kernel itself
		r.rec.Record(&devkit.Step{Name: name, Args: args, Data: fk}, r.keep, roots...)
	}
	if !ok && why == "" {
		why = "the call failed, returning an error"
	}
	if why != "" {
		r.rec.Refuse(fmt.Errorf("halide: pipeline %s inside a capture on %s: %s, which a replay would not do again: make its inputs current on the device before recording (ops.On, or run the call once first): %w", p.name, d.Name(), why, devkit.ErrCapture))
	}
}
