package engine_test

import (
	"runtime"
	"testing"
	"weak"

	"gorgonia.org/tensor"
)

// Memory from Alloc lives until Free or Close, whichever Dense the engine
// saw over it is collected: tensor allocates it for a Dense the engine
// may never see, and a whole view (a lazy transpose) looks like it. A
// version that released the memory once the Denses it saw were gone freed
// a live Dense's memory under TestHostWritesModel (GOGC=5): the test's
// slot was first seen through its transpose.
func TestAllocMemoryLivesWhileReachable(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	settle := func() {
		for range 3 {
			runtime.GC()
		}
		collect(weak.Make(new(int)))
	}
	t.Run("seen only through its transpose", func(t *testing.T) {
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
		var w weak.Pointer[tensor.Dense]
		func() {
			v, err := d.Slice(nil, nil)
			must(t, err)
			vt := v.(*tensor.Dense)
			must(t, vt.T())
			w = weak.Make(vt)
			_, err = tensor.Add(vt, float32(7), tensor.UseUnsafe()) // seen whole, as a transpose
			must(t, err)
		}()
		if !collect(w) {
			t.Skip("the view was not collected")
		}
		settle()
		_, err := tensor.Add(d, float32(1), tensor.UseUnsafe())
		must(t, err)
		near(t, "owner", hostVals[float32](t, d), []float32{8, 8, 8, 8, 8, 8}, 0)
	})
	t.Run("a used view outlives its Dense", func(t *testing.T) {
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
		_, err := tensor.Add(a, a, tensor.WithReuse(d))
		must(t, err)
		v, err := d.Slice(tensor.S(1))
		must(t, err)
		v2 := v.(*tensor.Dense)
		w := weak.Make(d)
		d = nil
		if !collect(w) {
			t.Skip("not collected")
		}
		settle()
		_, err = tensor.Add(v2, float32(1), tensor.UseUnsafe())
		must(t, err)
		near(t, "view", hostVals[float32](t, v2), []float32{9, 11, 13}, 0)
	})
	t.Run("Free releases it", func(t *testing.T) {
		live := dev.Stats().AllocsLive
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
		_, err := tensor.Add(a, a, tensor.WithReuse(d))
		must(t, err)
		must(t, e.Free(d, int64(d.MemSize())))
		if got := dev.Stats().AllocsLive; got != live {
			t.Fatalf("%d allocations live after Free, want %d", got, live)
		}
	})
	runtime.KeepAlive(a)
}

// A Dense whose last use is an op's argument can be collected while the
// op still uses its memory (Go ends a value's life at its last use, not at
// the end of the call): the engine must not release that memory under the
// op — a result it made (released when collected) or Alloc's memory. Ops
// with a collector running throughout; a version that released collected
// Denses' memory at once failed with "array: used after Close".
func TestOperandCollectedInOp(t *testing.T) {
	e, _ := testEngine(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	y := onDevice(t, e, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for i := range 150 {
		a := onDevice(t, e, []float32{1, 1, 1, 1, 1, 1}, 2, 3)
		var err error
		switch i % 3 {
		case 0:
			_, err = tensor.FMA(a, float32(1), y) // a's last use
		case 1:
			_, err = tensor.Add(y, a, tensor.UseUnsafe())
		default:
			var s tensor.Tensor
			if s, err = tensor.Mul(a, float32(2)); err == nil {
				_, err = tensor.Add(y, s, tensor.UseUnsafe())
			}
		}
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	want := []float32{1, 2, 3, 4, 5, 6}
	for i := range want {
		want[i] += 50 + 50 + 2*50
	}
	near(t, "y", hostVals[float32](t, y), want, 0)
}
