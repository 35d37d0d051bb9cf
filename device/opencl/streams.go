package opencl

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit/streamkit"
	"github.com/resident-go/resident/internal/plumb"
)

// streamQueues are the upload and download queues of streamed execution:
// in-order queues on the Device's context beside its own. Close finishes
// and releases them.
type streamQueues struct {
	streamkit.StreamPair[*cl.CommandQueue]
}

// streams is the plumb.Streams of one Device.
type streams struct{ d *Device }

var _ plumb.Streams = streams{}

// streamsOf returns d's streams, making the two extra queues on first use.
func (d *Device) streamsOf() (plumb.Streams, error) {
	s := d.s
	err := s.streams.Open(&s.Core, "queue", func() (*cl.CommandQueue, error) { return s.ctx.CreateQueue(s.id, 0) },
		(*cl.CommandQueue).Release)
	if err != nil {
		return nil, err
	}
	return streams{d}, nil
}

// finish waits for both extra queues (Close, before memory is released).
func (q *streamQueues) finish() error {
	q.Mu.Lock()
	defer q.Mu.Unlock()
	if q.Up == nil {
		return nil
	}
	return errors.Join(q.Up.Finish(), q.Down.Finish())
}

// release drops both extra queues (state.Release, before the context).
func (q *streamQueues) release() error {
	q.Mu.Lock()
	defer q.Mu.Unlock()
	if q.Up == nil {
		return nil
	}
	err := errors.Join(q.Up.Release(), q.Down.Release())
	q.Up, q.Down = nil, nil
	return err
}

// queue returns the raw queue q names; the caller is inside the gate.
func (st streams) queue(q plumb.Queue) (uintptr, error) {
	s := st.d.s
	cq, err := s.streams.Queue(&s.Core, q, s.queue)
	if err != nil {
		return 0, err
	}
	return cq.Handle(), nil
}

// on runs f on the raw queue q names, inside the gate.
func (st streams) on(q plumb.Queue, f func(h uintptr) error) error {
	s := st.d.s
	return streamkit.OnQueue(&s.Core, &s.streams.StreamPair, q, s.queue, func(cq *cl.CommandQueue) error { return f(cq.Handle()) })
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
		st.d.s.streams.Live.Add(1)
	}
	return plumb.Event(ev.Handle())
}

// The queue commands below pass the device's gate, as its own calls do.

func (st streams) Transfer(q plumb.Queue, a device.Allocation, off int, host []byte, after ...plumb.Event) (plumb.Event, error) {
	d := st.d
	return streamkit.Transfer(&d.s.Core, d, q, a, off, host, func(x *alloc, write bool) (plumb.Event, error) {
		h, err := st.queue(q)
		if err != nil {
			return 0, err
		}
		var ev cl.Event
		if err := cl.ReadWrite(h, x.Root.H, write, false, x.Off+off, len(host), unsafe.Pointer(&host[0]), events(after), &ev); err != nil {
			return 0, fmt.Errorf("opencl: stream transfer on %s: %w", d.s.Name, err)
		}
		return st.handOut(ev), nil
	})
}

func (st streams) After(q plumb.Queue, evs ...plumb.Event) error {
	w := events(evs)
	if len(w) == 0 {
		return nil
	}
	return st.on(q, func(h uintptr) error { return cl.Barrier(h, w, nil) })
}

func (st streams) Mark(q plumb.Queue) (plumb.Event, error) {
	var ev cl.Event
	err := st.on(q, func(h uintptr) (err error) {
		ev, err = cl.Marker(h)
		return err
	})
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
	st.d.s.streams.Live.Add(-1)
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

func (st streams) Pinned(host []byte) bool { return st.d.s.Pinned(host) }

func (st streams) Live() int { return int(st.d.s.streams.Live.Load()) }
