package halide_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/callbacks"
)

// doneAfter is a context that is done from its (n+1)th Err on: a call
// checks at its start and again once its inputs are in place, so n = 1
// cancels it between the two, deterministically.
type doneAfter struct {
	n     atomic.Int32
	after int32
}

func (c *doneAfter) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *doneAfter) Done() <-chan struct{}       { return nil }
func (c *doneAfter) Value(any) any               { return nil }
func (c *doneAfter) Err() error {
	if c.n.Add(1) > c.after {
		return context.Canceled
	}
	return nil
}

// A canceled call queues nothing: the pipeline does not run, no output
// is written or marked, the call's temporaries are freed and nothing is
// copied home; it returns ErrCanceled wrapping context.Canceled, and the
// next call on the same values runs as usual.
func TestCallContextCanceled(t *testing.T) {
	const w, h, k = 37, 11, 9
	src := pattern(w, h)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(t *testing.T, p *halide.Pipeline, ctx context.Context) {
		out := make([]uint8, w*h)
		err := p.CallContext(ctx, halide.Options{}, array.FromSlice(src, w, h), uint8(k), array.FromSlice(out, w, h))
		if !errors.Is(err, context.Canceled) || !errors.Is(err, halide.ErrCanceled) {
			t.Fatalf("canceled call: %v; want ErrCanceled wrapping context.Canceled", err)
		}
		for i, v := range out {
			if v != 0 {
				t.Fatalf("canceled call wrote the output (element %d = %d)", i, v)
			}
		}
		if err := p.CallContext(context.Background(), halide.Options{}, array.FromSlice(src, w, h), uint8(k), array.FromSlice(out, w, h)); err != nil {
			t.Fatal(err)
		}
		checkImage(t, out, src, k)
	}
	t.Run("host/before", func(t *testing.T) { check(t, brighter.BrighterHostPipeline, canceled) })
	t.Run("host/inputs-ready", func(t *testing.T) { check(t, brighter.BrighterHostPipeline, &doneAfter{after: 1}) })
	t.Run("opencl/inputs-ready", func(t *testing.T) {
		dev := clDevice(t)
		before := dev.Stats()
		check(t, brighter.BrighterPipeline, &doneAfter{after: 1})
		// Host-only values: the canceled call uploaded the input to a
		// temporary and freed it; only the second call downloads.
		d := dev.Stats().Sub(before)
		if d.AllocsLive != before.AllocsLive || d.H2DCalls != 2 || d.D2HCalls != 1 {
			t.Errorf("stats: %v; want live allocations back to %d, two uploads, one download", d, before.AllocsLive)
		}
	})
	t.Run("opencl/before", func(t *testing.T) {
		dev := clDevice(t)
		before := dev.Stats()
		check(t, brighter.BrighterPipeline, canceled)
		if d := dev.Stats().Sub(before); d.H2DCalls != 1 || d.D2HCalls != 1 {
			t.Errorf("stats: %v; want the second call's upload and download only", d)
		}
	})
}

// Options.Callbacks takes the entry point that may call Go for one call:
// a Go extern stage runs without WithCallbacks, which a plain Call needs.
func TestOptionsCallbacks(t *testing.T) {
	p := callbacks.GostagePipeline
	halide.SetCallbacks(p, false)
	defer halide.SetCallbacks(p, true)
	var ran atomic.Int32
	halide.RegisterExtern("go_offset", func(*halide.ExternCall) error { ran.Add(1); return nil })
	in, out := array.New[int32](4, 4), array.New[int32](4, 4)
	defer in.Close()
	defer out.Close()
	if err := p.Call(in, int32(1), out); err == nil || ran.Load() != 0 {
		t.Fatalf("Call on the fast entry point: %v, extern ran %d times; want the WithCallbacks error", err, ran.Load())
	}
	if err := p.CallWith(halide.Options{Callbacks: true}, in, int32(1), out); err != nil || ran.Load() == 0 {
		t.Fatalf("CallWith(Options{Callbacks: true}): %v, extern ran %d times", err, ran.Load())
	}
	if p.Callbacks() {
		t.Error("Options.Callbacks changed the pipeline")
	}
}
