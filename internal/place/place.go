// Package place is the module's one placement rule: where a piece of
// work (an op of package ops, a pipeline call of package halide) runs,
// given its operands' residency. array/doc.go ("Where work runs") states
// the rule for users; this package is its only implementation.
package place

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// Work is one op or call, as Where sees it.
type Work struct {
	// Pkg and Op name the work in errors as Pkg.Op ("ops", "Add"; Pkg
	// may be empty).
	Pkg, Op string
	// Outputs and Inputs are the operand Arrays; nil entries (Go
	// scalars, absent outputs) and empty Arrays are ignored.
	Outputs, Inputs []*array.Raw
	// DeviceOnly says the work has no host form (an OpenCL pipeline):
	// host-only operands then do not keep it on the host, and Where
	// returns the operands' device even when nothing is newer there.
	// With no device chosen and none allocated, Where returns nil and the
	// caller runs on its default device.
	DeviceOnly bool
}

// Where returns the device w runs on, explicitly on when on is not nil, or nil for the host. Operands
// allocated on a device other than the one it runs on are an error
// wrapping device.ErrForeign (checked before anything moves); an explicit
// device that is closed is an error wrapping device.ErrClosed. The rule,
// in order:
//
//  1. Explicit: on, when not nil.
//  2. Operands allocated on two devices: ErrForeign.
//  3. A host-only operand (caller-held memory): the host.
//  4. No operand allocated on a device, or that device closed or not
//     computing (device.Computes): the host. (DeviceOnly work on
//     operands still allocated on a device whose Close has begun: an
//     error wrapping device.ErrClosed.)
//  5. That device D, when some operand is device-dirty there, or when
//     every input is current there (allocated, not host-dirty; with no
//     inputs, every output): then no copy is needed either way.
//  6. Else the host.
//
// DeviceOnly work skips 3 and runs on D at 5 whatever is newer; see Work.
// Where moves nothing: the caller makes the copies the choice implies
// (counted, and refused under the transfer guard unless explicit).
func Where(on device.Device, w Work) (device.Device, error) {
	d, err := where(on, w)
	if o := observer.Load(); o != nil {
		// copies, so that nothing of w leaks: its callers' operand slices
		// stay on their stacks (ops' TestZeroAllocs)
		(*o)(d, strings.Clone(w.Pkg), strings.Clone(w.Op), slices.Clone(w.Outputs), slices.Clone(w.Inputs), err)
	}
	return d, err
}

// Observer sees every placement: where the work runs (nil: the host),
// its name, operands and the rule's error.
type Observer func(d device.Device, pkg, op string, outputs, inputs []*array.Raw, err error)

var observer atomic.Pointer[Observer]

// Observe makes f see every placement until stop runs (package
// device/capture: the Arrays a capture uses). One observer at a time:
// a second Observe replaces the first.
func Observe(f Observer) (stop func()) {
	p := &f
	observer.Store(p)
	return func() { observer.CompareAndSwap(p, nil) }
}

func where(on device.Device, w Work) (device.Device, error) {
	var dev device.Device
	hostOnly, dirty, current, inputs := false, false, true, false
	for k, rs := range [2][]*array.Raw{w.Inputs, w.Outputs} {
		in := k == 0
		for _, r := range rs {
			if r == nil || r.Len() == 0 {
				continue
			}
			if r.HostOnly() {
				hostOnly = true
				continue
			}
			inputs = inputs || in
			d := r.Device()
			if d == nil {
				if in || !inputs {
					current = false
				}
				continue
			}
			if on != nil && d != on {
				return nil, foreign(w.name(), d, on)
			}
			if dev != nil && d != dev {
				return nil, foreign(w.name(), dev, d)
			}
			dev = d
			dirty = dirty || r.DeviceDirty()
			if r.HostDirty() && (in || !inputs) {
				current = false
			}
		}
	}
	if on != nil {
		if c, ok := on.(interface{ Closed() bool }); ok && c.Closed() {
			return nil, fmt.Errorf("%s: the device %s is closed: pass an open one: %w", w.name(), on.Name(), device.ErrClosed)
		}
		return on, nil
	}
	if dev == nil || (hostOnly && !w.DeviceOnly) {
		return nil, nil
	}
	if w.DeviceOnly {
		if c, ok := dev.(interface{ Closed() bool }); ok && c.Closed() {
			// Still allocated there: the device's close is under way.
			return nil, fmt.Errorf("%s: the operands' device %s is closing: %w", w.name(), dev.Name(), device.ErrClosed)
		}
		return dev, nil
	}
	if !device.Computes(dev) || !(dirty || current) {
		return nil, nil
	}
	return dev, nil
}

func foreign(op string, a, b device.Device) error {
	return fmt.Errorf("%s: operands live on %s and on %s: move one with Array.MoveTo first: %w",
		op, a.Name(), b.Name(), device.ErrForeign)
}

// name is Pkg.Op as a new string: passing w's own strings to fmt would
// make every pointer in w escape, the operand slices included.
func (w *Work) name() string {
	if w.Pkg == "" {
		return "" + w.Op
	}
	return w.Pkg + "." + w.Op
}
