package stream

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
)

// A Run inside a capture (package device/capture) on a CUDA device is
// recorded whole: the stream capture follows the compute stream's first
// event into the upload and download streams (each waits for it), so a
// replay is one graph of every band's transfers and steps, ordered by the
// same events. In place of the host's waits at the end, the compute
// stream waits for the last transfers, which joins the three streams as
// the capture needs; the Recording holds the band buffers' device memory
// until the Graph closes. Refused, with an error that says why: OpenCL
// devices (their upload and download queues are not recorded), a Trace,
// Go memory (its staging is host work), and the package function Run,
// whose Stream frees its band buffers as it returns.

// capturing is the capture the chain's device is recording (nil: none),
// after refusing what a replay could not redo.
func (s *Stream) capturing(tr *Trace, dst, src array.Buffer) (*devkit.Recording, error) {
	fr, ok := s.p.dev.(devkit.ForeignRecorder)
	if !ok {
		return nil, nil
	}
	rec, keep := fr.Recording()
	if rec == nil {
		return nil, nil
	}
	refuse := func(why string) error {
		return rec.Refuse(fmt.Errorf("stream: a Run inside a capture on %s: %s: %w", s.p.dev.Name(), why, devkit.ErrCapture))
	}
	if n, ok := s.p.dev.(device.Native); !ok || n.API() != "CUDA" {
		return nil, refuse("streamed chains are recorded on CUDA devices only (an OpenCL capture records the device's own queue, not the upload and download queues): record the steps unstreamed, or run the chain eagerly")
	}
	if s.oneShot {
		return nil, refuse("the package function Run frees its band buffers as it returns: Run a Stream (New) that lives as long as the Graph")
	}
	if tr != nil {
		return nil, refuse("a Trace times the device as it runs, and a capture only records")
	}
	for _, b := range []array.Buffer{dst, src} {
		if !direct(b, s.st) {
			return nil, refuse(fmt.Sprintf("the %v %v is Go memory, which the Run stages on the host: use pinned memory (array.NewIn)", b.Raw().Type(), b.Raw().Extents()))
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
	return rec, nil
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
