package stream

import (
	"fmt"
	"io"
	"time"

	"github.com/resident-go/resident/internal/plumb"
)

// Trace is the timeline of one Run (RunOptions.Trace), for finding where a
// chain's time goes: per band, when the host queued its work and when the
// device's three queues ran its parts. Device times need a device whose
// events carry its clock (device/cuda); elsewhere only host times are
// filled and Timed is false. Tracing records six more events a band, and
// one a step.
type Trace struct {
	Timed bool
	// Host is the Run's wall time; Bands[k].Queued are host times from
	// the Run's start.
	Host  time.Duration
	Bands []BandTrace
	// Steps names the chain's steps, whose ends each band records.
	Steps []string
}

// BandTrace is one band's times. Device spans are on the device's clock,
// from when its compute queue reached the Run's start, and run from the
// queue starting the part (its waits met) to the part's completion.
type BandTrace struct {
	Queued            Span // the host staging and queueing the band
	Up, Compute, Down Span
	// Steps[i] is when step i's work on the band completed (device).
	Steps []time.Duration
}

// Span is a stretch of time from a Run's start.
type Span struct{ Begin, End time.Duration }

// WriteTo writes t as a table in microseconds, one band a line, and the
// gaps that matter: each queue's idle time between its parts and the tail
// after the last upload.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	var n int64
	var err error
	p := func(format string, a ...any) {
		if err == nil {
			var m int
			m, err = fmt.Fprintf(w, format, a...)
			n += int64(m)
		}
	}
	p("# stream trace, µs from the Run's start (host clock for queued, device clock for the rest); host wall %.1f\n", us(t.Host))
	if !t.Timed {
		p("# band | queued by host (the device has no timed events)\n")
		for k, b := range t.Bands {
			p("%4d | %7.1f–%7.1f\n", k, us(b.Queued.Begin), us(b.Queued.End))
		}
		return n, err
	}
	p("# band | queued by host | upload | compute | download | each step\n")
	for k, b := range t.Bands {
		p("%4d | %7.1f–%7.1f | %7.1f–%7.1f | %7.1f–%7.1f | %7.1f–%7.1f |", k,
			us(b.Queued.Begin), us(b.Queued.End), us(b.Up.Begin), us(b.Up.End),
			us(b.Compute.Begin), us(b.Compute.End), us(b.Down.Begin), us(b.Down.End))
		prev := b.Compute.Begin
		for _, e := range b.Steps {
			p(" %.1f", us(e-prev))
			prev = e
		}
		p("\n")
	}
	if len(t.Bands) == 0 {
		return n, err
	}
	p("# compute per step, mean over bands (a step's time includes the queue waiting for the host to queue it):")
	for i, name := range t.Steps {
		var sum time.Duration
		for _, b := range t.Bands {
			prev := b.Compute.Begin
			if i > 0 {
				prev = b.Steps[i-1]
			}
			sum += b.Steps[i] - prev
		}
		p(" %s %.1f", name, us(sum)/float64(len(t.Bands)))
	}
	p("\n")
	var idle [3]time.Duration
	for k := 1; k < len(t.Bands); k++ {
		a, b := t.Bands[k-1], t.Bands[k]
		idle[0] += max(0, b.Up.Begin-a.Up.End)
		idle[1] += max(0, b.Compute.Begin-a.Compute.End)
		idle[2] += max(0, b.Down.Begin-a.Down.End)
	}
	last := t.Bands[len(t.Bands)-1]
	p("# idle between bands: upload %.1f, compute %.1f, download %.1f; first upload starts %.1f; after the last upload: compute %.1f, download %.1f\n",
		us(idle[0]), us(idle[1]), us(idle[2]), us(t.Bands[0].Up.Begin),
		us(last.Compute.End-last.Up.End), us(last.Down.End-last.Compute.End))
	return n, err
}

// tracer records one traced Run: stamps taken on the queues, turned into
// times once the Run drained.
type tracer struct {
	t     *Trace
	tm    plumb.Timer // nil: host times only
	st    plumb.Streams
	t0    time.Time
	zero  plumb.Event
	marks []mark
}

// mark is a stamp and the time it fills.
type mark struct {
	e  plumb.Event
	at *time.Duration
}

// newTracer starts tracing a Run of the steps in bands bands into t (nil:
// no tracing).
func newTracer(t *Trace, st plumb.Streams, steps []Step, bands int) (*tracer, error) {
	if t == nil {
		return nil, nil
	}
	*t = Trace{Bands: make([]BandTrace, bands)}
	for _, s := range steps {
		t.Steps = append(t.Steps, s.Name)
	}
	for k := range t.Bands {
		t.Bands[k].Steps = make([]time.Duration, len(steps))
	}
	tr := &tracer{t: t, st: st, t0: time.Now()}
	if tm, ok := st.(plumb.Timer); ok {
		z, err := tm.Stamp(plumb.Compute)
		if err != nil {
			return nil, err
		}
		tr.tm, tr.zero, t.Timed = tm, z, true
	}
	return tr, nil
}

// stamp fills *at with the device time at which q reaches this point.
func (tr *tracer) stamp(q plumb.Queue, at *time.Duration) error {
	if tr == nil || tr.tm == nil {
		return nil
	}
	e, err := tr.tm.Stamp(q)
	if err != nil {
		return err
	}
	tr.marks = append(tr.marks, mark{e, at})
	return nil
}

// step stamps the end of step i of band b on the compute queue.
func (tr *tracer) step(b *BandTrace, i int) error {
	if !tr.timed() {
		return nil // b may be noBand, which has no Steps
	}
	return tr.stamp(plumb.Compute, &b.Steps[i])
}

// now fills *at with the host time since the Run's start.
func (tr *tracer) now(at *time.Duration) {
	if tr != nil {
		*at = time.Since(tr.t0)
	}
}

// noBand stands for a band's times when not tracing: stamp and now
// never write it then.
var noBand BandTrace

// band is band k's times.
func (tr *tracer) band(k int) *BandTrace {
	if tr == nil {
		return &noBand
	}
	return &tr.t.Bands[k]
}

// timed reports whether stamps record device times.
func (tr *tracer) timed() bool { return tr != nil && tr.tm != nil }

// done turns the stamps into times once everything they mark completed
// (ok) and releases them; after a failed Run it only releases.
func (tr *tracer) done(ok bool) error {
	if tr == nil {
		return nil
	}
	tr.t.Host = time.Since(tr.t0)
	var err error
	for _, m := range tr.marks {
		if ok && err == nil {
			*m.at, err = tr.tm.Between(tr.zero, m.e)
		}
		tr.st.Release(m.e)
	}
	tr.st.Release(tr.zero)
	tr.marks = nil
	return err
}
