package halide

import (
	"context"
	"errors"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	rguard "github.com/resident-go/resident/internal/guard"
	"math/bits"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// frame is one call's state: the C frame passed to NAME_argv (args,
// scalar slots, user_context with its message buffer) and what bind found
// for each buffer argument. Frames are pooled, so a steady-state call
// allocates nothing.
//
// Each buffer argument has its own halide_buffer_t in the frame (cbufs),
// filled per call from the Array's attachment, the template: flags and
// device handle are the call's own, so concurrent calls may read one
// Array. Device handles are set in prepare; an unchanged one (the
// steady state) costs no cgo call (rt's frame.c). Neither a Close nor a device
// closing frees memory under a running pipeline: the call holds a use of
// each Array and is inside its device's gate.
type frame struct {
	c       *rt.Frame
	args    []unsafe.Pointer // view of c.Args
	scalars []rt.Scalar      // view of c.Scalars
	bufs    []bound          // one per p.bufs
	cbufs   []*rt.Buf        // one per p.bufs, in C memory (rt.NewBufs)
	used    int              // bufs bound (those held release a use)
	crops   bool             // a buffer has a crop handle (dropped in finish)
	tmpl    []*attachment    // what cbufs[k] was last copied from
	gate    *deviceGate      // the device gate the call is inside, or nil
	st      *callState       // the call's Go state (options.go); nil for bounds queries
	cb      bool             // this call has Go hooks: take the entry point that calls Go
	clOpts  string           // the call's Options.OpenCLBuildOptions, for its device (enterCL)
	ins     []*array.Raw     // scratch for place.Where (device.go), cap len(bufs)
	outs    []*array.Raw     //
}

// frameMem is a frame's C memory, freed by the frame's cleanup.
type frameMem struct {
	c    *rt.Frame
	bufs []*rt.Buf
	slot int32
}

func (m frameMem) free() {
	dropState(m.slot)
	rt.FreeBufs(m.bufs)
	rt.FreeFrame(m.c)
}

// bound is one buffer argument of a call.
type bound struct {
	r        *array.Raw
	cb       *rt.Buf // the call's buffer: the frame's, or the first slot's for a dup
	hostOnly bool
	held     bool              // holds a use of r's memory (plumb.Acquire)
	alloc    device.Allocation // the Array's allocation (OpenCL), nil for a host-only temporary
	off      int               // byte offset of the view in alloc
	temp     device.Allocation // this call's temporary: host-only data or an aligned copy
	dup      bool              // an earlier slot has the same Array: it does the work
	move     bool              // the caller lets the call move it off another device (Move)
	out      bool              // this Array is an output of the call (in any slot)
}

func (p *Pipeline) newFrame() *frame {
	n := len(p.args)
	c := rt.NewFrame(n)
	if c == nil {
		panic("halide: out of C memory for a call frame")
	}
	nb := len(p.bufs)
	cbufs := rt.NewBufs(nb)
	if cbufs == nil {
		rt.FreeFrame(c)
		panic("halide: out of C memory for a call frame")
	}
	f := &frame{
		c:       c,
		args:    unsafe.Slice((*unsafe.Pointer)(unsafe.Pointer(c.Args)), n),
		scalars: unsafe.Slice(c.Scalars, n),
		bufs:    make([]bound, nb),
		ins:     make([]*array.Raw, 0, nb),
		outs:    make([]*array.Raw, 0, nb),
		tmpl:    make([]*attachment, nb),
		cbufs:   cbufs,
	}
	for k, i := range p.bufs {
		if f.cbufs[k] = rt.NewBuf(p.args[i].Dims); f.cbufs[k] == nil {
			frameMem{c, cbufs, 0}.free()
			panic("halide: out of C memory for a call frame")
		}
	}
	for i := range p.args {
		if !p.args[i].isBuffer() {
			f.args[i] = unsafe.Pointer(&f.scalars[i])
		}
	}
	if p.userCtx {
		// The handler gets exactly this pointer back: the call's ctx.
		f.args[0] = unsafe.Pointer(&c.UC)
	}
	return f
}

func (p *Pipeline) getFrame() *frame {
	if f, ok := p.frames.Get().(*frame); ok {
		return f
	}
	f := p.newFrame()
	f.st = &callState{}
	f.c.Ctx.Slot = addState(f.st)
	// The pool may drop a frame at a GC: free its C memory then. A frame
	// in the pool holds no device handle and no use of any Array.
	runtime.AddCleanup(f, frameMem.free, frameMem{f.c, f.cbufs, f.c.Ctx.Slot})
	return f
}

func (p *Pipeline) putFrame(f *frame) {
	for k := range f.used {
		b := &f.bufs[k]
		if b.held {
			plumb.Array.Release(b.r)
		}
		// Don't keep Arrays alive; the rest is rewritten by bind.
		b.r, b.alloc, b.temp = nil, nil, nil
	}
	f.used = 0
	if f.st != nil {
		f.st.dev, f.st.guard = nil, false
	}
	f.c.Ctx.TargetRefused = [rt.FeatureWords]uint64{}
	f.clOpts = ""
	if f.cb {
		// Keeps no user value alive.
		f.st.ctx, f.st.hooks, f.cb = nil, nil, false
		f.c.Ctx.Hooks = 0
	}
	p.frames.Put(f)
}

// Call runs the pipeline. Buffers are array.Buffers (Arrays of any element
// type, host views); scalars are Go values of exactly the pipeline's scalar
// type (int8…uint64, float32, float64, bool; uintptr for handles). Every
// argument is checked against the metadata before anything crosses into C.
//
// OpenCL pipelines run on the device the Arrays live on, else on
// DefaultDevice("OpenCL"); CallWith's Options.Device picks one per call. Arrays on two devices are an error (ErrForeignDevice) unless the
// caller asks for the move (Move, or array.MoveTo first). Inputs whose host copy is newer
// are uploaded first, outputs of device-aware Arrays stay on the device
// (device-dirty), host-only outputs are copied back and temporary device
// allocations freed. Host pipelines get device-dirty inputs copied to host
// first. Failures are *Error values; the runtime never aborts the process.
func (p *Pipeline) Call(args ...any) error {
	return p.callOn(nil, nil, args)
}

// callOn is every call: ctx (nil: none) may cancel it, o (nil: Call's)
// are its options.
func (p *Pipeline) callOn(ctx context.Context, o *Options, args []any) error {
	if len(args) != len(p.params) {
		return &Error{Pipeline: p.name, Code: int(ErrArgCount), Msg: fmt.Sprintf("takes %d arguments, got %d: %s", len(p.params), len(args), p)}
	}
	if err := p.canceled(ctx); err != nil {
		return err
	}
	f := p.getFrame()
	if o != nil && (o.Context != nil || o.Hooks != nil || o.Callbacks) {
		f.setState(o)
	}
	if o != nil && len(o.RefuseTargetFeatures) > 0 {
		bits, err := p.refusedFeatures(o.RefuseTargetFeatures)
		if err != nil {
			p.putFrame(f)
			return err
		}
		f.c.Ctx.TargetRefused = bits
	}
	if o != nil && o.OpenCLBuildOptions != "" && p.glue == clGlue {
		if err := p.checkBuildOptions(o.OpenCLBuildOptions); err != nil {
			p.putFrame(f)
			return err
		}
		f.clOpts = o.OpenCLBuildOptions
	}
	err := p.call(ctx, f, o, args)
	if err != nil && f.cb && f.st.hooks != nil && f.st.hooks.Error != nil {
		f.st.hooks.Error(f.st.ctx, err)
	}
	f.leaveGate()
	p.putFrame(f)
	return err
}

// leaveGate ends the call's stay inside its device's gate (deviceFor).
func (f *frame) leaveGate() {
	if f.gate != nil {
		f.gate.leave()
		f.gate = nil
	}
}

// call runs the pipeline with the call's options (nil: Call's) on the
// device deviceFor chooses (device.go). When ctx is done once the inputs
// are in place, the pipeline is not queued: finish frees the call's
// temporaries and records nothing, as for a failed call.
func (p *Pipeline) call(ctx context.Context, f *frame, o *Options, args []any) error {
	if err := p.bind(f, args); err != nil {
		return err
	}
	var want device.Device
	guard := false
	if o != nil {
		want, guard = o.Device, o.Guard
	}
	guard = guard || rguard.InContext(ctx) // device.WithGuard(ctx)
	var dev gpuDevice
	if p.gpu {
		var err error
		if dev, err = p.deviceFor(f, want); err != nil {
			return err
		}
	}
	if f.st != nil {
		f.st.dev, f.st.guard = dev, guard
	}

	if err := p.checkGuard(f, dev, guard); err != nil {
		return err
	}
	var err error
	if p.gpu {
		err = p.prepareOpenCL(f, dev)
	} else {
		err = p.prepareHost(f)
	}
	if err == nil {
		err = p.canceled(ctx)
	}
	var rec *recording
	if err == nil && p.gpu {
		rec, err = p.beginRecording(f, dev) // capture.go
	}
	rc := 0
	if err == nil {
		rc = p.invoke(f) // hooks.go: the fast entry point unless p has callbacks
	}
	if rec != nil {
		rec.end(p, f, dev, rc == 0 && err == nil)
	}
	if ferr := p.finish(f, dev, rc == 0 && err == nil); err == nil {
		err = ferr
	}
	if rc != 0 {
		msg, hmsg := runtimeMessage(&f.c.Ctx)
		// The device closed under the call: the runtime found no context
		// ("null context or cmd_queue") or failed in it.
		if p.gpu && p.glue.closing(dev) {
			e := p.closedError(dev, msg, closedErr(p.glue.api))
			e.HalideMsg = hmsg
			return e
		}
		if p.gpu && p.glue.note != nil {
			msg += p.glue.note(dev)
		}
		return &Error{Pipeline: p.name, Code: int(rc), Msg: msg, HalideMsg: hmsg}
	}
	if pace := p.pace(); err == nil && pace != nil {
		// Bounded work in flight: blocks while the queue is too far ahead.
		if err = pace(dev); errors.Is(err, device.ErrClosed) {
			err = p.closedError(dev, err.Error(), err)
		}
	}
	return err
}

// pace is the backend's bound on work in flight on a device; nil: none.
func (p *Pipeline) pace() func(device.Device) error {
	if !p.gpu {
		return nil
	}
	return p.glue.backend().Pace
}

// canceled is the error of a call whose ctx is done (ErrCanceled,
// wrapping ctx.Err()), nil while it is not or for a nil ctx.
func (p *Pipeline) canceled(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return &Error{Pipeline: p.name, Code: int(ErrCanceled), err: err, Msg: "the call's context is done (" + err.Error() + "): the pipeline did not run"}
	}
	return nil
}

// closedError is a call's failure because its device closed under it; it
// wraps device.ErrClosed.
func (p *Pipeline) closedError(dev gpuDevice, msg string, err error) *Error {
	return &Error{Pipeline: p.name, Code: int(ErrDeviceClosed), err: err, Msg: fmt.Sprintf(
		"the device %s closed during the call (%s): its results are lost; close a device only after the calls on it return", dev.Name(), msg)}
}

// bind checks args against the metadata and puts them in the frame:
// scalars into their C slots, buffers as their Arrays' halide_buffer_t.
func (p *Pipeline) bind(f *frame, args []any) error {
	k := 0 // next buffer slot
	for j, i := range p.params {
		a := &p.args[i]
		v := args[j]
		if !a.isBuffer() {
			if !setScalar(unsafe.Pointer(&f.scalars[i]), a.Type, v) {
				return p.argError(a, -3, describe(v))
			}
			continue
		}
		if v == nil {
			return p.argError(a, halideNullBuffer, "nil", nullSentence(a))
		}
		if c, ok := v.(CArg); ok {
			// C's halide_buffer_t as it is: the pipeline checks it and
			// the runtime moves its data, as for a C caller (cargs.go).
			if c.p == nil {
				return p.argError(a, halideNullBuffer, "a CArg of a NULL halide_buffer_t*", nullSentence(a))
			}
			f.bufs[k] = bound{}
			f.used = k + 1
			k++
			f.args[i] = c.p
			continue
		}
		mv, move := v.(moved)
		if move {
			v = mv.Buffer
			if v == nil {
				return p.argError(a, halideNullBuffer, "nil", nullSentence(a))
			}
		}
		b, ok := v.(array.Buffer)
		if !ok {
			return p.argError(a, -3, describe(v))
		}
		r := rawOf(b)
		switch {
		case r == nil:
			return p.argError(a, halideNullBuffer, describe(v), nullSentence(a))
		case r.Type() != a.Type:
			return p.argError(a, -3, describeRaw(r), typeSentence(a, r.Type()))
		case r.Rank() != a.Dims:
			return p.argError(a, -43, describeRaw(r), rankSentence(a, r.Rank()))
		case a.Kind == OutputBuffer && !r.Writable():
			return &Error{Pipeline: p.name, Code: int(ErrReadOnlyOutput), err: array.ErrReadOnly, Msg: fmt.Sprintf(
				"output %q is %s, a read-only view (BroadcastTo: its elements repeat), which a pipeline cannot write: pass a writable Array (ops.BroadcastTo makes a writable copy)", a.Name, describeRaw(r))}
		}
		// A use of the memory until putFrame: a concurrent Close frees
		// nothing this call relies on before then. A host pipeline on Go
		// memory needs none (f.bufs[k].r keeps the memory alive) unless
		// it reads the attachment below.
		held, err := plumb.Array.AcquireFor(r, p.gpu)
		if err != nil {
			e := p.argError(a, halideNullBuffer, "a closed Array", nullSentence(a)).(*Error)
			e.err = err
			return e
		}
		f.bufs[k] = bound{r: r, held: held, hostOnly: b.HostOnly(), out: a.Kind == OutputBuffer, move: move}
		f.used = k + 1
		cb := f.cbufs[k]
		for j := range k {
			if f.bufs[j].r == r && r != nil {
				f.bufs[k].dup = true
				f.bufs[j].out = f.bufs[j].out || a.Kind == OutputBuffer
				f.bufs[j].hostOnly = f.bufs[j].hostOnly || b.HostOnly()
				cb = f.bufs[j].cb
				break
			}
		}
		if cb == f.cbufs[k] { // a dup uses the first slot's buffer
			if err := p.fill(f, k, a, r); err != nil {
				return err
			}
		}
		f.bufs[k].cb = cb
		k++
		f.args[i] = unsafe.Pointer(&cb.B)
	}
	return nil
}

// fill makes the frame's buffer k describe r, from r's attachment (the
// template). Halide may write flags, device and device_interface of the
// call's buffer, never the template's, nor type, host and dims of the
// call's, so a frame that last held this template (the steady state: the
// same Arrays call after call) needs no copy, nor a use of r for it.
// f.tmpl keeps the attachment, so no new one can reuse its address.
func (p *Pipeline) fill(f *frame, k int, a *Arg, r *array.Raw) error {
	if att, _ := plumb.Array.Attachment(r).(*attachment); att != nil && f.tmpl[k] == att {
		return nil
	}
	// The template is read (and maybe made): under a use.
	if !f.bufs[k].held {
		if err := plumb.Array.Acquire(r); err != nil {
			e := p.argError(a, halideNullBuffer, "a closed Array", nullSentence(a)).(*Error)
			e.err = err
			return e
		}
		f.bufs[k].held = true
	}
	att, err := attachmentOf(r)
	if err != nil {
		return p.argError(a, -43, err.Error())
	}
	f.tmpl[k] = att
	t, cb := &att.c.B, f.cbufs[k]
	cb.B.Type = t.Type
	// Without a write barrier: the old value is the host pointer of the
	// frame's previous call, whose Array may have been freed since.
	cb.B.CopyHost(t)
	cb.B.Flags = 0
	copy(unsafe.Slice(cb.B.Dim, a.Dims), unsafe.Slice(t.Dim, a.Dims))
	return nil
}

// halideNullBuffer is halide_error_code_buffer_argument_is_null: nil
// arguments (untyped nil, a typed nil *Array, a zero host view) and closed
// Arrays, as Halide reports a NULL buffer pointer.
const halideNullBuffer = int(ErrBufferArgumentIsNull)

// argError is a mismatch found in Go. halide, when given, is the sentence
// Halide 14's runtime says for the same mismatch (halide_error_bad_type,
// bad_dimensions, buffer_argument_is_null in its errors.cpp), appended so
// that text searched for in Halide's documentation and issues is found.
func (p *Pipeline) argError(a *Arg, code int, got string, halide ...string) error {
	e := &Error{Pipeline: p.name, Code: code, Msg: fmt.Sprintf("argument %q wants %s, got %s", a.Name, a.want(), got)}
	if len(halide) > 0 {
		e.Msg += " (Halide: " + halide[0] + ")"
		e.HalideMsg = halide[0]
	}
	return e
}

// halideFuncName is how Halide's generated argument checks name a buffer.
func halideFuncName(a *Arg) string {
	if a.Kind == OutputBuffer {
		return "Output buffer " + a.Name
	}
	return "Input buffer " + a.Name
}

// typeSentence is halide_error_bad_type's message.
func typeSentence(a *Arg, got array.Type) string {
	return halideFuncName(a) + " has type " + halideTypeName(a.Type) + " but type of the buffer passed in is " + halideTypeName(got)
}

// rankSentence is halide_error_bad_dimensions' message.
func rankSentence(a *Arg, got int) string {
	return fmt.Sprintf("%s requires a buffer of exactly %d dimensions, but the buffer passed in has %d dimensions", halideFuncName(a), a.Dims, got)
}

// nullSentence is halide_error_buffer_argument_is_null's message.
func nullSentence(a *Arg) string { return "Buffer argument " + a.Name + " is nullptr" }

// halideTypeName is halide_type_to_string's spelling (uint1, not bool).
func halideTypeName(t array.Type) string {
	var code string
	switch t.Code {
	case array.Int:
		code = "int"
	case array.UInt:
		code = "uint"
	case array.Float:
		code = "float"
	case array.Handle:
		code = "handle"
	case array.BFloat:
		code = "bfloat"
	default:
		code = "bad_type_code"
	}
	s := code + strconv.Itoa(int(t.Bits))
	if t.Lanes != 1 {
		s += "x" + strconv.Itoa(int(t.Lanes))
	}
	return s
}

// rawOf is b.Raw(), or nil for a nil Buffer: a typed nil *Array or a zero
// host view, whose Raw dereferences nil. Recovering costs nothing unless
// it happens, and needs nothing from package array's internals.
func rawOf(b array.Buffer) (r *array.Raw) {
	defer func() {
		if recover() != nil {
			r = nil
		}
	}()
	return b.Raw()
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case array.Buffer:
		if r := rawOf(x); r != nil {
			return describeRaw(r)
		}
		t := reflect.TypeOf(v)
		if t.Kind() == reflect.Pointer {
			return "a nil " + t.String()
		}
		return "a zero " + t.String() + " (a view must come from Host or HostReadOnly)"
	}
	return "a Go " + reflect.TypeOf(v).String()
}

func describeRaw(r *array.Raw) string {
	return fmt.Sprintf("a %d-D %s Array", r.Rank(), r.Type())
}

// runtimeMessage is what the error handler collected for this call: msg,
// for Error.Msg, each message without the runtime's "Error: " prefix and
// trailing newline, joined by "; "; and halide, for Error.HalideMsg, the
// messages exactly as the handler got them, joined by newlines.
func runtimeMessage(ctx *rt.Ctx) (msg, halide string) {
	if ctx.Len == 0 {
		return "the runtime gave no message", ""
	}
	all := strings.Split(strings.TrimSuffix(ctx.Messages(), "\x00"), "\x00")
	var tidy []string
	for _, m := range all {
		if m = strings.TrimRight(m, "\n "); m != "" {
			tidy = append(tidy, strings.ReplaceAll(m, "Error: ", ""))
		}
	}
	if msg = strings.Join(tidy, "; "); msg == "" {
		msg = "the runtime gave no message"
	}
	return msg, strings.Join(all, "\n")
}

// setScalar writes v into a scalar slot when its Go type is exactly the
// pipeline's scalar type.
func setScalar(dst unsafe.Pointer, t array.Type, v any) bool {
	k, ok := scalarKindOf(t)
	return ok && k.put(dst, v)
}

// scalarKind reads and writes one scalar type's halide_scalar_value_t.
// Scalars include bool (uint1) and handles, which no Array holds, so they
// have this table beside array.Generic, built the same way: once, from
// one generic function per Go type.
type scalarKind struct {
	put func(dst unsafe.Pointer, v any) bool
	get func(p unsafe.Pointer) any
}

func kindOf[T any]() scalarKind {
	return scalarKind{
		put: func(dst unsafe.Pointer, v any) bool {
			x, ok := v.(T)
			if ok {
				*(*T)(dst) = x
			}
			return ok
		},
		get: func(p unsafe.Pointer) any { return *(*T)(p) },
	}
}

// scalarKinds are by code (Int, UInt, Float, Handle) and log2 of the bit
// width: an index, not a map, as every scalar of every call looks here.
var scalarKinds = [4][7]scalarKind{
	array.Int:    {3: kindOf[int8](), 4: kindOf[int16](), 5: kindOf[int32](), 6: kindOf[int64]()},
	array.UInt:   {0: kindOf[bool](), 3: kindOf[uint8](), 4: kindOf[uint16](), 5: kindOf[uint32](), 6: kindOf[uint64]()},
	array.Float:  {5: kindOf[float32](), 6: kindOf[float64]()},
	array.Handle: {6: kindOf[uintptr]()},
}

// scalarKindOf is t's entry in scalarKinds.
func scalarKindOf(t array.Type) (scalarKind, bool) {
	if t.Lanes != 1 || int(t.Code) >= len(scalarKinds) || t.Bits == 0 || t.Bits&(t.Bits-1) != 0 {
		return scalarKind{}, false
	}
	l := bits.TrailingZeros8(t.Bits)
	if l >= len(scalarKinds[t.Code]) {
		return scalarKind{}, false
	}
	k := scalarKinds[t.Code][l]
	return k, k.put != nil
}
