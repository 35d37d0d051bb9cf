package device

import (
	"context"
	"fmt"
)

// SyncContext waits, as d.Sync does, for the work queued on d, or until
// ctx is done: then it returns at once an error wrapping ctx.Err(). The
// drivers' waits cannot be aborted (clFinish, cuStreamSynchronize), and
// what was queued runs to its end in order, so the device stays
// consistent: the abandoned wait goes on in a goroutine of its own, which
// ends when the device's queue drains (or the device closes), and a later
// Sync or SyncContext waits as usual. A ctx that is never done (Done nil,
// context.Background) is a plain Sync, and a ctx done already returns its
// error without waiting.
func SyncContext(ctx context.Context, d Device) error {
	done := ctx.Done()
	if done == nil {
		return d.Sync()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: Sync: %w", d.Name(), err)
	}
	res := make(chan error, 1) // buffered: the wait never blocks on it
	go func() { res <- d.Sync() }()
	select {
	case err := <-res:
		return err
	case <-done:
		return fmt.Errorf("%s: Sync: %w", d.Name(), ctx.Err())
	}
}
