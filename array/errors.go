package array

import (
	"errors"
	"fmt"

	"github.com/resident-go/resident/device"
)

// Sentinels for programmer errors. Panics wrap one of them, so
// recover()'s value matches with errors.Is. ErrClosed wraps
// device.ErrClosed and ErrOutOfRange wraps device.ErrOutOfRange: the module
// has one closed sentinel and one range sentinel that all others wrap. ErrLayout and ErrType are
// the one layout and one element-type sentinel of every package that maps
// Arrays to other libraries' values (interop, the gorgonia engine, npy).
var (
	ErrShape            = errors.New("array: bad shape")
	ErrOutOfRange error = &sentinel{"array: out of range", device.ErrOutOfRange}
	ErrClosed     error = &sentinel{"array: used after Close", device.ErrClosed}
	// ErrLost: a host read of values that were device dirty when their
	// device closed and could not be copied home (package doc, "Lost
	// values"). It wraps device.ErrClosed; the error also wraps the
	// failed copy's.
	ErrLost   error = &sentinel{"array: values lost at device close", device.ErrClosed}
	ErrDirty        = errors.New("array: host and device both dirty")
	ErrStale        = errors.New("array: stale host view")
	ErrLayout       = errors.New("array: layout cannot map")
	ErrType         = errors.New("array: unsupported element type")
	// ErrReadOnly: a write through a read-only view (BroadcastTo's, and
	// every view of one), whose elements repeat its source's.
	ErrReadOnly = errors.New("array: read-only view")
)

func panicf(sentinel error, format string, args ...any) {
	panic(fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...))
}

// sentinel is a package sentinel that wraps the module's shared one
// without repeating its text.
type sentinel struct {
	msg  string
	base error
}

func (s *sentinel) Error() string { return s.msg }
func (s *sentinel) Unwrap() error { return s.base }
