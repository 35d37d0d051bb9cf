package engine_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// Ops' results whose newest values are on the device are dropped, and a
// touch fills them. Drawn sequences over sixteen of them — device ops in
// place and into another, reads and writes through Data(), Zero, a new
// result zeroed (as gorgonia's solvers zero their caches), Memcpy, Host,
// collections — against a model: every read sees the newest values,
// every write lands on them.
func TestDroppedResults(t *testing.T) {
	forDevices(t, func(t *testing.T, e *engine.Engine, dev device.Device) {
		_, f0 := uffd.Fills()
		for seq := range 40 {
			dropSeq(t, e, dev, rand.New(rand.NewPCG(uint64(seq), 11)), seq)
		}
		if _, f1 := uffd.Fills(); uffd.Available() && f1 == f0 {
			t.Fatal("userfaultfd works here, but no read or write filled a dropped result")
		}
	})
}

func dropSeq(t *testing.T, e *engine.Engine, dev device.Device, rng *rand.Rand, seq int) {
	const k = 16
	ds := make([]*tensor.Dense, k)
	model := make([][]float32, k)
	for i := range ds {
		n := 1 + rng.IntN(64)
		back := make([]float32, n)
		for j := range back {
			back[j] = float32(rng.IntN(9))
		}
		model[i] = slices.Clone(back)
		src := tensor.New(tensor.WithBacking(back), tensor.WithShape(n))
		tensor.WithEngine(e)(src)
		r, err := e.AddScalar(src, float32(0), true) // an op's result
		if err != nil {
			t.Fatal(err)
		}
		ds[i] = r.(*tensor.Dense)
	}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("sequence %d after %v: %s", seq, log, fmt.Sprintf(format, args...))
	}
	for range 60 {
		i := rng.IntN(len(ds))
		d, m := ds[i], model[i]
		switch op := rng.IntN(10); op {
		case 9: // printed: a copy home leaves both copies current
			if got := fmt.Sprint(engine.Formatter(d)); strings.Contains(got, "%!") {
				fail("d%d prints %s", i, got)
			}
			log = append(log, fmt.Sprintf("print d%d", i))
		case 8: // a collection
			runtime.GC()
			log = append(log, "GC")
		case 6: // a new result, zeroed, as gorgonia's solvers make their caches
			r, err := e.AddScalar(d, float32(0), true)
			if err != nil {
				fail("AddScalar: %v", err)
			}
			c := r.(*tensor.Dense)
			c.Zero()
			ds = append(ds, c)
			model = append(model, make([]float32, len(m)))
			log = append(log, fmt.Sprintf("d%d=(d%d+0).Zero()", len(ds)-1, i))
		case 7: // Memcpy of another of the same length
			o := rng.IntN(len(ds))
			if len(model[o]) != len(m) {
				continue
			}
			if err := e.Memcpy(d, ds[o]); err != nil {
				fail("Memcpy: %v", err)
			}
			copy(m, model[o])
			log = append(log, fmt.Sprintf("d%d=copy(d%d)", i, o))
		case 0: // in place on the device
			v := float32(1 + rng.IntN(5))
			if _, err := e.AddScalar(d, v, true, tensor.UseUnsafe()); err != nil {
				fail("AddScalar: %v", err)
			}
			for j := range m {
				m[j] += v
			}
			log = append(log, fmt.Sprintf("d%d+=%v", i, v))
		case 1: // into another of the same length, or itself
			o := rng.IntN(len(ds))
			if len(model[o]) != len(m) {
				o = i
			}
			if _, err := e.Add(d, ds[o], tensor.WithReuse(d)); err != nil {
				fail("Add: %v", err)
			}
			for j := range m {
				m[j] += model[o][j]
			}
			log = append(log, fmt.Sprintf("d%d+=d%d", i, o))
		case 2: // read through Data: a fill is one D2H in the device's Stats
			j := rng.IntN(len(m))
			st := dev.Stats()
			_, f0 := uffd.Fills()
			if got := d.Data().([]float32)[j]; got != m[j] {
				fail("d%d.Data()[%d] reads %v, want %v", i, j, got, m[j])
			}
			_, f1 := uffd.Fills()
			if moved := dev.Stats().Sub(st); moved.D2HCalls != int64(f1-f0) || moved.H2DCalls != 0 {
				fail("d%d.Data()[%d]: %d fills, %d D2H and %d H2D in the device's Stats", i, j, f1-f0, moved.D2HCalls, moved.H2DCalls)
			}
			log = append(log, fmt.Sprintf("read d%d[%d]", i, j))
		case 3: // write through Data: device newer, dropped or not, or both current
			j, v := rng.IntN(len(m)), float32(rng.IntN(50))
			d.Data().([]float32)[j] = v
			m[j] = v
			log = append(log, fmt.Sprintf("d%d[%d]=%v", i, j, v))
		case 4:
			d.Zero()
			clear(m)
			log = append(log, fmt.Sprintf("zero d%d", i))
		case 5:
			if got := hostVals[float32](t, d); !slices.Equal(got, m) {
				fail("Host(d%d) = %v, want %v", i, got, m)
			}
			log = append(log, fmt.Sprintf("host d%d", i))
		}
	}
	for i, d := range ds {
		if got := hostVals[float32](t, d); !slices.Equal(got, model[i]) {
			fail("at the end, d%d = %v, want %v", i, got, model[i])
		}
	}
}

// TestWriteToCurrentSeen: a write through Data() to Go memory whose host
// and device copies are both current (a program's input, copied into the
// same backing each step) is seen at the next use, one upload; with no
// write, no upload.
func TestWriteToCurrentSeen(t *testing.T) {
	forDevices(t, func(t *testing.T, e *engine.Engine, dev device.Device) { writeToCurrent(t, e, dev) })
}

func writeToCurrent(t *testing.T, e *engine.Engine, dev device.Device) {
	a := tensor.New(tensor.WithBacking([]float32{1, 2, 3, 4}), tensor.WithShape(4))
	tensor.WithEngine(e)(a)
	b := tensor.New(tensor.WithBacking([]float32{0, 0, 0, 0}), tensor.WithShape(4))
	tensor.WithEngine(e)(b)
	add := func() (uploads int64) {
		before := dev.Stats()
		if _, err := e.Add(b, a, tensor.WithReuse(b)); err != nil {
			t.Fatal(err)
		}
		return dev.Stats().Sub(before).H2DCalls
	}
	add()
	if up := add(); up != 0 {
		t.Fatalf("no write: %d uploads", up)
	}
	a.Data().([]float32)[0] = 100
	if up := add(); up != 1 {
		t.Fatalf("a write to a: %d uploads, want 1", up)
	}
	if got := hostVals[float32](t, b); !slices.Equal(got, []float32{102, 6, 9, 12}) {
		t.Fatalf("b = %v, want [102 6 9 12]", got)
	}
}

// BenchmarkDroppedResult: an op whose new result stays on the device (its
// host copy dropped, where pages can be watched), then the same with one
// element of the result read through Data() (a fill from the device).
func BenchmarkDroppedResult(b *testing.B) {
	dev := sim.NewCompute("sim", 256<<20)
	e := engine.New(dev)
	defer e.Close()
	for _, n := range []int{1 << 10, 1 << 14, 1 << 18} {
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
		if _, err := e.AddScalar(d, float32(1), true, tensor.UseUnsafe()); err != nil {
			b.Fatal(err)
		}
		for _, read := range []bool{false, true} {
			b.Run(fmt.Sprintf("read=%v/%dKiB", read, n*4>>10), func(b *testing.B) {
				b.SetBytes(int64(n * 4))
				b.ReportAllocs()
				for b.Loop() {
					r, err := e.AddScalar(d, float32(1), true)
					if err != nil {
						b.Fatal(err)
					}
					if read {
						_ = r.(*tensor.Dense).Data().([]float32)[n/2]
					}
					rd := r.(*tensor.Dense)
					e.Free(rd, int64(rd.MemSize()))
				}
			})
		}
	}
}

// TestOwnStoresNoFault: the engine's own sentinel stores into a Dense
// whose pages it watched as a current copy (read by an op, then written
// in place) make no fault and read as no write: the next use takes
// nothing from the host.
func TestOwnStoresNoFault(t *testing.T) {
	forDevices(t, func(t *testing.T, e *engine.Engine, dev device.Device) { ownStores(t, e, dev) })
}

func ownStores(t *testing.T, e *engine.Engine, dev device.Device) {
	x := tensor.New(tensor.WithBacking(make([]float32, 1<<16)), tensor.WithShape(1<<16))
	tensor.WithEngine(e)(x)
	y := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1<<16), tensor.WithEngine(e))
	for range 3 {
		if _, err := e.Add(y, x, tensor.UseUnsafe()); err != nil { // x read: both copies current
			t.Fatal(err)
		}
		f0, _, _, _ := uffd.Counts()
		if _, err := e.AddScalar(x, float32(1), true, tensor.UseUnsafe()); err != nil { // x written on the device
			t.Fatal(err)
		}
		st := dev.Stats()
		if _, err := e.AddScalar(x, float32(1), true, tensor.UseUnsafe()); err != nil {
			t.Fatal(err)
		}
		if f1, _, _, _ := uffd.Counts(); f1 != f0 {
			t.Fatalf("the engine's own stores faulted %d times", f1-f0)
		}
		if up := dev.Stats().Sub(st).H2DCalls; up != 0 {
			t.Fatalf("%d uploads after the engine's own stores", up)
		}
	}
	if got := hostVals[float32](t, y)[5]; got != 0+2+4 {
		t.Fatalf("y[5] = %v, want 6", got)
	}
}
