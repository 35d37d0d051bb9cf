package halide

import (
	"fmt"

	"github.com/resident-go/resident/halide/internal/rt"
	"github.com/resident-go/resident/internal/devkit"
)

// Calls inside a capture (package device/capture). On CUDA the device's
// stream capture takes the runtime's launches by itself: they queue on the
// device's stream. On OpenCL the runtime's launches run as the call
// queues them and are recorded too (rt's clrec.c): each kernel with its
// arguments and grid, and a reference to it and to each device temporary
// and crop sub-buffer of the runtime's that it uses, held until the Graph
// closes. A call that moves data by itself (the runtime's own copies) is
// refused: a replay would not move it again.

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
// again on d's queue, and refuses what a replay would not redo.
func (r *recording) end(p *Pipeline, f *frame, d gpuDevice) {
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
	_, queue := d.Handles()
	name := "halide." + p.name
	for i := range ls {
		l := &ls[i]
		if err := devkit.KeepRef(r.rec, l.Kernel, release(l.Kernel, true)); err != nil {
			r.rec.Refuse(err)
		}
		fk := &devkit.ForeignKernel{Kernel: l.Kernel, Dims: l.Dims}
		for k := range 3 {
			fk.Global[k] = int(l.Global[k])
			if l.HasLocal {
				fk.Local[k] = int(l.Local[k])
			}
		}
		words := make([]uintptr, 0, len(l.Words))
		for _, w := range l.Words {
			if w != 0 {
				words = append(words, uintptr(w)) // the library's cl_mems among them stay allocated
			}
		}
		run := func([]any) error {
			if code := rt.EnqueueCL(queue, l); code != 0 {
				return fmt.Errorf("halide: replaying a kernel of pipeline %s: OpenCL error %d", p.name, code)
			}
			return nil
		}
		r.rec.Record(&devkit.Step{Name: name, Run: run, Data: fk}, r.keep, words...)
	}
	if why != "" {
		r.rec.Refuse(fmt.Errorf("halide: pipeline %s inside a capture on %s: %s, which a replay would not do again: make its inputs current on the device before recording (ops.On, or run the call once first): %w", p.name, d.Name(), why, devkit.ErrCapture))
	}
}
