package halide

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"reflect"
	"strings"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/place"
	"github.com/resident-go/resident/internal/plumb"
)

// isNil reports whether d is nil or a typed nil pointer (a nil
// *opencl.Device), which calls refuse.
func isNil(d device.Device) bool {
	if d == nil {
		return true
	}
	v := reflect.ValueOf(d)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// deviceFor chooses the device of one call of an OpenCL pipeline by the
// module's one placement rule (place.Where; array's doc, "Where work
// runs"): want (Options.Device) is explicit; else the device the
// operands live on (Move arguments aside: the call may move them); else,
// with nothing allocated, DefaultDevice("OpenCL"). It routes the runtime to the
// device through the frame's user_context and refuses pipelines that use
// GPU textures, before anything moves.
func (p *Pipeline) deviceFor(f *frame, want device.Device) (gpuDevice, error) {
	explicit := want
	if explicit != nil && isNil(explicit) {
		return nil, &Error{Pipeline: p.name, Code: int(ErrNoDevice), Msg: "Options.Device is a nil pointer: pass a device (opencl.Open, opencl.Wrap, halide.DefaultDevice(\"OpenCL\")) or leave it nil for the placement rule"}
	}
	ins, outs := f.ins[:0], f.outs[:0]
	for k := range f.bufs[:f.used] {
		b := &f.bufs[k]
		switch {
		case b.move || b.r == nil:
		case p.args[p.bufs[k]].Kind == OutputBuffer:
			outs = append(outs, b.r)
		default:
			ins = append(ins, b.r)
		}
	}
	where, err := place.Where(explicit, place.Work{Pkg: "halide", Op: p.placeOp, Outputs: outs, Inputs: ins, DeviceOnly: p.gpu})
	clear(ins)
	clear(outs)
	switch {
	case errors.Is(err, device.ErrForeign):
		return nil, &Error{Pipeline: p.name, Code: int(ErrForeignDevice), err: err,
			Msg: err.Error() + " (or pass halide.Move(it) to let the call move it)"}
	case errors.Is(err, device.ErrClosed) && explicit == nil:
		// The operands' device is closing (the placement rule says so).
		return nil, &Error{Pipeline: p.name, Code: int(ErrDeviceClosed), err: err, Msg: err.Error()}
	case errors.Is(err, device.ErrClosed):
		if b, ok := plumb.BackendFor(explicit); ok && b.Closed != nil {
			err = b.Closed // wraps device.ErrClosed
		}
		return nil, &Error{Pipeline: p.name, Code: int(ErrDeviceClosed), err: err, Msg: fmt.Sprintf(
			"the device %s is closed: pass an open one as Options.Device (%s), or none for the default", explicit.Name(), p.glue.open)}
	case err != nil:
		return nil, &Error{Pipeline: p.name, Code: int(ErrNoDevice), err: err, Msg: err.Error()}
	}
	g := p.glue
	var dev gpuDevice
	if where != nil {
		d, ok := g.as(where)
		if !ok {
			return nil, p.notOn(where, explicit != nil)
		}
		dev = d
	} else {
		d, err := g.defaultDevice()
		if err != nil {
			return nil, &Error{Pipeline: p.name, Code: int(ErrNoDevice), err: err, Msg: "no " + g.api + " device: " + err.Error() + ": " + g.noDevice}
		}
		if dev, _ = g.as(d); dev == nil {
			return nil, p.notOn(d, true)
		}
	}
	if err := g.enter(p, f, dev); err != nil {
		var he *Error
		if errors.As(err, &he) {
			return nil, err
		}
		if errors.Is(err, device.ErrClosed) {
			return nil, &Error{Pipeline: p.name, Code: int(ErrDeviceClosed), err: err, Msg: fmt.Sprintf(
				"the device %s is closed: pass an open one as Options.Device (%s), or none for the default", dev.Name(), g.open)}
		}
		return nil, &Error{Pipeline: p.name, Code: int(ErrNoDevice), err: err, Msg: fmt.Sprintf("device %s: %v", dev.Name(), err)}
	}
	return dev, nil
}

// notOn is the error of a GPU pipeline placed on d, a device of another
// API: chosen explicitly, or where the operands live.
func (p *Pipeline) notOn(d device.Device, explicit bool) error {
	api := p.glue.api
	if explicit {
		return &Error{Pipeline: p.name, Code: int(ErrNoDevice), err: device.ErrForeign, Msg: fmt.Sprintf(
			"the pipeline runs on %s and %s is not %s: pass one (%s) as Options.Device, or build the generator for the host", api, d.Name(), p.glue.kind, p.glue.open)}
	}
	return &Error{Pipeline: p.name, Code: int(ErrForeignDevice), err: device.ErrForeign, Msg: fmt.Sprintf(
		"the operands live on %s, which is not %s, and the pipeline runs on %s: move them to one (Array.MoveTo, or DeviceFree then CopyToDevice), or pass halide.Move(it)", d.Name(), p.glue.kind, api)}
}

// bindCL routes ctx to cl as it is now: if cl is retired and reused for
// another device meanwhile (cl.c recycles them), the runtime's acquire
// for ctx fails instead of handing it the other device's context.
func bindCL(ctx *rt.Ctx, cl *rt.CL) { cl.Bind(ctx) }

// What a pipeline's kernels take, found by the first call.
const (
	textureUnknown = iota
	textureNone
	textureUsed
)

// checkTexture refuses a pipeline whose kernels take OpenCL images
// (buffers stored as MemoryType::GPUTexture). Halide 14's metadata does not
// say where a buffer is stored, and such a pipeline insists on its image
// device interface, so an Array's cl_mem fails at run time with
// incompatible_device_interface (-42). The first call finds out with a
// probe: a bounds query, during which the runtime builds the kernels (on
// entry, before anything else) through our clCreateProgramWithSource,
// which looks for image parameters and refuses to build them. A pipeline
// without textures just has its kernels built one call early.
func (p *Pipeline) checkTexture(cl *rt.CL, call *rt.Ctx) error {
	if p.texture.Load() == textureUnknown && !p.boundsQueries() {
		// Built with no_bounds_query: it cannot be probed safely (it
		// would take the query's NULL buffers for real ones), so a
		// texture shows up as the runtime's -42.
		p.texture.Store(textureNone)
	}
	if p.texture.Load() == textureUnknown {
		q := p.newQuery()
		bindCL(&q.f.c.Ctx, cl)
		// A multi-target pipeline may choose here: with the call's refusals.
		q.f.c.Ctx.TargetRefused = call.TargetRefused
		used := rt.TextureProbe(p.argv, q.f.c)
		p.noteTarget(&q.f.c.Ctx) // a multi-target pipeline chose here
		args := q.f.c.Ctx.TextureArgNames()
		q.free()
		if used {
			names := textureArgNames(args)
			p.texArgs.Store(&names)
			p.texture.Store(textureUsed)
		} else {
			p.texture.Store(textureNone)
		}
	}
	if p.texture.Load() != textureUsed {
		return nil
	}
	return &Error{Pipeline: p.name, Code: int(ErrTexture), Msg: fmt.Sprintf(
		"the pipeline stores %s in GPU texture memory (MemoryType::GPUTexture: its kernels take OpenCL images); Arrays live in OpenCL buffers, which Halide 14 cannot hand to an image kernel, so the call would fail with incompatible_device_interface (-42): drop store_in(MemoryType::GPUTexture) from the generator, or build it for the host",
		*p.texArgs.Load())}
}

// textureArgNames turns the kernels' image parameter names (Halide writes
// buffer b as _b) into the pipeline's argument names.
func textureArgNames(s string) string {
	var names []string
	seen := map[string]bool{}
	for _, n := range strings.Fields(s) {
		n = strings.TrimPrefix(n, "_")
		if !seen[n] {
			seen[n] = true
			names = append(names, fmt.Sprintf("%q", n))
		}
	}
	if len(names) == 0 {
		return "a buffer argument"
	}
	if len(names) == 1 {
		return "argument " + names[0]
	}
	return "arguments " + strings.Join(names, ", ")
}
