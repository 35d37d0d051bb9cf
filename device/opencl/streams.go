package opencl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/plumb"
)

// streamQueues are the upload and download queues of streamed execution
// (package stream, through internal/plumb): in-order queues on the
// Device's context beside its own, so that a band's upload, the previous
// band's compute and the one before's download run at once. They are made
// on first use; Close finishes and releases them.
type streamQueues struct {
	mu       sync.Mutex
	up, down *cl.CommandQueue
	live     atomic.Int64 // events handed out, not yet released
}

// streams is the plumb.Streams of one Device.
type streams struct{ d *Device }

var _ plumb.Streams = streams{}

// streamsOf returns d's streams, making the two extra queues on first use.
func (d *Device) streamsOf() (plumb.Streams, error) {
	s := d.s
	q := &s.streams
	if err := s.Enter(); err != nil {
		return nil, err
	}
	defer s.Gate.Leave()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.up == nil {
		up, err := s.ctx.CreateQueue(s.id, 0)
		if err != nil {
			return nil, fmt.Errorf("opencl: upload queue on %s: %w", s.Name, err)
		}
		down, err := s.ctx.CreateQueue(s.id, 0)
		if err != nil {
			up.Release()
			return nil, fmt.Errorf("opencl: download queue on %s: %w", s.Name, err)
		}
		q.up, q.down = up, down
	}
	return streams{d}, nil
}

// finish waits for both extra queues (Close, before memory is released).
func (q *streamQueues) finish() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.up == nil {
		return nil
	}
	return errors.Join(q.up.Finish(), q.down.Finish())
}

// release drops both extra queues (state.release, before the context).
func (q *streamQueues) release() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.up == nil {
		return nil
	}
	err := errors.Join(q.up.Release(), q.down.Release())
	q.up, q.down = nil, nil
	return err
}

// queue returns the raw queue q names.
func (st streams) queue(q plumb.Queue) (uintptr, error) {
	s := st.d.s
	switch q {
	case plumb.Compute:
		return s.queue.Handle(), nil
	case plumb.Upload, plumb.Download:
	default:
		return 0, fmt.Errorf("opencl: no stream queue %d", q)
	}
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if s.streams.up == nil {
		return 0, ErrClosed // released by Close
	}
	if q == plumb.Upload {
		return s.streams.up.Handle(), nil
	}
	return s.streams.down.Handle(), nil
}

func events(evs []plumb.Event) []cl.Event {
	out := make([]cl.Event, 0, len(evs))
	for _, e := range evs {
		if e != 0 {
			out = append(out, cl.EventOf(uintptr(e)))
		}
	}
	return out
}

// handOut counts ev as live and returns it as a plumb.Event.
func (st streams) handOut(ev cl.Event) plumb.Event {
	if !ev.IsZero() {
		st.d.s.streams.live.Add(1)
	}
	return plumb.Event(ev.Handle())
}

// The queue commands below pass the device's gate, as its own calls do.

func (st streams) Transfer(q plumb.Queue, a device.Allocation, off int, host []byte, after ...plumb.Event) (plumb.Event, error) {
	d := st.d
	if err := d.s.Enter(); err != nil {
		return 0, err
	}
	defer d.s.Gate.Leave()
	x, err := d.own(a)
	if err != nil {
		return 0, err
	}
	n := len(host)
	write, err := plumb.TransferArgs("opencl", q, x.N, off, n)
	if err != nil || n == 0 {
		return 0, err
	}
	p := unsafe.Pointer(&host[0])
	if !d.s.Pins.Contains(uintptr(p), n) {
		// Go memory must never reach a non-blocking call.
		return 0, fmt.Errorf("opencl: stream transfer of %d bytes from memory that is not %s's pinned memory: %w", n, d.s.Name, device.ErrOutOfRange)
	}
	h, err := st.queue(q)
	if err != nil {
		return 0, err
	}
	var ev cl.Event
	if err := cl.ReadWrite(h, x.Root.H, write, false, x.Off+off, n, p, events(after), &ev); err != nil {
		return 0, fmt.Errorf("opencl: stream transfer on %s: %w", d.s.Name, err)
	}
	if write {
		d.s.Counters.H2D(n)
	} else {
		d.s.Counters.D2H(n)
	}
	return st.handOut(ev), nil
}

func (st streams) After(q plumb.Queue, evs ...plumb.Event) error {
	w := events(evs)
	if len(w) == 0 {
		return nil
	}
	if err := st.d.s.Enter(); err != nil {
		return err
	}
	defer st.d.s.Gate.Leave()
	h, err := st.queue(q)
	if err != nil {
		return err
	}
	return cl.Barrier(h, w, nil)
}

func (st streams) Mark(q plumb.Queue) (plumb.Event, error) {
	if err := st.d.s.Enter(); err != nil {
		return 0, err
	}
	defer st.d.s.Gate.Leave()
	h, err := st.queue(q)
	if err != nil {
		return 0, err
	}
	ev, err := cl.Marker(h)
	if err != nil {
		return 0, err
	}
	return st.handOut(ev), nil
}

func (st streams) Wait(e plumb.Event) error {
	if err := st.d.s.Enter(); err != nil {
		return err
	}
	defer st.d.s.Gate.Leave()
	return cl.EventOf(uintptr(e)).Wait()
}

func (st streams) Release(e plumb.Event) error {
	if e == 0 {
		return nil
	}
	st.d.s.streams.live.Add(-1)
	return cl.EventOf(uintptr(e)).Release()
}

func (st streams) Flush() error {
	if err := st.d.s.Enter(); err != nil {
		return err
	}
	defer st.d.s.Gate.Leave()
	var errs []error
	for _, q := range []plumb.Queue{plumb.Upload, plumb.Compute, plumb.Download} {
		h, err := st.queue(q)
		if err == nil {
			err = cl.Flush(h)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (st streams) Pinned(host []byte) bool {
	return st.d.s.Pinned(host)
}

func (st streams) Live() int { return int(st.d.s.streams.live.Load()) }
