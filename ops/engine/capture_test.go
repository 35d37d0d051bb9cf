package engine_test

import (
	"errors"
	"runtime"
	"testing"
	"weak"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device/capture"
)

// A Step replays the engine's work on its Denses (a += b; a += 0.5·b):
// each replay is one more run of it, its scalar results are refreshed,
// and Close lets the engine reclaim what the Step kept. Misuse is an
// error: a nested Capture, an input that is not the engine's memory, a
// Replay after Close.
func TestCapture(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3}, 3)
	b := onDevice(t, e, []float32{10, 20, 30}, 3)
	live := dev.Stats().AllocsLive
	st, err := e.Capture(func() error {
		if _, err := tensor.Add(a, b, tensor.UseUnsafe()); err != nil {
			return err
		}
		if _, err := tensor.FMA(b, float32(0.5), a); err != nil {
			return err
		}
		_, err := tensor.Sum(a) // a scalar, read home
		return err
	})
	must(t, err)
	if v := st.Scalars(); len(v) != 1 || v[0] != 96 {
		t.Fatalf("after Capture: Scalars %v, want [96] (16+32+48)", v)
	}
	for i := range 3 {
		must(t, st.Replay())
		want := 96 + float64(i+1)*90 // each run adds 1.5·b
		if v := st.Scalars(); len(v) != 1 || v[0] != want {
			t.Fatalf("replay %d: Scalars %v, want [%v]", i, v, want)
		}
	}
	near(t, "a after 3 replays", hostVals[float32](t, a), []float32{61, 122, 183}, 0)

	if _, err := e.Capture(func() error {
		_, err := e.Capture(func() error { return nil })
		return err
	}); err == nil {
		t.Fatal("a Capture inside a Capture: no error")
	}
	goMem := tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3}))
	if _, err := e.Capture(func() error { return nil }, goMem); err == nil {
		t.Fatal("an input of tensor's standard engine: no error")
	}
	must(t, st.Close())
	must(t, st.Close()) // idempotent
	if err := st.Replay(); !errors.Is(err, capture.ErrCapture) {
		t.Fatalf("Replay after Close: %v, want an error wrapping capture.ErrCapture", err)
	}
	// The temporaries and results the Step kept go with it.
	for range 5 {
		runtime.GC()
	}
	collect(weakOf(new(int)))
	if got := dev.Stats().AllocsLive; got > live+1 {
		t.Fatalf("%d allocations live after Close, want at most %d (the Sum's result until collected)", got, live+1)
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

func weakOf[T any](p *T) weak.Pointer[T] { return weak.Make(p) }
