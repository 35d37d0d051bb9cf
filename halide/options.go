package halide

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// Options are one call's choices, for CallWith. The zero value is Call's:
// the pipeline's device (SetDevice) or the placement rule, the
// process-wide hooks and transfer guard, no user context. Options are
// per call: two goroutines may call one Pipeline with different Options
// at once, on different devices, with different contexts and hooks;
// nothing of the Pipeline changes.
type Options struct {
	// Device runs an OpenCL pipeline on this OpenCL device for this call
	// (as CallOn); nil: SetDevice's, else the placement rule (where the
	// Arrays live, else OpenCLDevice()). Host pipelines ignore it.
	Device device.Device
	// Guard refuses, for this call, every transfer the call would make on
	// its own (an upload of a host-newer input, a copy home of a
	// device-dirty input or of a host-only value), with an error wrapping
	// device.ErrTransferGuard, before anything moves: the transfer guard
	// scoped to one call. It adds to the process-wide guard
	// (device.SetGuard) and the device's own (device.SetDeviceGuard); it
	// cannot lift them.
	Guard bool
}

// CallWith is Call with per-call options: the device, the transfer guard
// (and, see Options, more). It allocates nothing more than Call.
func (p *Pipeline) CallWith(o Options, args ...any) error {
	return p.callOn(&o, args)
}

// guardError is a refusal by the transfer guard: process-wide, the
// device's own or the call's.
func guardError(what string) error {
	if err := checkAutomatic(what); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s (copy explicitly with CopyToHost/CopyToDevice first, or call without Options.Guard / turn the device's guard off: device.SetDeviceGuard(d, false))", device.ErrTransferGuard, what)
}
