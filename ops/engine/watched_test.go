package engine_test

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"weak"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// Alloc's memory is Go memory, and its device copy lives exactly as long
// as something reaches that memory: whichever Denses the engine saw over
// it are collected or recycled, a Dense it never saw keeps the device copy
// (with its newest values, nothing moving), and memory nothing reaches has
// its device copy freed with no Free. A version that released the memory
// once the Denses the engine saw were gone freed a live Dense's memory
// (TestHostWritesModel under GOGC=5: its slot was first seen through its
// transpose); these cases are that failure's shapes, on sim and PoCL.
func TestAllocMemoryLivesWhileReachable(t *testing.T) {
	forDevices(t, func(t *testing.T, e *engine.Engine, dev device.Device) {
		a := onDevice(t, e, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
		base := dev.Stats().AllocsLive
		// unseen uses d's memory through a Dense the engine never saw
		// (nothing may move: its newest values are on the device) and
		// checks them.
		unseen := func(t *testing.T, d *tensor.Dense, want []float32) {
			t.Helper()
			before := dev.Stats()
			was := guard.Set(resident()) // else parked host-current: uploaded
			_, err := tensor.Add(d, float32(1), tensor.UseUnsafe())
			guard.Set(was)
			must(t, err)
			if m := dev.Stats().Sub(before); resident() && (m.H2DCalls != 0 || m.D2HCalls != 0) {
				t.Fatalf("the op moved %v: the device copy was dropped", m)
			}
			for i := range want {
				want[i]++
			}
			near(t, "unseen Dense", hostVals[float32](t, d), want, 0)
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
			unseen(t, d, []float32{7, 7, 7, 7, 7, 7})
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
		t.Run("a ShallowClone the engine never saw", func(t *testing.T) {
			var s *tensor.Dense
			var w weak.Pointer[tensor.Dense]
			func() {
				d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
				_, err := tensor.Mul(a, a, tensor.WithReuse(d)) // newest on the device
				must(t, err)
				s, w = d.ShallowClone(), weak.Make(d)
			}()
			if !collect(w) {
				t.Skip("not collected")
			}
			settle()
			unseen(t, s, []float32{1, 4, 9, 16, 25, 36})
		})
		t.Run("read by code the engine never sees, parked", func(t *testing.T) {
			// The host copy of the parked memory stays dropped: the read
			// fills it from the parked device copy, once.
			var s *tensor.Dense
			var w weak.Pointer[tensor.Dense]
			func() {
				d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
				_, err := tensor.Mul(a, float32(3), tensor.WithReuse(d))
				must(t, err)
				s, w = d.ShallowClone(), weak.Make(d)
			}()
			if !collect(w) {
				t.Skip("not collected")
			}
			settle()
			_, err := tensor.Add(a, float32(0)) // an engine call: the sweep parks d's memory
			must(t, err)
			before := dev.Stats()
			got := slices.Clone(s.Data().([]float32))
			moved := dev.Stats().Sub(before)
			near(t, "parked memory read through Data", got, []float32{3, 6, 9, 12, 15, 18}, 0)
			if uffd.Available() && (moved.D2HCalls != 1 || moved.D2HBytes != 24) {
				t.Fatalf("the read moved %+v, want one fill of 24 bytes", moved)
			}
		})
		t.Run("recycled by tensor's pool", func(t *testing.T) {
			d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
			_, err := tensor.Add(a, a, tensor.WithReuse(d))
			must(t, err)
			s := d.ShallowClone()
			tensor.ReturnTensor(d) // what gorgonia's solvers do with their clones
			// Allocations sweep the blocks whose seen Denses were recycled;
			// tensor's pool hands d out again over new memory.
			var keep []*tensor.Dense
			for i := range 40 {
				k := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
				_, err := tensor.Add(a, float32(i), tensor.WithReuse(k))
				must(t, err)
				keep = append(keep, k)
			}
			settle()
			unseen(t, s, []float32{2, 4, 6, 8, 10, 12})
			for i, k := range keep {
				near(t, "a Dense of the pool", hostVals[float32](t, k), []float32{1 + float32(i), 2 + float32(i), 3 + float32(i), 4 + float32(i), 5 + float32(i), 6 + float32(i)}, 0)
			}
		})
		t.Run("freed once unreachable", func(t *testing.T) {
			settle()
			start := dev.Stats().AllocsLive
			down := dev.Stats().D2HCalls
			for i := range 200 {
				c := a.Clone().(*tensor.Dense) // Alloc, device copy, never Free'd
				_, err := tensor.Add(c, float32(i), tensor.UseUnsafe())
				must(t, err)
				if i%2 == 0 {
					tensor.ReturnTensor(c)
				}
			}
			var got int64
			for range 50 {
				settle()
				// The engine sweeps for recycled Denses when a call ends
				// after a collection (never in the collector's cleanup,
				// which would race with their goroutine).
				_, err := tensor.Add(a, float32(0))
				must(t, err)
				settle()
				if got = dev.Stats().AllocsLive; got <= start {
					break
				}
			}
			if got > start {
				t.Fatalf("%d device allocations live after 200 dropped clones, %d before", got, start)
			}
			// Their host copies, let go while the device held the newest
			// values, were never filled: no one read them.
			if n := dev.Stats().D2HCalls - down; resident() && n != 0 {
				t.Fatalf("%d copies home of 200 clones dropped unread, want 0", n)
			}
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
		_ = base
	})
}

// settle runs the collector until the cleanups of what it took have run.
func settle() {
	for range 3 {
		runtime.GC()
	}
	collect(weak.Make(new(int)))
}

// forDevices runs f on device/sim's computing device and on OpenCL (PoCL
// here), when present.
func forDevices(t *testing.T, f func(t *testing.T, e *engine.Engine, dev device.Device)) {
	t.Run("sim", func(t *testing.T) {
		dev := sim.NewCompute("sim", 1<<30)
		e := engine.New(dev)
		defer e.Close()
		f(t, e, dev)
	})
	t.Run("opencl", func(t *testing.T) {
		e, dev := testEngine(t)
		f(t, e, dev)
	})
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

// An Adam-like loop over Alloc's memory, as gorgonia's solvers run it:
// each step Clones the weights and the gradient, updates the clones in
// place, reads one through a lazy transpose and one through a ShallowClone
// the engine never sees, adds into the weights and hands the clones to
// tensor.ReturnTensor. With the collector's target at 1% and a collection
// between steps the weights are those of a run without, bit for bit, and
// device memory stays flat. 200 steps (60 with -short or -race).
func TestAllocMemoryUnderCollector(t *testing.T) {
	steps := 200
	if testing.Short() || raceEnabled {
		steps = 60
	}
	forDevices(t, func(t *testing.T, e *engine.Engine, dev device.Device) {
		run := func(gc bool) ([]float32, []int64) {
			if gc {
				defer debug.SetGCPercent(debug.SetGCPercent(1))
			}
			w := onDevice(t, e, seqf(12, func(i int) float32 { return float32(i) / 8 }), 3, 4)
			g := onDevice(t, e, seqf(12, func(i int) float32 { return float32(i%5) - 2 }), 3, 4)
			m := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(3, 4), tensor.WithEngine(e))
			var live []int64
			for s := range steps {
				gc1 := g.Clone().(*tensor.Dense)
				_, err := tensor.Mul(gc1, float32(0.1), tensor.UseUnsafe())
				must(t, err)
				_, err = tensor.Mul(m, float32(0.9), tensor.UseUnsafe())
				must(t, err)
				_, err = tensor.Add(m, gc1, tensor.UseUnsafe()) // m = 0.9m + 0.1g
				must(t, err)
				wc := w.Clone().(*tensor.Dense)
				must(t, wc.T()) // seen only as a transpose
				_, err = tensor.Mul(wc, float32(1e-3), tensor.UseUnsafe())
				must(t, err)
				must(t, wc.T())
				sc := gc1.ShallowClone() // never seen by the engine
				tensor.ReturnTensor(gc1)
				_, err = tensor.Sub(w, m, tensor.UseUnsafe())
				must(t, err)
				_, err = tensor.Sub(w, wc, tensor.UseUnsafe()) // weight decay
				must(t, err)
				_, err = tensor.Add(w, sc, tensor.UseUnsafe()) // through the unseen Dense
				must(t, err)
				tensor.ReturnTensor(wc)
				if gc {
					runtime.GC()
				}
				if s%20 == 19 {
					settle()
					live = append(live, dev.Stats().AllocsLive)
				}
			}
			return hostVals[float32](t, w), live
		}
		want, _ := run(false)
		got, live := run(true)
		near(t, "weights under the collector", got, want, 0)
		if last := live[len(live)-1]; last > live[0]+4 {
			t.Fatalf("device allocations live every 20 steps: %v: they grow", live)
		}
	})
}

// TestParkedNextUse: blocks whose only users were row views are parked
// when the views are collected, and the park moves nothing; the next op
// over new views of them gives the standard engine's values and uploads
// at most the boxes it reads (a parked block keeps no watch of its host
// copy, so that use cannot rule out host writes: TestHostWritesModel
// keeps its views reachable for this). Drawn: values and how many ops
// run before the collection.
func TestParkedNextUse(t *testing.T) {
	e, dev := testEngine(t)
	r := rand.New(rand.NewPCG(draw.Seed(t), 31))
	for c := range 20 {
		mk := func() (*tensor.Dense, *tensor.Dense) {
			vals := make([]float32, 9)
			for i := range vals {
				vals[i] = float32(r.IntN(9) - 4)
			}
			return tensor.New(tensor.WithShape(3, 3), tensor.WithBacking(slices.Clone(vals)), tensor.WithEngine(e)),
				tensor.New(tensor.WithShape(3, 3), tensor.WithBacking(vals))
		}
		a, am := mk()
		b, bm := mk()
		rows := func(d *tensor.Dense) *tensor.Dense {
			v, err := d.Slice(tensor.S(0, 2))
			must(t, err)
			return v.(*tensor.Dense)
		}
		sub := func(x, y *tensor.Dense, std bool) {
			var err error
			if std {
				_, err = tensor.Sub(rows(x), rows(y), tensor.UseUnsafe())
			} else {
				_, err = e.Sub(rows(x), rows(y), tensor.UseUnsafe())
			}
			must(t, err)
		}
		for range 1 + r.IntN(3) {
			sub(a, b, false)
			sub(am, bm, true)
		}
		st := dev.Stats()
		runtime.GC()
		runtime.GC()
		if m := dev.Stats().Sub(st); m.H2DCalls != 0 || m.D2HCalls != 0 {
			t.Fatalf("case %d: parking moved %v", c, m)
		}
		st = dev.Stats()
		sub(a, b, false)
		sub(am, bm, true)
		if m := dev.Stats().Sub(st); m.H2DBytes > 2*24 {
			t.Fatalf("case %d: the next use uploaded %d B, more than the two 24-byte boxes it reads", c, m.H2DBytes)
		}
		h, err := engine.Host(a)
		must(t, err)
		if !slices.Equal(h.Data().([]float32), am.Data().([]float32)) {
			t.Fatalf("case %d: %v, standard engine %v", c, h.Data(), am.Data())
		}
		runtime.KeepAlive(b)
	}
}
