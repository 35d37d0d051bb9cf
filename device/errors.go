package device

import "errors"

// The module's shared sentinels: every package's errors of these kinds
// wrap them (array.ErrClosed wraps ErrClosed, array.ErrOutOfRange is
// ErrOutOfRange), so errors.Is works whatever the device or package.
var (
	// ErrClosed: the device (or an allocation's device) was closed.
	ErrClosed = errors.New("device: closed")
	// ErrForeign: an allocation, or an Array resident there, belongs to
	// another device.
	ErrForeign = errors.New("device: allocation of another device")
	// ErrOutOfRange: an offset, size or Region falls outside an allocation or a
	// host slice, or its arithmetic overflows.
	ErrOutOfRange = errors.New("device: out of range")
)
