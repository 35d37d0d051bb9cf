package streamkit

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
)

// StreamPair is a device's upload and download queues (OpenCL queues,
// CUDA streams) for streamed execution (package stream, through
// internal/plumb), beside the device's own, so that a band's upload, the
// previous band's compute and the one before's download run at once.
// They are made on first use and dropped at shutdown; Mu guards them and
// what a backend keeps with them. The zero value is ready.
type StreamPair[Q comparable] struct {
	Mu       sync.Mutex
	Up, Down Q
	// Live counts the events handed out and not yet released.
	Live atomic.Int64
}

// Open makes both queues with make on first use, inside c's gate; noun
// names them in errors ("queue", "stream").
func (p *StreamPair[Q]) Open(c *devkit.Core, noun string, make func() (Q, error), drop func(Q) error) error {
	if err := c.Enter(); err != nil {
		return err
	}
	defer c.Gate.Leave()
	p.Mu.Lock()
	defer p.Mu.Unlock()
	var zero Q
	if p.Up != zero {
		return nil
	}
	up, err := make()
	if err != nil {
		return fmt.Errorf("%s: upload %s on %s: %w", c.Pkg, noun, c.Name, err)
	}
	down, err := make()
	if err != nil {
		drop(up)
		return fmt.Errorf("%s: download %s on %s: %w", c.Pkg, noun, c.Name, err)
	}
	p.Up, p.Down = up, down
	return nil
}

// Queue returns the queue q names: compute, the device's own, for
// plumb.Compute (the caller is inside the gate); ErrClosed once shutdown
// dropped the pair.
func (p *StreamPair[Q]) Queue(c *devkit.Core, q plumb.Queue, compute Q) (Q, error) {
	var zero Q
	switch q {
	case plumb.Compute:
		return compute, nil
	case plumb.Upload, plumb.Download:
	default:
		return zero, fmt.Errorf("%s: no stream queue %d", c.Pkg, q)
	}
	p.Mu.Lock()
	defer p.Mu.Unlock()
	if p.Up == zero {
		return zero, c.ErrClosed // dropped by Close
	}
	if q == plumb.Upload {
		return p.Up, nil
	}
	return p.Down, nil
}

// OnQueue is a stream command's frame: f runs on the queue q names,
// inside c's gate.
func OnQueue[Q comparable](c *devkit.Core, p *StreamPair[Q], q plumb.Queue, compute Q, f func(Q) error) error {
	if err := c.Enter(); err != nil {
		return err
	}
	defer c.Gate.Leave()
	h, err := p.Queue(c, q, compute)
	if err != nil {
		return err
	}
	return f(h)
}
