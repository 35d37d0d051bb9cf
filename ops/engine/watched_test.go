package engine_test

import (
	"runtime"
	"testing"
	"weak"

	"gorgonia.org/tensor"
)

// Memory from Alloc (tensor.New WithEngine, Dense.Clone) whose Denses
// tensor's pool recycled is released: gorgonia's solvers Clone every step
// and hand the clones to tensor.ReturnTensor, which pools the Dense and
// drops the memory without Free. Before, each such clone kept its device
// allocation until Close (Adam: 8 a step). Memory a collected Dense
// reached is kept until Free or Close, and a view the engine saw keeps
// its memory.
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

	t.Run("collected: kept until Close", func(t *testing.T) {
		settle()
		live := dev.Stats().AllocsLive
		w := weak.Make(used())
		if !collect(w) {
			t.Skip("not collected")
		}
		settle()
		if got := dev.Stats().AllocsLive; got != live+1 {
			t.Fatalf("%d allocations live after the Dense was collected, want %d: a collected Dense may have died inside an op still using its memory (TestOperandCollectedInOp)", got, live+1)
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

// A Dense whose last use is an op's argument can be collected while the
// op still uses its memory (Go ends a value's life at its last use, not at
// the end of the call): the engine must not release that memory under the
// op. Drawn ops with a collector running throughout; before, with
// collected Denses' memory released, calls failed with "array: used after
// Close".
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
