package device

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
)

// GuardEnv names the environment variable that turns the transfer guard on
// at start-up when set to 1 or true.
const GuardEnv = "RESIDENT_TRANSFER_GUARD"

// ErrTransferGuard is wrapped by the error an automatic transfer returns
// while the transfer guard is on.
var ErrTransferGuard = errors.New("automatic transfer refused by the transfer guard")

var guard atomic.Bool

func init() {
	switch os.Getenv(GuardEnv) {
	case "1", "true", "TRUE", "yes":
		guard.Store(true)
	}
}

// SetGuard turns the transfer guard on or off for the whole process and
// returns its previous state. While it is on, every transfer the library
// would make on its own (a host view's copy to host, a pipeline call's
// upload or download) fails with ErrTransferGuard; explicit CopyToDevice
// and CopyToHost still work. People benchmarking residency use it to
// prove a loop moves nothing.
//
// It stays, for calls that take no options: ops' functions, host views and
// the gorgonia engine (whose Engine interface fixes its methods) consult
// it and SetDeviceGuard. Where a call takes them, prefer the per-call
// forms, which change nothing for other goroutines: halide's
// Options.Guard, and WithGuard's context for stream runs.
func SetGuard(on bool) (was bool) { return guard.Swap(on) }

type guardKey struct{}

// WithGuard returns a copy of ctx that carries the transfer guard: a call
// given it (stream's RunContext and the pipeline steps it calls) refuses
// every transfer it would make on its own, with an error wrapping
// ErrTransferGuard, as under SetGuard(true), and other calls are not
// affected.
func WithGuard(ctx context.Context) context.Context {
	return context.WithValue(ctx, guardKey{}, true)
}

// GuardedContext reports whether automatic transfers to or from d are
// refused for a call given ctx: ctx carries the guard (WithGuard), or
// GuardedOn(d). A nil ctx carries none.
func GuardedContext(ctx context.Context, d Device) bool {
	if ctx != nil {
		if on, _ := ctx.Value(guardKey{}).(bool); on {
			return true
		}
	}
	return GuardedOn(d)
}

// Guarded reports whether the transfer guard is on.
func Guarded() bool { return guard.Load() }

// Per-device guards: devices whose own guard is on. A device is kept
// reachable while its guard is on (turn it off to let it go).
var (
	deviceGuards  sync.Map // Device → struct{}
	nDeviceGuards atomic.Int32
)

// SetDeviceGuard turns the transfer guard on or off for d alone and
// returns its previous state: while on, every transfer the library would
// make on its own to or from d fails with ErrTransferGuard, as under
// SetGuard(true), and other devices are not affected. The process-wide
// guard (SetGuard) still applies to every device. Honoured by package
// halide's calls, ops and host views; d stays reachable while its guard
// is on.
func SetDeviceGuard(d Device, on bool) (was bool) {
	if d == nil {
		return false
	}
	if on {
		_, was = deviceGuards.LoadOrStore(d, struct{}{})
		if !was {
			nDeviceGuards.Add(1)
		}
		return was
	}
	if _, was = deviceGuards.LoadAndDelete(d); was {
		nDeviceGuards.Add(-1)
	}
	return was
}

// GuardedOn reports whether automatic transfers to or from d are refused:
// the process-wide guard is on, or d's own (SetDeviceGuard). A nil d has
// only the process-wide guard.
func GuardedOn(d Device) bool {
	if guard.Load() {
		return true
	}
	if d == nil || nDeviceGuards.Load() == 0 {
		return false
	}
	_, ok := deviceGuards.Load(d)
	return ok
}

// AnyGuard reports whether the process-wide guard or any device's guard
// is on: a cheap test before asking GuardedOn about each device.
func AnyGuard() bool { return guard.Load() || nDeviceGuards.Load() != 0 }
