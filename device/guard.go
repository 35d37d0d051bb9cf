package device

import (
	"context"
	"errors"
	"os"

	"github.com/resident-go/resident/internal/guard"
)

// GuardEnv names the environment variable that turns the transfer guard on
// for the whole process at start-up when set to 1 or true: the only
// process-wide switch. Within a program the guard is per call (WithGuard,
// halide's Options.Guard) or per device (SetDeviceGuard).
const GuardEnv = "RESIDENT_TRANSFER_GUARD"

// ErrTransferGuard is wrapped by the error an automatic transfer returns
// while the transfer guard is on.
var ErrTransferGuard = errors.New("automatic transfer refused by the transfer guard")

func init() {
	switch os.Getenv(GuardEnv) {
	case "1", "true", "TRUE", "yes":
		guard.Set(true)
	}
}

// WithGuard returns a copy of ctx that carries the transfer guard: a call
// given it (stream's RunContext and the pipeline steps it calls, halide's
// CallContext) refuses every transfer it would make on its own (a host
// view's copy home, a pipeline call's upload or download) with an error
// wrapping ErrTransferGuard, before anything moves; explicit CopyToDevice
// and CopyToHost still work, and other calls are not affected. People
// benchmarking residency use it to prove a loop moves nothing.
func WithGuard(ctx context.Context) context.Context { return guard.With(ctx) }

// SetDeviceGuard turns the transfer guard on or off for d alone and
// returns its previous state: while on, every transfer the library would
// make on its own to or from d fails with ErrTransferGuard, and other
// devices are not affected. Honoured by every call that moves data to or
// from d: package halide's calls, ops, host views, streams and the
// gorgonia engine, which take no context. d stays reachable while its
// guard is on.
func SetDeviceGuard(d Device, on bool) (was bool) {
	if d == nil {
		return false
	}
	return guard.SetDevice(d, on)
}

// Guarded reports whether a call given ctx refuses automatic transfers to
// or from d: ctx carries the guard (WithGuard), d's own is on
// (SetDeviceGuard), or RESIDENT_TRANSFER_GUARD turned it on for the
// process. A nil ctx carries none; a nil d has no guard of its own.
func Guarded(ctx context.Context, d Device) bool {
	return guard.Refused(ctx, d)
}
