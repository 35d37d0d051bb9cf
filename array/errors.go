package array

import (
	"errors"
	"fmt"
)

// Sentinels for programmer errors. Panics wrap one of them, so
// recover()'s value matches with errors.Is.
var (
	ErrShape      = errors.New("array: bad shape")
	ErrOutOfRange = errors.New("array: out of range")
	ErrClosed     = errors.New("array: used after Close")
	ErrDirty      = errors.New("array: host and device both dirty")
	ErrStale      = errors.New("array: stale host view")
)

func panicf(sentinel error, format string, args ...any) {
	panic(fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...))
}
