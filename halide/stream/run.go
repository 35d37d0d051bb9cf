package stream

import (
	"context"
	"errors"
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// run streams every band of the plan. Band k's upload waits for the
// compute of the band that last used its slot (which read the slot's
// input buffer); its compute, on the device's own queue, waits for the
// upload and for that band's download (which read the slot's output
// buffer); its download waits for the compute. The host stages band k's
// input, queues the three, then scatters band k−1's staged output while
// the device works. Whatever happens, everything queued is waited for
// and every event released before run returns. ctx is checked before each
// band is queued; trace (nil: none) is filled.
func (s *Stream) run(ctx context.Context, trace *Trace, dst, src array.Buffer) (err error) {
	rec, restore, err := s.capturing(trace, dst, src) // capture.go
	if err != nil {
		return err
	}
	defer restore()
	st, p, n := s.st, s.p, len(s.steps)
	kin, kout := s.kits[0], s.kits[n]
	// Work queued on the compute queue before this Run may still use
	// memory the caching allocator handed to our buffers: uploads wait
	// for it.
	start, err := st.Mark(plumb.Compute)
	if err != nil {
		return err
	}
	var tr *tracer
	defer func() {
		if rec != nil {
			err = errors.Join(err, s.join(start))
		} else {
			err = errors.Join(err, s.drain(start))
		}
		err = errors.Join(err, tr.done(err == nil))
		s.settle()
	}()
	if tr, err = newTracer(trace, st, s.steps, len(p.bands)); err != nil {
		return err
	}
	for k, regs := range p.bands {
		if err := ctx.Err(); err != nil { // the bands queued finish in drain
			return fmt.Errorf("stream: Run cancelled before band %d of %d: %w", k, len(p.bands), err)
		}
		sl := &s.slots[k%len(s.slots)]
		fail := func(what string, err error) error {
			return fmt.Errorf("stream: band %d of %d, %s: %w", k, len(p.bands), what, err)
		}
		bt := tr.band(k)
		tr.now(&bt.Queued.Begin)

		// Upload band k's input region.
		in := s.views[k][0]
		host, err := s.hostSide(sl, &sl.inStage, kin, s.p.most[0], kin.crop(src, regs[0]), regs[0], true)
		if err != nil {
			return fail("staging the input", err)
		}
		alloc, off := in.Raw().Allocation()
		up, err := s.transfer(tr, &bt.Up, plumb.Upload, alloc, off, host, sl.comp, start)
		if up != 0 {
			s.replace(&sl.up, up)
		}
		if err != nil {
			return fail("upload", err)
		}
		if err := plumb.Array.WroteDevice(in.Raw(), alloc); err != nil {
			return fail("upload", err)
		}

		// Compute it on the device's own queue.
		if err := st.After(plumb.Compute, up, sl.down); err != nil {
			return fail("compute after upload", err)
		}
		if err := tr.stamp(plumb.Compute, &bt.Compute.Begin); err != nil {
			return fail("trace", err)
		}
		cur := in
		for i, step := range s.steps {
			out := s.views[k][i+1]
			run := step.Run
			if step.RunContext != nil {
				run = func(out, in array.Buffer) error { return step.RunContext(ctx, out, in) }
			}
			if err := run(out, cur); err != nil {
				return fail(fmt.Sprintf("step %d (%s)", i, step.Name), err)
			}
			if r := out.Raw(); r.Device() != p.dev || !r.DeviceDirty() {
				if c, ok := p.dev.(device.Compute); ok && c.Closed() {
					return fail(fmt.Sprintf("step %d (%s)", i, step.Name), fmt.Errorf("%s closed under the Run: %w", p.dev.Name(), device.ErrClosed))
				}
				return fail(fmt.Sprintf("step %d (%s)", i, step.Name), fmt.Errorf("%w: it left its output on the host: a streamed step runs on the device (%s)", ErrChain, p.dev.Name()))
			}
			if err := tr.step(bt, i); err != nil {
				return fail("trace", err)
			}
			cur = out
		}
		comp, err := st.Mark(plumb.Compute)
		if err != nil {
			return fail("compute marker", err)
		}
		s.replace(&sl.comp, comp)
		if err := tr.stamp(plumb.Compute, &bt.Compute.End); err != nil {
			return fail("trace", err)
		}

		// Download its output.
		if sl.scatter != nil { // one slot: the staging still holds band k−1
			if err := s.finish(sl); err != nil {
				return fail("scatter", err)
			}
		}
		dstBand := kout.crop(dst, regs[n])
		host, err = s.hostSide(sl, &sl.outStage, kout, s.p.most[n], dstBand, regs[n], false)
		if err != nil {
			return fail("staging the output", err)
		}
		alloc, off = cur.Raw().Allocation()
		down, err := s.transfer(tr, &bt.Down, plumb.Download, alloc, off, host, comp)
		if down != 0 {
			s.replace(&sl.down, down)
		}
		if err != nil {
			return fail("download", err)
		}
		if sl.outStage != nil && !direct(dstBand, st) {
			stage, err := kout.view(sl.outStage, regs[n])
			if err != nil {
				return fail("staging the output", err)
			}
			sl.scatter = func() error { return kout.copy(dstBand, stage) }
		}
		if err := st.Flush(); err != nil {
			return fail("flush", err)
		}

		// Scatter band k−1's output while the device works on band k.
		if k > 0 {
			if prev := &s.slots[(k-1)%len(s.slots)]; prev.scatter != nil {
				if err := s.finish(prev); err != nil {
					return fmt.Errorf("stream: band %d of %d, scatter: %w", k-1, len(p.bands), err)
				}
			}
		}
		tr.now(&bt.Queued.End)
	}
	last := &s.slots[(len(p.bands)-1)%len(s.slots)]
	if last.scatter != nil {
		return s.finish(last)
	}
	return nil
}

// transfer queues a band's upload or download after the events. Traced,
// the waits go first and stamps bracket the copy, so span is the copy's
// own time. A failed stamp returns the queued copy's event with the error.
func (s *Stream) transfer(tr *tracer, span *Span, q plumb.Queue, a device.Allocation, off int, host []byte, after ...plumb.Event) (plumb.Event, error) {
	st := s.st
	if a == nil {
		// The band buffer's device closed and its hooks let the memory go.
		return 0, fmt.Errorf("the band buffer was let go by %s, which closed meanwhile: %w", s.p.dev.Name(), device.ErrClosed)
	}
	if tr.timed() {
		if err := st.After(q, after...); err != nil {
			return 0, err
		}
		after = nil
		if err := tr.stamp(q, &span.Begin); err != nil {
			return 0, err
		}
	}
	e, err := st.Transfer(q, a, off, host, after...)
	if err != nil {
		return 0, err
	}
	return e, tr.stamp(q, &span.End)
}

// direct reports whether b's host elements are one run of the device's
// pinned memory, which transfers take without staging.
func direct(b array.Buffer, st plumb.Streams) bool {
	r := b.Raw()
	return contiguous(r.Dims()) && st.Pinned(r.HostBytes()[:r.Len()*r.Type().Bytes()])
}

// hostSide returns the host bytes a band's transfer moves: b's own when
// they are one run of pinned memory, else the slot's staging (made on
// first use, and free once the slot's last upload completed), gathered
// from b when up.
func (s *Stream) hostSide(sl *slot, stage *array.Buffer, k kit, most int, b array.Buffer, region []array.Dim, up bool) ([]byte, error) {
	r := b.Raw()
	n := r.Len() * r.Type().Bytes()
	if direct(b, s.st) {
		return r.HostBytes()[:n], nil
	}
	if *stage == nil {
		ha, ok := s.p.dev.(device.HostAllocator)
		if !ok {
			return nil, fmt.Errorf("%w: %s has no pinned host memory to stage through", ErrChain, s.p.dev.Name())
		}
		blk, err := ha.AllocHost(most * r.Type().Bytes())
		if err != nil {
			return nil, err
		}
		if *stage, err = k.over(blk, most); err != nil {
			blk.Free()
			return nil, err
		}
	}
	v, err := k.view(*stage, region)
	if err != nil {
		return nil, err
	}
	if up {
		// The staging is free once the slot's last upload completed.
		if err := s.st.Wait(sl.up); err != nil {
			return nil, err
		}
		if err := k.copy(v, b); err != nil {
			return nil, err
		}
	}
	return v.Raw().HostBytes()[:n], nil
}

// finish waits for the slot's download and scatters its staged output.
func (s *Stream) finish(sl *slot) error {
	f := sl.scatter
	sl.scatter = nil
	if err := s.st.Wait(sl.down); err != nil {
		return err
	}
	return f()
}

// replace releases the event at *e and puts ev there: a command queued
// with the old one in its wait list holds its own reference.
func (s *Stream) replace(e *plumb.Event, ev plumb.Event) {
	s.st.Release(*e)
	*e = ev
}

// settle marks the band buffers' two copies equal, as their host copies
// are never read: a Device closing under the Stream then brings nothing
// home.
func (s *Stream) settle() {
	for _, sl := range s.slots {
		plumb.Array.Wrote(sl.in.Raw(), plumb.Equal)
		plumb.Array.Wrote(sl.out.Raw(), plumb.Equal)
	}
	for _, b := range s.mid {
		if b != nil {
			plumb.Array.Wrote(b.Raw(), plumb.Equal)
		}
	}
}

// drain waits for everything run queued (the compute queue to its end,
// past a step that failed half-way) and releases every event.
func (s *Stream) drain(start plumb.Event) error {
	st := s.st
	end, err := st.Mark(plumb.Compute)
	errs := []error{err, st.Flush(), st.Wait(end), st.Wait(start)}
	st.Release(end)
	st.Release(start)
	for i := range s.slots {
		sl := &s.slots[i]
		sl.scatter = nil
		for _, e := range []*plumb.Event{&sl.up, &sl.comp, &sl.down} {
			errs = append(errs, st.Wait(*e))
			st.Release(*e)
			*e = 0
		}
	}
	return errors.Join(errs...)
}
