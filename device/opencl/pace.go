package opencl

import (
	"errors"
	"sync"

	"github.com/resident-go/resident/internal/cl"
)

// Work queued without a sync grows the driver's queue without bound (PoCL
// kept 200 MB of commands for 10^5 small pipeline calls). Like CUDA's
// launch queue, a Device caps what is in flight: every paceEvery commands
// it enqueues a marker, and with paceMarkers markers outstanding it waits
// for the oldest. So at most about paceEvery·paceMarkers commands are
// queued, and the caller blocks past that.
const (
	paceEvery   = 32
	paceMarkers = 8
)

type pacer struct {
	mu      sync.Mutex
	n       int
	markers []cl.Event
}

// pace tells the device that one more command (a kernel, a pipeline call)
// was queued outside its own methods, and blocks while too many are in
// flight. Package halide calls it after every OpenCL pipeline call.
func (d *Device) pace() error {
	d.s.Counters.Launch()
	p := &d.s.pace
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.n%paceEvery != 0 {
		return nil
	}
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	ev, err := cl.Marker(d.s.queue.Handle())
	if err != nil {
		return err
	}
	cl.Flush(d.s.queue.Handle())
	p.markers = append(p.markers, ev)
	if len(p.markers) <= paceMarkers {
		return nil
	}
	old := p.markers[0]
	p.markers = p.markers[1:]
	return errors.Join(old.Wait(), old.Release())
}

// inFlight is the number of pacing markers not yet waited for.
func (d *Device) inFlight() int {
	d.s.pace.mu.Lock()
	defer d.s.pace.mu.Unlock()
	return len(d.s.pace.markers)
}

// drain releases the outstanding markers (Close, after the queue finished).
func (p *pacer) drain() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, e := range p.markers {
		errs = append(errs, e.Release())
	}
	p.markers = nil
	return errors.Join(errs...)
}
