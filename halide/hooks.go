package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"os"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Two entry points lead into a pipeline. The fast one (gohl_call) is
// marked #cgo nocallback and noescape; the one for pipelines that call Go
// (gohl_call_cb) is not, since cgo kills the process when a nocallback call
// reaches Go. A call takes the second when its Pipeline came from
// WithCallbacks (halide-gen's wrappers for pipelines with Go extern
// stages, print or trace) or its Options ask for it (Hooks, Callbacks). On the fast entry point the hooks fall back to the runtime's
// defaults instead of calling Go, so nothing there can kill the process.

// WithCallbacks returns a Pipeline like p whose every call goes through
// the entry point that lets the pipeline call back into Go, as extern
// stages written in Go (RegisterExtern) need; p itself is unchanged, so
// whoever else looked it up keeps the fast entry point. halide-gen's
// wrappers keep the copy in their NAMEPipeline variable. Without it a Go
// extern stage fails the call (or give one call Options.Callbacks); a
// call with Hooks takes that entry point by itself. Calls that may call
// back cost about the same as the others (BenchmarkEntryPoints).
func (p *Pipeline) WithCallbacks() *Pipeline {
	q := &Pipeline{name: p.name, target: p.target, glue: p.glue, gpu: p.gpu, argv: p.argv,
		args: p.args, params: p.params, bufs: p.bufs, userCtx: p.userCtx, placeOp: p.placeOp}
	q.texture.Store(p.texture.Load())
	q.texArgs.Store(p.texArgs.Load())
	q.ran.Store(p.ran.Load())
	q.callsBack.Store(true)
	return q
}

// Callbacks reports whether calls of p may call back into Go (WithCallbacks).
func (p *Pipeline) Callbacks() bool { return p.callsBack.Load() }

// invoke runs NAME_argv on the frame through the entry point p needs.
func (p *Pipeline) invoke(f *frame) int {
	var rc int
	if f.cb || p.callsBack.Load() {
		rc = rt.CallBack(p.argv, f.c)
	} else {
		rc = rt.Call(p.argv, f.c)
	}
	p.noteTarget(&f.c.Ctx)
	return rc
}

// TraceFunc receives Halide's trace events (Func::trace_stores,
// trace_loads, trace_realizations, trace_tag). It may be called from
// several of Halide's worker threads at once. Event ids for parents are
// assigned here. It must not panic: a panic is reported on standard
// error and the event dropped.
type TraceFunc func(e *TraceEvent)

func init() {
	rt.OnPrint, rt.OnTrace, rt.OnExtern = onPrint, onTrace, onExtern
}

// onPrint gets what a call with Go hooks prints (rt calls it from C).
func onPrint(slot int32, msg unsafe.Pointer, n int) {
	b := unsafe.Slice((*byte)(msg), n)
	if st := stateOf(slot); st != nil && st.hooks != nil && st.hooks.Print != nil {
		st.hooks.Print(st.ctx, b)
		return
	}
	rt.DefaultPrint(msg)
}

// TraceEventCode is halide_trace_event_code_t.
type TraceEventCode int32

// Trace event codes.
const (
	TraceLoad             TraceEventCode = 0
	TraceStore            TraceEventCode = 1
	TraceBeginRealization TraceEventCode = 2
	TraceEndRealization   TraceEventCode = 3
	TraceProduce          TraceEventCode = 4
	TraceEndProduce       TraceEventCode = 5
	TraceConsume          TraceEventCode = 6
	TraceEndConsume       TraceEventCode = 7
	TraceBeginPipeline    TraceEventCode = 8
	TraceEndPipeline      TraceEventCode = 9
	TraceTag              TraceEventCode = 10
)

var traceNames = [...]string{"load", "store", "begin_realization", "end_realization", "produce",
	"end_produce", "consume", "end_consume", "begin_pipeline", "end_pipeline", "tag"}

func (c TraceEventCode) String() string {
	if c >= 0 && int(c) < len(traceNames) {
		return traceNames[c]
	}
	return "trace_event_" + strconv.Itoa(int(c))
}

// TraceEvent is one halide_trace_event_t. Coordinates and Value point into
// the runtime's memory and are valid only during the TraceFunc call: copy
// what you keep.
type TraceEvent struct {
	Func       string         // the Func or pipeline the event is about
	Event      TraceEventCode //
	ID         int32          // this event's id, for begin events the ParentID of what they contain
	ParentID   int32          //
	ValueIndex int32          // tuple element of a load or store
	Type       array.Type     // of Value (loads and stores)
	// Coordinates of a load or store (for a vector, the vector dimension is
	// innermost); min0, extent0, min1, … for realization and produce events.
	Coordinates []int32
	Value       []byte // the value loaded or stored, Type.Bytes() bytes; nil for other events
	Tag         string // the text of a TraceTag event
	// Context is the user context of the call that traced (CallWith's
	// Options.Context), nil for calls without one. Pipelines built
	// without user_context name their call only on the calling thread:
	// events from Halide's worker threads then carry nil.
	Context any
}

var traceIDs atomic.Int32

// onTrace gets a trace event of a call with Go hooks (rt calls it from C).
func onTrace(slot int32, e *rt.TraceEvent) int32 {
	var trace TraceFunc
	var ctx any
	if st := stateOf(slot); st != nil {
		ctx = st.ctx
		if st.hooks != nil {
			trace = st.hooks.Trace
		}
	}
	if trace == nil {
		return rt.DefaultTrace(e)
	}
	ev := TraceEvent{
		Func:       rt.GoString(e.Func),
		Event:      TraceEventCode(e.Event),
		ID:         traceIDs.Add(1),
		ParentID:   e.ParentID,
		ValueIndex: e.ValueIndex,
		Type:       goType(e.Type),
		Context:    ctx,
	}
	if e.Coordinates != nil && e.Dimensions > 0 {
		ev.Coordinates = unsafe.Slice(e.Coordinates, int(e.Dimensions))
	}
	if e.Value != nil {
		ev.Value = unsafe.Slice((*byte)(e.Value), ev.Type.Bytes())
	}
	if e.TraceTag != nil {
		ev.Tag = rt.GoString(e.TraceTag)
	}
	func() {
		// A panic must not unwind through the pipeline's C frames.
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(os.Stderr, "halide: TraceFunc panicked (event dropped): %v\n", r)
			}
		}()
		trace(&ev)
	}()
	return ev.ID
}
