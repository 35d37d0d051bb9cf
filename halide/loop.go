package halide

import (
	"github.com/resident-go/resident/halide/internal/rt"
	"slices"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// loopInC runs the pipeline n times from a C loop with the arguments bound
// once: the C baseline the call-overhead benchmark compares Call with. It
// is exported to tests only (export_test.go).
func (p *Pipeline) loopInC(n int, args ...any) error {
	if len(args) != len(p.params) {
		return &Error{Pipeline: p.name, Code: -1, Msg: "wrong argument count"}
	}
	if p.gpu {
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
	if rc := rt.CallLoop(p.argv, f.c, n); rc != 0 {
		msg, hmsg := runtimeMessage(&f.c.Ctx)
		return &Error{Pipeline: p.name, Code: int(rc), Msg: msg, HalideMsg: hmsg}
	}
	return p.finish(f, nil, true)
}

// callMismatched is a test hook: it binds args (which must pass the Go
// checks), then hands the host pipeline the mismatch those checks refuse,
// in buffer argument j (an index of the call's arguments): type typ (when
// not nil), dims dimensions (when above 0, at most the declared count), or
// a NULL buffer (null). It returns the runtime's code and message, as its
// error handler got it.
func (p *Pipeline) callMismatched(j int, typ *array.Type, dims int, null bool, args ...any) (int, string, error) {
	if p.gpu {
		return 0, "", &Error{Pipeline: p.name, Code: -1, Msg: "callMismatched takes host pipelines only"}
	}
	f := p.getFrame()
	defer p.putFrame(f)
	if err := p.bind(f, args); err != nil {
		return 0, "", err
	}
	i := p.params[j]
	k := slices.Index(p.bufs, i)
	if k < 0 {
		return 0, "", &Error{Pipeline: p.name, Code: -1, Msg: "not a buffer argument"}
	}
	cb := f.bufs[k].cb
	keepType, keepDims := cb.B.Type, cb.B.Dimensions
	switch {
	case typ != nil:
		cb.B.Type.Code = uint8(typ.Code)
		cb.B.Type.Bits = uint8(typ.Bits)
		cb.B.Type.Lanes = uint16(typ.Lanes)
	case dims > 0:
		cb.B.Dimensions = int32(dims)
	case null:
		f.args[i] = nil
	}
	if err := p.prepareHost(f); err != nil {
		return 0, "", err
	}
	rc := rt.Call(p.argv, f.c)
	_, msg := runtimeMessage(&f.c.Ctx)
	cb.B.Type, cb.B.Dimensions = keepType, keepDims
	f.args[i] = unsafe.Pointer(&cb.B)
	return int(rc), msg, nil
}
