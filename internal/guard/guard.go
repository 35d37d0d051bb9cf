// Package guard holds the transfer guard's state: the process-wide switch
// (RESIDENT_TRANSFER_GUARD at start-up, and tests), the per-device guards
// (device.SetDeviceGuard) and the context key (device.WithGuard). The
// public API has no process-wide mutator; tests and the library's own
// programs that need one set it here.
package guard

import (
	"context"
	"sync"
	"sync/atomic"
)

var process atomic.Bool

// Set turns the process-wide guard on or off and returns its previous
// state. For tests and start-up only: a library call takes its guard from
// its context, its options or its device.
func Set(on bool) (was bool) { return process.Swap(on) }

// On reports whether the process-wide guard is on.
func On() bool { return process.Load() }

// Devices whose own guard is on. A device is kept reachable while its
// guard is on.
var (
	devices  sync.Map // device → struct{}
	nDevices atomic.Int32
)

// SetDevice turns d's own guard on or off and returns its previous state;
// a nil d has none.
func SetDevice(d any, on bool) (was bool) {
	if d == nil {
		return false
	}
	if on {
		_, was = devices.LoadOrStore(d, struct{}{})
		if !was {
			nDevices.Add(1)
		}
		return was
	}
	if _, was = devices.LoadAndDelete(d); was {
		nDevices.Add(-1)
	}
	return was
}

// OnDevice reports whether automatic transfers to or from d are refused:
// the process-wide guard, or d's own. A nil d has only the process-wide
// guard.
func OnDevice(d any) bool {
	if process.Load() {
		return true
	}
	if d == nil || nDevices.Load() == 0 {
		return false
	}
	_, ok := devices.Load(d)
	return ok
}

// Any reports whether the process-wide guard or any device's guard is on:
// a cheap test before asking OnDevice about each device.
func Any() bool { return process.Load() || nDevices.Load() != 0 }

type ctxKey struct{}

// With returns a copy of ctx that carries the guard.
func With(ctx context.Context) context.Context {
	return context.WithValue(ctx, ctxKey{}, true)
}

// InContext reports whether ctx carries the guard; a nil ctx carries none.
func InContext(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	on, _ := ctx.Value(ctxKey{}).(bool)
	return on
}

// Refused reports whether a call given ctx refuses automatic transfers to
// or from d: ctx carries the guard, or OnDevice(d).
func Refused(ctx context.Context, d any) bool {
	return InContext(ctx) || OnDevice(d)
}
