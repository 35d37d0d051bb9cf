package engine_test

import (
	"runtime"
	"testing"
	"weak"

	"gorgonia.org/tensor"
)

// Memory from Alloc (tensor.New WithEngine, Dense.Clone) lives while a
// Dense the engine saw over all of it is alive and over it, or a view of
// it the engine saw: gorgonia's solvers Clone every step and hand the
// clones to tensor.ReturnTensor, which pools the Dense and drops the
// memory without Free. Before, each such clone kept its device allocation
// until Close (Adam: 8 a step).
func TestAllocMemoryLivesWhileReachable(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	used := func() *tensor.Dense { // a Dense of e the engine saw whole
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
		_, err := tensor.Add(a, a, tensor.WithReuse(d))
		must(t, err)
		return d
	}
	settle := func() {
		for range 3 {
			runtime.GC()
		}
		collect(weak.Make(new(int)))
	}

	t.Run("collected", func(t *testing.T) {
		settle()
		live := dev.Stats().AllocsLive
		w := weak.Make(used())
		if !collect(w) {
			t.Skip("not collected")
		}
		settle()
		if got := dev.Stats().AllocsLive; got != live {
			t.Fatalf("%d allocations live after the Dense was collected, want %d", got, live)
		}
	})
	t.Run("recycled", func(t *testing.T) {
		settle()
		live := dev.Stats().AllocsLive
		tensor.ReturnTensor(used()) // pooled: addresses nothing, never collected
		var keep []*tensor.Dense
		for range 40 { // allocations that sweep
			keep = append(keep, used())
		}
		settle()
		if got := dev.Stats().AllocsLive; got != live+int64(len(keep)) {
			t.Fatalf("%d allocations live, want %d (the kept Denses')", got, live+int64(len(keep)))
		}
		for _, d := range keep {
			near(t, "kept", hostVals[float32](t, d), []float32{2, 4, 6, 8, 10, 12}, 0)
		}
	})
	t.Run("a used view outlives its Dense", func(t *testing.T) {
		d := used()
		v, err := d.Slice(tensor.S(1))
		must(t, err)
		v2 := v.(*tensor.Dense)
		_, err = tensor.Mul(v2, float32(1), tensor.UseUnsafe()) // seen
		must(t, err)
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
	t.Run("a Dense seen only through a view stays", func(t *testing.T) {
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
		func() {
			v, err := d.Slice(tensor.S(0))
			must(t, err)
			_, err = tensor.Add(v.(*tensor.Dense), float32(7), tensor.UseUnsafe())
			must(t, err)
		}()
		settle()
		_, err := tensor.Add(d, float32(1), tensor.UseUnsafe())
		must(t, err)
		near(t, "owner", hostVals[float32](t, d), []float32{8, 8, 8, 1, 1, 1}, 0)
	})
	runtime.KeepAlive(a)
}
