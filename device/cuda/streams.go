package cuda

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/devkit/streamkit"
	"github.com/resident-go/resident/internal/plumb"
)

// streamSet is the upload and download streams of streamed execution
// (package stream, through internal/plumb): non-blocking streams beside
// the Device's own, so that a band's upload, the previous band's compute
// and the one before's download run at once (the copy engines move both
// directions together). Made on first use; Close synchronizes and
// destroys them. Released events wait in spare for the next Mark: a
// cuStreamWaitEvent already queued keeps the record it saw, so reuse is
// safe.
type streamSet struct {
	streamkit.StreamPair[cu.Stream] // Mu guards the spares too
	spare                           []cu.Event
	// timed holds the stamps (events made with timing); released ones
	// wait in spareTimed, apart from Mark's.
	timed      map[cu.Event]bool
	spareTimed []cu.Event
}

// streams is the plumb.Streams of one Device.
type streams struct{ d *Device }

var (
	_ plumb.Streams = streams{}
	_ plumb.Timer   = streams{}
)

func init() {
	streamkit.Register(func(d *Device) *devkit.Core { return &d.s.Core }, (*Device).streamsOf)
}

// streamsOf returns d's streams, making the two extra ones on first use.
func (d *Device) streamsOf() (plumb.Streams, error) {
	s := d.s
	err := s.streams.Open(&s.Core, "stream", func() (cu.Stream, error) { return cu.StreamCreate(s.ctx, cu.StreamNonBlocking) },
		func(str cu.Stream) error { return cu.StreamDestroy(s.ctx, str) })
	if err != nil {
		return nil, err
	}
	return streams{d}, nil
}

// release synchronizes and destroys both extra streams and the spare
// events (shutdown, before memory is freed).
func (q *streamSet) release(ctx cu.Context) error {
	q.Mu.Lock()
	defer q.Mu.Unlock()
	var errs []error
	if q.Up != 0 {
		errs = append(errs, cu.StreamSync(ctx, q.Up), cu.StreamSync(ctx, q.Down),
			cu.StreamDestroy(ctx, q.Up), cu.StreamDestroy(ctx, q.Down))
		q.Up, q.Down = 0, 0
	}
	for _, e := range append(q.spare, q.spareTimed...) {
		errs = append(errs, cu.EventDestroy(ctx, e))
	}
	q.spare, q.spareTimed, q.timed = nil, nil, nil
	return errors.Join(errs...)
}

// stream returns the CUstream q names; the caller is inside the gate.
func (st streams) stream(q plumb.Queue) (cu.Stream, error) {
	s := st.d.s
	return s.streams.Queue(&s.Core, q, s.stream)
}

// on runs f on the CUstream q names, inside the gate.
func (st streams) on(q plumb.Queue, f func(cu.Stream) error) error {
	s := st.d.s
	return streamkit.OnQueue(&s.Core, &s.streams.StreamPair, q, s.stream, f)
}

// wait makes str wait for evs.
func (st streams) wait(str cu.Stream, evs []plumb.Event) error {
	for _, e := range evs {
		if e != 0 {
			if err := cu.StreamWaitEvent(st.d.s.ctx, str, cu.Event(e)); err != nil {
				return err
			}
		}
	}
	return nil
}

// record returns an event, spare or new, recorded on str: made with
// timing when timed (a stamp), else without (cheaper to record).
func (st streams) record(str cu.Stream, timed bool) (plumb.Event, error) {
	s := st.d.s
	q := &s.streams
	pool := &q.spare
	if timed {
		pool = &q.spareTimed
	}
	q.Mu.Lock()
	var e cu.Event
	if n := len(*pool); n > 0 {
		e, *pool = (*pool)[n-1], (*pool)[:n-1]
	}
	q.Mu.Unlock()
	if e == 0 {
		var flags uint32 = cu.EventDisableTiming
		if timed {
			flags = 0
		}
		var err error
		if e, err = cu.EventCreate(s.ctx, flags); err != nil {
			return 0, err
		}
		if timed {
			q.Mu.Lock()
			if q.timed == nil {
				q.timed = map[cu.Event]bool{}
			}
			q.timed[e] = true
			q.Mu.Unlock()
		}
	}
	if err := cu.EventRecord(s.ctx, e, str); err != nil {
		q.Mu.Lock()
		delete(q.timed, e)
		q.Mu.Unlock()
		cu.EventDestroy(s.ctx, e)
		return 0, err
	}
	q.Live.Add(1)
	return plumb.Event(e), nil
}

// The stream commands below pass the device's gate, as its own calls do.

func (st streams) Transfer(q plumb.Queue, a device.Allocation, off int, host []byte, after ...plumb.Event) (plumb.Event, error) {
	d := st.d
	return streamkit.Transfer(&d.s.Core, d, q, a, off, host, func(x *alloc, write bool) (plumb.Event, error) {
		str, err := st.stream(q)
		if err != nil {
			return 0, err
		}
		if err := st.wait(str, after); err != nil {
			return 0, fmt.Errorf("cuda: stream transfer on %s: %w", d.s.Name, err)
		}
		if p := unsafe.Pointer(&host[0]); write {
			err = cu.HtoD(d.s.ctx, at(x, off), p, len(host), str)
		} else {
			err = cu.DtoH(d.s.ctx, p, at(x, off), len(host), str)
		}
		if err != nil {
			return 0, fmt.Errorf("cuda: stream transfer on %s: %w", d.s.Name, err)
		}
		return st.record(str, false)
	})
}

func (st streams) After(q plumb.Queue, evs ...plumb.Event) error {
	return st.on(q, func(str cu.Stream) error { return st.wait(str, evs) })
}

// Stamp records an event with timing on q.
func (st streams) Stamp(q plumb.Queue) (plumb.Event, error) { return st.recordOn(q, true) }

// recordOn records an event on the stream q names, inside the gate.
func (st streams) recordOn(q plumb.Queue, timed bool) (ev plumb.Event, err error) {
	err = st.on(q, func(str cu.Stream) (err error) {
		ev, err = st.record(str, timed)
		return err
	})
	return ev, err
}

func (st streams) Between(a, b plumb.Event) (time.Duration, error) {
	if err := st.d.s.Enter(); err != nil {
		return 0, err
	}
	defer st.d.s.Gate.Leave()
	ms, err := cu.EventElapsed(st.d.s.ctx, cu.Event(a), cu.Event(b))
	if err != nil {
		return 0, fmt.Errorf("cuda: timing events on %s: %w", st.d.s.Name, err)
	}
	return time.Duration(float64(ms) * 1e6), nil
}

func (st streams) Mark(q plumb.Queue) (plumb.Event, error) { return st.recordOn(q, false) }

func (st streams) Wait(e plumb.Event) error {
	if e == 0 {
		return nil
	}
	if err := st.d.s.Enter(); err != nil {
		return err
	}
	defer st.d.s.Gate.Leave()
	return cu.EventSync(st.d.s.ctx, cu.Event(e))
}

// Release puts e back among the spares. After Close (a Run that raced
// it still holds events) it destroys e while another Device keeps the
// primary context, and e with it, alive; once the last one let go, the
// context took e with it, and the handle is not passed on (a later
// context's event may have it now).
func (st streams) Release(e plumb.Event) error {
	if e == 0 {
		return nil
	}
	s := st.d.s
	s.streams.Live.Add(-1)
	s.streams.Mu.Lock()
	defer s.streams.Mu.Unlock()
	q := &s.streams
	if q.Up == 0 {
		inLife(s.dev, s.life, func() { cu.EventDestroy(s.ctx, cu.Event(e)) })
		return nil
	}
	if q.timed[cu.Event(e)] {
		q.spareTimed = append(q.spareTimed, cu.Event(e))
	} else {
		q.spare = append(q.spare, cu.Event(e))
	}
	return nil
}

// Flush does nothing: CUDA submits work as it is queued.
func (st streams) Flush() error { return nil }

func (st streams) Pinned(host []byte) bool { return st.d.s.Pinned(host) }

func (st streams) Live() int { return int(st.d.s.streams.Live.Load()) }
