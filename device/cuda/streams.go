package cuda

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
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
	mu       sync.Mutex
	up, down cu.Stream
	spare    []cu.Event
	// timed holds the stamps (events made with timing); released ones
	// wait in spareTimed, apart from Mark's.
	timed      map[cu.Event]bool
	spareTimed []cu.Event
	live       atomic.Int64 // events handed out, not yet released
}

// streams is the plumb.Streams of one Device.
type streams struct{ d *Device }

var (
	_ plumb.Streams = streams{}
	_ plumb.Timer   = streams{}
)

func init() {
	devkit.RegisterGate(func(d *Device) *devkit.Gate { return &d.s.Gate })
	plumb.RegisterStreams(func(d device.Device) (plumb.Streams, bool, error) {
		if c, ok := d.(*Device); ok {
			st, err := c.streamsOf()
			return st, true, err
		}
		return nil, false, nil
	})
}

// streamsOf returns d's streams, making the two extra ones on first use.
func (d *Device) streamsOf() (plumb.Streams, error) {
	s := d.s
	q := &s.streams
	if err := s.Enter(); err != nil {
		return nil, err
	}
	defer s.Gate.Leave()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.up == 0 {
		up, err := cu.StreamCreate(s.ctx, cu.StreamNonBlocking)
		if err != nil {
			return nil, fmt.Errorf("cuda: upload stream on %s: %w", s.Name, err)
		}
		down, err := cu.StreamCreate(s.ctx, cu.StreamNonBlocking)
		if err != nil {
			cu.StreamDestroy(s.ctx, up)
			return nil, fmt.Errorf("cuda: download stream on %s: %w", s.Name, err)
		}
		q.up, q.down = up, down
	}
	return streams{d}, nil
}

// release synchronizes and destroys both extra streams and the spare
// events (shutdown, before memory is freed).
func (q *streamSet) release(ctx cu.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	if q.up != 0 {
		errs = append(errs, cu.StreamSync(ctx, q.up), cu.StreamSync(ctx, q.down),
			cu.StreamDestroy(ctx, q.up), cu.StreamDestroy(ctx, q.down))
		q.up, q.down = 0, 0
	}
	for _, e := range append(q.spare, q.spareTimed...) {
		errs = append(errs, cu.EventDestroy(ctx, e))
	}
	q.spare, q.spareTimed, q.timed = nil, nil, nil
	return errors.Join(errs...)
}

// stream returns the CUstream q names.
func (st streams) stream(q plumb.Queue) (cu.Stream, error) {
	s := st.d.s
	if q == plumb.Compute {
		return s.stream, nil // the caller is inside the gate
	}
	if q != plumb.Upload && q != plumb.Download {
		return 0, fmt.Errorf("cuda: no stream queue %d", q)
	}
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if s.streams.up == 0 {
		return 0, ErrClosed // destroyed by Close
	}
	if q == plumb.Upload {
		return s.streams.up, nil
	}
	return s.streams.down, nil
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
	q.mu.Lock()
	var e cu.Event
	if n := len(*pool); n > 0 {
		e, *pool = (*pool)[n-1], (*pool)[:n-1]
	}
	q.mu.Unlock()
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
			q.mu.Lock()
			if q.timed == nil {
				q.timed = map[cu.Event]bool{}
			}
			q.timed[e] = true
			q.mu.Unlock()
		}
	}
	if err := cu.EventRecord(s.ctx, e, str); err != nil {
		q.mu.Lock()
		delete(q.timed, e)
		q.mu.Unlock()
		cu.EventDestroy(s.ctx, e)
		return 0, err
	}
	q.live.Add(1)
	return plumb.Event(e), nil
}

// The stream commands below pass the device's gate, as its own calls do.

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
	write, err := plumb.TransferArgs("cuda", q, x.N, off, n)
	if err != nil || n == 0 {
		return 0, err
	}
	if !d.s.Pinned(host) {
		// Go memory must never reach an asynchronous copy.
		return 0, fmt.Errorf("cuda: stream transfer of %d bytes from memory that is not %s's pinned memory: %w", n, d.s.Name, device.ErrOutOfRange)
	}
	str, err := st.stream(q)
	if err != nil {
		return 0, err
	}
	if err := st.wait(str, after); err != nil {
		return 0, fmt.Errorf("cuda: stream transfer on %s: %w", d.s.Name, err)
	}
	p := unsafe.Pointer(&host[0])
	if write {
		err = cu.HtoD(d.s.ctx, at(x, off), p, n, str)
	} else {
		err = cu.DtoH(d.s.ctx, p, at(x, off), n, str)
	}
	if err != nil {
		return 0, fmt.Errorf("cuda: stream transfer on %s: %w", d.s.Name, err)
	}
	if write {
		d.s.Counters.H2D(n)
	} else {
		d.s.Counters.D2H(n)
	}
	return st.record(str, false)
}

func (st streams) After(q plumb.Queue, evs ...plumb.Event) error {
	if err := st.d.s.Enter(); err != nil {
		return err
	}
	defer st.d.s.Gate.Leave()
	str, err := st.stream(q)
	if err != nil {
		return err
	}
	return st.wait(str, evs)
}

// Stamp records an event with timing on q.
func (st streams) Stamp(q plumb.Queue) (plumb.Event, error) {
	if err := st.d.s.Enter(); err != nil {
		return 0, err
	}
	defer st.d.s.Gate.Leave()
	str, err := st.stream(q)
	if err != nil {
		return 0, err
	}
	return st.record(str, true)
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

func (st streams) Mark(q plumb.Queue) (plumb.Event, error) {
	if err := st.d.s.Enter(); err != nil {
		return 0, err
	}
	defer st.d.s.Gate.Leave()
	str, err := st.stream(q)
	if err != nil {
		return 0, err
	}
	return st.record(str, false)
}

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
// it still holds events) it destroys e: another Device may keep the
// primary context, and e with it, alive; where none does, the context
// took its events with it and the error is ignored.
func (st streams) Release(e plumb.Event) error {
	if e == 0 {
		return nil
	}
	s := st.d.s
	s.streams.live.Add(-1)
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	q := &s.streams
	if q.up == 0 {
		cu.EventDestroy(s.ctx, cu.Event(e))
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

func (st streams) Live() int { return int(st.d.s.streams.live.Load()) }
