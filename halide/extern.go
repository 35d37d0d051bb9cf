package halide

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Extern stages in Go. A generator's define_extern("name", …) names a C
// function; halide-gen generates it (name.extern.c in the pipeline's
// package) as a stub that hands its arguments to the Go function
// registered under that name. Rules:
//
//   - The pipeline must be called with callbacks (WithCallbacks, which
//     halide-gen's wrapper sets). Otherwise the stage fails the call.
//   - In a GPU pipeline a stage declared DeviceAPI::Host (the default)
//     gets host buffers: Halide 14 hands it inputs that GPU stages left
//     on the device, so the bridge copies them to host first (through the
//     runtime, not counted in device.Stats) and marks the output
//     host-dirty after, for the next GPU stage to upload. A stage
//     declared DeviceAPI::OpenCL gets its buffers on the call's device:
//     ExternDeviceArray views each as an Array whose device copy is the
//     buffer's own cl_mem, so the stage runs ops on the device, on the
//     pipeline's queue, with no copy (devextern.go). An input Halide
//     computed on the host, ExternDeviceArray uploads (counted in
//     device.Stats, refused under the transfer guard).
//   - Nothing of an ExternCall outlives the call: not the ExternBuffers,
//     not slices or Arrays made from them. Copy what you keep.
//   - The function may run on Halide's worker threads, several at once
//     when the stage sits inside a parallel loop.

// ExternFunc implements an extern stage. A non-nil error fails the
// pipeline call with the error's text (and its Code when it is an *Error).
type ExternFunc func(x *ExternCall) error

type externEntry struct {
	name        string
	run, bounds ExternFunc
}

var externs struct {
	mu     sync.RWMutex
	byName map[string]*externEntry
	byPtr  sync.Map // *C.char of a stub → *externEntry, so a call converts no string
}

// RegisterExtern makes fn the implementation of the extern stage name (the
// C symbol a generator's define_extern names; one per binary). The
// pipelines that call it must have callbacks (WithCallbacks). Bounds
// queries get the pointwise answer: every input is asked for the region
// of the output (the last buffer argument); RegisterExternBounds changes
// that. Registering again replaces fn.
func RegisterExtern(name string, fn ExternFunc) {
	e := externFor(name)
	externs.mu.Lock()
	e.run = fn
	externs.mu.Unlock()
}

// RegisterExternBounds sets how the extern stage name answers bounds
// queries: fn gets an ExternCall whose BoundsQuery is true and sets, with
// SetBounds, the region it reads from each input buffer whose BoundsQuery
// is true.
func RegisterExternBounds(name string, fn ExternFunc) {
	e := externFor(name)
	externs.mu.Lock()
	e.bounds = fn
	externs.mu.Unlock()
}

func externFor(name string) *externEntry {
	externs.mu.Lock()
	defer externs.mu.Unlock()
	if externs.byName == nil {
		externs.byName = map[string]*externEntry{}
	}
	e := externs.byName[name]
	if e == nil {
		e = &externEntry{name: name}
		externs.byName[name] = e
	}
	return e
}

// ExternCall is one call of an extern stage: its arguments in the order
// define_extern lists them, then the output buffer(s).
type ExternCall struct {
	name  string
	kinds []uint32
	vals  []uint64
	ctx   any
	dev   gpuDevice  // the call's OpenCL device, nil for host calls
	guard bool       // the call's Options.Guard
	devs  []devArray // ExternDeviceArray's Arrays, settled after the stage
}

// Name is the extern stage's C symbol.
func (x *ExternCall) Name() string { return x.name }

// Context is the user context of the pipeline call running the stage
// (CallWith's Options.Context), nil for calls without one. The call is
// found through the stage's leading user_context argument (pass
// user_context_value() first in define_extern), else as the calling
// thread's call: a stage of a pipeline built without user_context that
// runs on Halide's worker threads gets nil.
func (x *ExternCall) Context() any { return x.ctx }

// NumArgs is the number of arguments, output buffers included.
func (x *ExternCall) NumArgs() int { return len(x.kinds) }

// IsBuffer reports whether argument i is a buffer.
func (x *ExternCall) IsBuffer(i int) bool { return x.kinds[i] == rt.XBuf }

// ArgType is the type of scalar argument i. Halide passes integers to C
// without their sign, so Int and UInt arguments both show as Int.
func (x *ExternCall) ArgType(i int) array.Type {
	k := x.kinds[i]
	return array.Type{Code: array.Code(k >> 8), Bits: uint8(k), Lanes: 1}
}

// Buffer returns buffer argument i; it panics if argument i is a scalar.
func (x *ExternCall) Buffer(i int) ExternBuffer {
	if !x.IsBuffer(i) {
		panic(fmt.Sprintf("halide: argument %d of extern stage %s is a %s scalar, not a buffer", i, x.name, x.ArgType(i)))
	}
	return ExternBuffer{b: (*rt.Buffer)(x.ptr(i))}
}

// ptr is argument i as the C pointer it is.
func (x *ExternCall) ptr(i int) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&x.vals[i])) }

// Output returns the last buffer argument, the stage's output.
func (x *ExternCall) Output() ExternBuffer {
	for i := len(x.kinds) - 1; i >= 0; i-- {
		if x.IsBuffer(i) {
			return x.Buffer(i)
		}
	}
	panic("halide: extern stage " + x.name + " has no buffer argument")
}

// Int returns integer (or bool) argument i, sign-extended from its bits.
func (x *ExternCall) Int(i int) int64 {
	bits := uint(x.ArgType(i).Bits)
	v := uint64(x.vals[i])
	if bits == 0 || bits >= 64 {
		return int64(v)
	}
	return int64(v<<(64-bits)) >> (64 - bits)
}

// Uint returns integer argument i, zero-extended from its bits.
func (x *ExternCall) Uint(i int) uint64 {
	bits := uint(x.ArgType(i).Bits)
	v := uint64(x.vals[i])
	if bits == 0 || bits >= 64 {
		return v
	}
	return v & (1<<bits - 1)
}

// Float returns floating-point argument i.
func (x *ExternCall) Float(i int) float64 {
	if x.ArgType(i).Bits == 32 {
		return float64(*(*float32)(unsafe.Pointer(&x.vals[i])))
	}
	return *(*float64)(unsafe.Pointer(&x.vals[i]))
}

// Handle returns pointer argument i (for example Halide's user_context).
func (x *ExternCall) Handle(i int) uintptr { return uintptr(x.vals[i]) }

// BoundsQuery reports whether this call is a bounds query: some buffer
// argument has neither host nor device memory. The stage then computes
// nothing; it states, with SetBounds, what it reads of those buffers.
func (x *ExternCall) BoundsQuery() bool {
	for i := range x.kinds {
		if x.IsBuffer(i) && x.Buffer(i).BoundsQuery() {
			return true
		}
	}
	return false
}

// pointwiseBounds asks every queried input of the output's rank for the
// output's region.
func (x *ExternCall) pointwiseBounds() {
	out := x.Output()
	for i := range x.kinds {
		if !x.IsBuffer(i) {
			continue
		}
		b := x.Buffer(i)
		if b.b == out.b || !b.BoundsQuery() || b.Rank() != out.Rank() {
			continue
		}
		for d := 0; d < b.Rank(); d++ {
			od := out.Dim(d)
			b.SetBounds(d, od.Min, od.Extent)
		}
	}
}

// ExternBuffer is a halide_buffer_t handed to an extern stage, valid only
// during the stage's call. Element (x0, x1, …) lives at byte
// Σ (xi − Dim(i).Min)·Dim(i).Stride·Type().Bytes() from Host().
type ExternBuffer struct{ b *rt.Buffer }

// Type is the element type.
func (b ExternBuffer) Type() array.Type {
	return goType(b.b.Type)
}

// Rank is the number of dimensions.
func (b ExternBuffer) Rank() int { return int(b.b.Dimensions) }

// Dim returns dimension i; strides are in elements.
func (b ExternBuffer) Dim(i int) array.Dim {
	return goDim(unsafe.Slice(b.b.Dim, b.b.Dimensions)[i])
}

// Dims returns every dimension, innermost first.
func (b ExternBuffer) Dims() []array.Dim {
	out := make([]array.Dim, b.Rank())
	for i := range out {
		out[i] = b.Dim(i)
	}
	return out
}

// BoundsQuery reports whether the buffer has neither host nor device
// memory: Halide asks what region of it the stage needs.
func (b ExternBuffer) BoundsQuery() bool { return b.b.Host == nil && b.b.Device == 0 }

// SetBounds sets the region of dimension dim the stage needs, in a bounds
// query.
func (b ExternBuffer) SetBounds(dim, min, extent int) {
	d := &unsafe.Slice(b.b.Dim, b.b.Dimensions)[dim]
	d.Min, d.Extent = int32(min), int32(extent)
}

// Host is the address of the element at the buffer's mins (nil in a
// bounds query).
func (b ExternBuffer) Host() unsafe.Pointer { return unsafe.Pointer(b.b.Host) }

// DeviceDirty reports whether the device copy is newer than the host's.
func (b ExternBuffer) DeviceDirty() bool { return b.b.Flags&rt.DeviceDirty != 0 }

// span is the number of elements from the min corner to the max corner,
// or -1 when a stride is negative.
func (b ExternBuffer) span() int {
	n := 1
	for i := 0; i < b.Rank(); i++ {
		d := b.Dim(i)
		if d.Extent <= 0 {
			return 0
		}
		if d.Stride < 0 {
			return -1
		}
		n += (d.Extent - 1) * d.Stride
	}
	return n
}

// ErrExternBuffer is the sentinel of the errors ExternSlice and ExternArray
// return for a buffer they cannot view.
var ErrExternBuffer = errors.New("halide: extern buffer")

// ExternSlice views the buffer's host memory as a []T from the element at
// the mins to the one at the maxes; index it with Dim's strides. It shares
// the memory and is valid only during the stage's call.
func ExternSlice[T array.Elem](b ExternBuffer) ([]T, error) {
	if t := array.TypeOf[T](); t != b.Type() {
		return nil, fmt.Errorf("%w: a %s buffer viewed as %s", ErrExternBuffer, b.Type(), t)
	}
	switch n := b.span(); {
	case b.Host() == nil && b.BoundsQuery():
		return nil, fmt.Errorf("%w: no host memory (a bounds query: check ExternCall.BoundsQuery)", ErrExternBuffer)
	case b.Host() == nil:
		return nil, fmt.Errorf("%w: the buffer has device memory only (Halide put it on the device, host = NULL): take it with ExternDeviceArray, or make the stage a host stage (DeviceAPI::Host)", ErrExternBuffer)
	case b.DeviceDirty():
		return nil, fmt.Errorf("%w: the buffer is device-dirty; make the extern stage a host stage (DeviceAPI::Host) so Halide copies it to host", ErrExternBuffer)
	case n < 0:
		return nil, fmt.Errorf("%w: negative strides are not supported", ErrExternBuffer)
	default:
		return unsafe.Slice((*T)(b.Host()), n), nil
	}
}

// ExternArray views the buffer as a host-only Array with the buffer's
// mins, extents and strides. It shares the memory and is valid only during
// the stage's call: don't keep it or pass it to a pipeline after.
func ExternArray[T array.Elem](b ExternBuffer) (*array.Array[T], error) {
	s, err := ExternSlice[T](b)
	if err != nil {
		return nil, err
	}
	return array.Wrap(s, b.Dims())
}

// onExtern runs the Go extern stage whose stub is name (rt calls it from C).
func onExtern(slot int32, name unsafe.Pointer, kinds []uint32, vals []uint64) (rc int32) {
	x := &ExternCall{kinds: kinds, vals: vals}
	if st := stateOf(slot); st != nil {
		x.ctx, x.dev, x.guard = st.ctx, st.dev, st.guard
	}
	var e *externEntry
	if v, ok := externs.byPtr.Load(name); ok {
		e = v.(*externEntry)
	} else {
		s := rt.GoString((*byte)(name))
		externs.mu.RLock()
		e = externs.byName[s]
		externs.mu.RUnlock()
		if e == nil {
			return x.fail(fmt.Errorf("extern stage %s is written in Go but nothing is registered for it: call halide.RegisterExtern(%q, fn) first", s, s))
		}
		externs.byPtr.Store(name, e)
	}
	x.name = e.name
	externs.mu.RLock()
	run, bounds := e.run, e.bounds
	externs.mu.RUnlock()
	defer func() {
		// A panic must not unwind through the pipeline's C frames.
		if r := recover(); r != nil {
			rc = x.fail(fmt.Errorf("extern stage %s panicked: %v", x.name, r))
		}
	}()
	if x.BoundsQuery() {
		if bounds == nil {
			x.pointwiseBounds()
			return 0
		}
		return x.fail(bounds(x))
	}
	if run == nil {
		return x.fail(fmt.Errorf("extern stage %s has bounds but no function: call halide.RegisterExtern", x.name))
	}
	// Halide 14 hands a host extern stage its inputs as they are, on the
	// device when a GPU stage made them: bring them to host first, and
	// mark the output host-dirty after, so the next GPU stage uploads it.
	out := x.Output()
	for i := range x.kinds {
		if !x.IsBuffer(i) {
			continue
		}
		// A DeviceAPI::OpenCL stage gets device-only buffers (host NULL):
		// those stay on the device, for ExternDeviceArray.
		if b := x.Buffer(i); b.b != out.b && b.DeviceDirty() && b.b.Host != nil {
			if rc := rt.CopyToHost(x.uc(), b.b); rc != 0 {
				return x.fail(fmt.Errorf("extern stage %s: copying argument %d to host failed (halide error %d)", x.name, i, int(rc)))
			}
		}
	}
	err := run(x)
	// An output taken with ExternDeviceArray is settled there: the flags
	// say where its Array left it (devextern.go).
	outDone, serr := x.settle(err == nil)
	if err == nil {
		err = serr
	}
	if err != nil {
		return x.fail(err)
	}
	if !outDone && out.b.Host != nil {
		out.b.Flags = out.b.Flags&^rt.DeviceDirty | rt.HostDirty
	}
	return 0
}

// fail reports err to the running call's error handler and returns its
// code (0 for nil).
func (x *ExternCall) fail(err error) int32 {
	if err == nil {
		return 0
	}
	code, text := -1, err.Error()
	var he *Error
	if errors.As(err, &he) && he.Code != 0 {
		code = he.Code
		if he.Pipeline == "" && he == err {
			text = he.Msg // the call's own Error names the pipeline and code
		}
	}
	rt.Report(x.uc(), text)
	return int32(code)
}

// uc is the call's user_context: a leading handle argument is taken for it
// (pass user_context_value() first in define_extern). The error handler
// routes by it and falls back to the calling thread's call when it is nil.
func (x *ExternCall) uc() unsafe.Pointer {
	if len(x.kinds) > 0 && !x.IsBuffer(0) && x.ArgType(0).Code == array.Handle {
		return x.ptr(0)
	}
	return nil
}
