package halide

// #include "shim.h"
import "C"

// loopInC runs the pipeline n times from a C loop with the arguments bound
// once: the C baseline the call-overhead benchmark compares Call with. It
// is exported to tests only (export_test.go).
func (p *Pipeline) loopInC(n int, args ...any) error {
	if len(args) != len(p.params) {
		return &Error{Pipeline: p.name, Code: -1, Msg: "wrong argument count"}
	}
	if p.opencl {
		return &Error{Pipeline: p.name, Code: -1, Msg: "loopInC takes host pipelines only"}
	}
	f := p.getFrame()
	defer p.putFrame(f)
	if err := p.bind(f, args); err != nil {
		return err
	}
	if err := p.prepareHost(f); err != nil {
		return err
	}
	if rc := C.gohl_call_loop(p.argv, f.c, C.int64_t(n)); rc != 0 {
		return &Error{Pipeline: p.name, Code: int(rc), Msg: runtimeMessage(&f.c.ctx)}
	}
	return p.finish(f, nil, true)
}
