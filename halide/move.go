package halide

import "github.com/resident-go/resident/array"

// Move marks a pipeline argument that may be moved from the device it
// lives on to the call's device: its device-dirty data is copied home (on
// its old device, counted there), that allocation freed, and the call
// proceeds as for a host-resident Array. Without Move, an Array resident on
// another device is refused with ErrForeignDevice before anything moves.
// The transfer guard sees the move either way.
//
//	err := p.Call(halide.Move(onOtherDevice), k, out)
func Move(b array.Buffer) array.Buffer { return moved{b} }

// moved is an argument the caller lets the call move between devices.
type moved struct{ array.Buffer }
