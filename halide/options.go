package halide

import (
	"context"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"sync"

	"github.com/resident-go/resident/device"
)

// Options are one call's choices, for CallWith. The zero value is Call's:
// the placement rule, the runtime's print and trace, the device's
// transfer guard, no user context. Options are
// per call: two goroutines may call one Pipeline with different Options
// at once, on different devices, with different contexts and hooks;
// nothing of the Pipeline changes.
type Options struct {
	// Device runs a GPU pipeline on this device for this call: the
	// runtime gets its context and queue (through the call's
	// user_context), inputs are uploaded to it and outputs stay there. An
	// OpenCL pipeline takes an OpenCL device, a CUDA one a CUDA device.
	// nil: the placement rule (where the Arrays live, else DefaultDevice("OpenCL")
	// or DefaultDevice("CUDA")); a typed nil pointer is refused (ErrNoDevice). Host
	// pipelines ignore it.
	Device device.Device
	// Guard refuses, for this call, every transfer the call would make on
	// its own (an upload of a host-newer input, a copy home of a
	// device-dirty input or of a host-only value), with an error wrapping
	// device.ErrTransferGuard, before anything moves: the transfer guard
	// scoped to one call. It adds to the device's own guard
	// (device.SetDeviceGuard) and RESIDENT_TRANSFER_GUARD's; it cannot
	// lift them.
	Guard bool
	// Context is the call's user context: a Go value that every Go hook
	// of the call (Hooks, and its Trace's TraceEvent)
	// and every Go extern stage (ExternCall.Context) receives, as Halide
	// hands user_context to its hooks. The library keeps using Halide's
	// own user_context pointer to route the call (errors, the OpenCL
	// device); Context travels beside it, by the frame's slot.
	Context any
	// Hooks are the call's own Go hooks; nil: the runtime's print and
	// trace (or what C set with halide_set_custom_print, _trace).
	Hooks *Hooks
	// RefuseTargetFeatures makes a multi-target pipeline skip, in this
	// call, every target that needs one of these features (Halide's
	// names: "avx512_skylake", "fma", …), as if the CPU lacked them
	// (halide_set_custom_can_use_target_features for one call, applied
	// after what C set). A multi-target pipeline chooses its target once,
	// at its first call, for the whole process: only that call's refusals
	// count. An unknown name fails the call before anything runs.
	RefuseTargetFeatures []string
	// OpenCLBuildOptions are given to the OpenCL compiler when this call
	// builds the pipeline's kernels on its device
	// (halide_opencl_set_build_options for one device), after the
	// process-wide ones (what C set, else $HL_OCL_BUILD_OPTIONS). Kernels
	// are built once per device, at its first call, so the device keeps
	// the options of the first call that gives them: a call whose device
	// built kernels already, or has other options, fails before anything
	// moves with an error wrapping ErrBuildOptionsLate (the same options
	// again are fine). A build that fails (a bad option) fails the call
	// with the runtime's error, to which the device's options are added.
	// At most 511 bytes. Pipelines other than OpenCL ones ignore it.
	OpenCLBuildOptions string
	// Callbacks runs this call through the entry point that may call
	// back into Go (Go extern stages), as every call of a WithCallbacks
	// pipeline does.
	Callbacks bool
}

// CallWith is Call with per-call options: the device, the transfer guard,
// the user context and hooks. It allocates nothing more than Call. The
// Go hooks and extern stages reach Go only through the entry point that
// may call back: pipelines with Go extern stages need it (WithCallbacks,
// as halide-gen's wrappers set, or Options.Callbacks), and a call with
// Hooks takes it by itself.
func (p *Pipeline) CallWith(o Options, args ...any) error {
	return p.callOn(nil, &o, args)
}

// CallContext is CallWith under ctx. A call whose ctx is done before it
// starts, or by the time its inputs are in place on the device, queues
// nothing more: the pipeline does not run, the call's temporaries are
// freed, no output is written or marked, and the error has code
// ErrCanceled and wraps ctx.Err() (errors.Is(err, context.Canceled)).
// Inputs it uploaded before that stay uploaded, their data unchanged. A
// pipeline already running completes, as Halide's compiled code has no
// point to stop at, and the call returns its result. A ctx that carries
// the transfer guard (device.WithGuard) guards the call as Options.Guard
// does (TestScopedGuard).
func (p *Pipeline) CallContext(ctx context.Context, o Options, args ...any) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return p.callOn(ctx, &o, args)
}

// guardError is a refusal by the transfer guard: process-wide, the
// device's own or the call's.
func guardError(what string) error {
	if err := checkAutomatic(nil, what); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s (copy explicitly with CopyToHost/CopyToDevice first, or call without Options.Guard / turn the device's guard off: device.SetDeviceGuard(d, false))", device.ErrTransferGuard, what)
}

// Hooks are one call's Go hooks (Options.Hooks). A nil field leaves that
// hook to the runtime (or what C set; none for Error). Each
// gets the call's Options.Context. A call with Hooks takes the entry
// point that may call Go, as WithCallbacks does for every call.
type Hooks struct {
	// Print gets what the pipeline prints (Halide's print, print_when,
	// halide_print), one message per call; msg is valid only during the
	// call. It may be called from Halide's worker threads at once.
	Print func(ctx any, msg []byte)
	// Trace gets the call's trace events; e.Context is ctx.
	Trace TraceFunc
	// Error gets the error the call returns (the runtime's message, a
	// refused argument, a transfer), before CallWith returns it.
	Error func(ctx any, err error)
}

// callState is a call frame's Go state, which the hooks and extern
// stages reach from C through the frame's slot: C memory holds no Go
// pointer.
type callState struct {
	ctx   any
	hooks *Hooks
	dev   gpuDevice // the call's OpenCL device, for extern stages (ExternDeviceArray)
	guard bool      // the call's Options.Guard, for extern stages' uploads
}

// setState makes o's context and hooks the frame's for this call.
func (f *frame) setState(o *Options) {
	f.st.ctx, f.st.hooks, f.cb = o.Context, o.Hooks, true
	var h int32
	if o.Hooks != nil {
		if o.Hooks.Print != nil {
			h |= rt.HookPrint
		}
		if o.Hooks.Trace != nil {
			h |= rt.HookTrace
		}
	}
	f.c.Ctx.Hooks = h
}

// states holds every pooled frame's callState by slot (slot 0 is none).
var states struct {
	mu   sync.RWMutex
	s    []*callState
	free []int32
}

func addState(st *callState) int32 {
	states.mu.Lock()
	defer states.mu.Unlock()
	if n := len(states.free); n > 0 {
		slot := states.free[n-1]
		states.free = states.free[:n-1]
		states.s[slot] = st
		return slot
	}
	if len(states.s) == 0 {
		states.s = append(states.s, nil)
	}
	states.s = append(states.s, st)
	return int32(len(states.s) - 1)
}

func dropState(slot int32) {
	if slot <= 0 {
		return
	}
	states.mu.Lock()
	states.s[slot] = nil
	states.free = append(states.free, slot)
	states.mu.Unlock()
}

// stateOf is the callState of slot, nil for none.
func stateOf(slot int32) *callState {
	if slot <= 0 {
		return nil
	}
	states.mu.RLock()
	defer states.mu.RUnlock()
	if int(slot) < len(states.s) {
		return states.s[slot]
	}
	return nil
}
