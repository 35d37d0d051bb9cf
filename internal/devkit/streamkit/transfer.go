package streamkit

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
)

// Transfer is plumb.Streams.Transfer: inside the gate, a as one of
// dev's live allocations, the queue and range checked, host pinned (Go
// memory must never reach an asynchronous copy); move queues the copy of
// all of host at byte off of x on q (write: an upload) and returns its
// event; then it counts.
func Transfer[D devkit.Dev](c *devkit.Core, dev D, q plumb.Queue, a device.Allocation, off int, host []byte,
	move func(x *devkit.Alloc[D], write bool) (plumb.Event, error)) (plumb.Event, error) {
	if err := c.Enter(); err != nil {
		return 0, err
	}
	defer c.Gate.Leave()
	x, err := devkit.Own(&c.Pool, dev, a)
	if err != nil {
		return 0, err
	}
	n := len(host)
	write, err := plumb.TransferArgs(c.Pkg, q, x.N, off, n)
	if err != nil || n == 0 {
		return 0, err
	}
	if !c.Pinned(host) {
		return 0, fmt.Errorf("%s: stream transfer of %d bytes from memory that is not %s's pinned memory: %w", c.Pkg, n, c.Name, device.ErrOutOfRange)
	}
	ev, err := move(x, write)
	if err != nil {
		return 0, err
	}
	c.Counters.Transfer(write, n)
	return ev, nil
}
