package device

import "errors"

// Errors shared by every Device implementation; theirs wrap these, so
// errors.Is works whatever the device.
var (
	// ErrClosed: the device (or an allocation's device) was closed.
	ErrClosed = errors.New("device: closed")
	// ErrForeign: an allocation, or an Array resident there, belongs to
	// another device.
	ErrForeign = errors.New("device: allocation of another device")
	// ErrRange: an offset, size or Region falls outside an allocation or a
	// host slice, or its arithmetic overflows.
	ErrRange = errors.New("device: out of range")
)
