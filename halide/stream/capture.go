package stream

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
)

// A Run inside a capture (package device/capture) is recorded whole. On
// CUDA the stream capture follows the compute stream's first event into
// the upload and download streams (each waits for it), so a replay is one
// graph of every band's transfers and steps, ordered by the same events.
// On OpenCL, whose capture records the device's own queue, the Run's
// queue work goes through recStreams, which records it in order with the
// steps' kernels: a replay queues the same commands with new events. In
// place of the host's waits at the end, the compute queue waits for the
// last transfers (which joins CUDA's streams, as its capture needs); the
// Recording holds the band buffers' device memory until the Graph closes.
// Refused, with an error that says why: a Trace, Go memory (its staging
// is host work), and the package function Run, whose Stream frees its
// band buffers as it returns.

// capturing is the capture the chain's device is recording (nil: none),
// after refusing what a replay could not redo; restore undoes what it
// set up for the Run.
func (s *Stream) capturing(tr *Trace, dst, src array.Buffer) (rec *devkit.Recording, restore func(), err error) {
	restore = func() {}
	fr, ok := s.p.dev.(devkit.ForeignRecorder)
	if !ok {
		return nil, restore, nil
	}
	rec, keep := fr.Recording()
	if rec == nil {
		return nil, restore, nil
	}
	refuse := func(why string) error {
		return rec.Refuse(fmt.Errorf("stream: a Run inside a capture on %s: %s: %w", s.p.dev.Name(), why, devkit.ErrCapture))
	}
	if s.oneShot {
		return nil, restore, refuse("the package function Run frees its band buffers as it returns: Run a Stream (New) that lives as long as the Graph")
	}
	if tr != nil {
		return nil, restore, refuse("a Trace times the device as it runs, and a capture only records")
	}
	for _, b := range []array.Buffer{dst, src} {
		if !direct(b, s.st) {
			return nil, restore, refuse(fmt.Sprintf("the %v %v is Go memory, which the Run stages on the host: use pinned memory (array.NewIn)", b.Raw().Type(), b.Raw().Extents()))
		}
	}
	bufs := append([]array.Buffer{}, s.mid...)
	for _, sl := range s.slots {
		bufs = append(bufs, sl.in, sl.out)
	}
	for _, b := range bufs {
		if b == nil {
			continue
		}
		if a, _ := b.Raw().Allocation(); a != nil {
			rec.Keep(a.Native(), keep(a.Native()))
		}
	}
	if n, ok := s.p.dev.(device.Native); ok && n.API() == "CUDA" {
		return rec, restore, nil
	}
	old := s.st
	s.st = newRecStreams(old, rec)
	return rec, func() { s.st = old }, nil
}

// join makes the compute stream wait for every event the Run left (a
// capture's end, in place of drain's waits), and releases them.
func (s *Stream) join(start plumb.Event) error {
	st := s.st
	evs := []plumb.Event{start}
	for i := range s.slots {
		sl := &s.slots[i]
		sl.scatter = nil
		for _, e := range []*plumb.Event{&sl.up, &sl.comp, &sl.down} {
			if *e != 0 {
				evs = append(evs, *e)
			}
		}
	}
	err := st.After(plumb.Compute, evs...)
	for _, e := range evs {
		st.Release(e)
	}
	for i := range s.slots {
		sl := &s.slots[i]
		sl.up, sl.comp, sl.down = 0, 0, 0
	}
	return err
}

// recStreams records a Run's queue work on OpenCL, where a capture
// records only the device's own queue: each Transfer, After, Mark,
// Release and Flush runs as the Run asks and is added to the Recording
// as a step that does it again, its events renumbered (a replay makes
// new ones in the same slots and releases them as the Run did). The
// steps' kernels are recorded by the device and by package halide, in
// the same order.
type recStreams struct {
	plumb.Streams
	rec   *devkit.Recording
	slot  map[plumb.Event]int // an event of the recorded Run → its slot
	evs   []plumb.Event       // the replay's events, by slot (steps run in order under the Graph's lock)
	bytes int                 // pinned bytes the transfers move, for the steps' names
}

func newRecStreams(st plumb.Streams, rec *devkit.Recording) *recStreams {
	r := &recStreams{Streams: st, rec: rec, slot: map[plumb.Event]int{}}
	r.add("reset", r.releaseLeft) // events a failed replay left
	// and those the last replay left when the Graph closes
	rec.Keep(uintptr(unsafe.Pointer(r)), func() func() error { return r.releaseLeft })
	return r
}

// releaseLeft releases the replay events still held.
func (r *recStreams) releaseLeft() error {
	var err error
	for i, e := range r.evs {
		if e != 0 {
			err = errors.Join(err, r.Streams.Release(e))
			r.evs[i] = 0
		}
	}
	return err
}

// add records a step named name.
func (r *recStreams) add(name string, run func() error) {
	r.rec.Add(&devkit.Step{Name: "stream " + name, Run: func([]any) error { return run() }})
}

// made gives the Run's new event e a slot and returns it.
func (r *recStreams) made(e plumb.Event) int {
	i := len(r.evs)
	r.evs = append(r.evs, 0)
	r.slot[e] = i
	return i
}

// slots are the slots of evs (0 where an event is none).
func (r *recStreams) slots(evs []plumb.Event) []int {
	out := make([]int, len(evs))
	for k, e := range evs {
		out[k] = -1
		if i, ok := r.slot[e]; ok && e != 0 {
			out[k] = i
		}
	}
	return out
}

// now is the replay's events of slots.
func (r *recStreams) now(slots []int) []plumb.Event {
	out := make([]plumb.Event, 0, len(slots))
	for _, i := range slots {
		if i >= 0 && r.evs[i] != 0 {
			out = append(out, r.evs[i])
		}
	}
	return out
}

func (r *recStreams) Transfer(q plumb.Queue, a device.Allocation, off int, host []byte, after ...plumb.Event) (plumb.Event, error) {
	e, err := r.Streams.Transfer(q, a, off, host, after...)
	if err != nil {
		return e, err
	}
	w, i := r.slots(after), r.made(e)
	r.add("transfer", func() error {
		ev, err := r.Streams.Transfer(q, a, off, host, r.now(w)...)
		r.evs[i] = ev
		return err
	})
	return e, nil
}

func (r *recStreams) After(q plumb.Queue, evs ...plumb.Event) error {
	if err := r.Streams.After(q, evs...); err != nil {
		return err
	}
	w := r.slots(evs)
	r.add("wait", func() error { return r.Streams.After(q, r.now(w)...) })
	return nil
}

func (r *recStreams) Mark(q plumb.Queue) (plumb.Event, error) {
	e, err := r.Streams.Mark(q)
	if err != nil {
		return e, err
	}
	i := r.made(e)
	r.add("mark", func() error {
		ev, err := r.Streams.Mark(q)
		r.evs[i] = ev
		return err
	})
	return e, nil
}

func (r *recStreams) Release(e plumb.Event) error {
	err := r.Streams.Release(e)
	if i, ok := r.slot[e]; ok && e != 0 {
		delete(r.slot, e) // the driver may hand out its handle again
		r.add("release", func() error {
			ev := r.evs[i]
			r.evs[i] = 0
			return r.Streams.Release(ev)
		})
	}
	return err
}

func (r *recStreams) Flush() error {
	r.add("flush", r.Streams.Flush)
	return r.Streams.Flush()
}
