package engine_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

// Random sequences of operations, Memset, Memcpy, host writes, Free and
// Close across two engines, checked after every step against a plain-Go
// model of the latest values: errors exactly where the model says the
// operation is invalid (ErrFreed, device.ErrClosed), nothing crashes, and
// the device counters say where each operation ran.
func TestModel(t *testing.T) {
	t.Run("same device", func(t *testing.T) {
		dev, err := opencl.Default()
		if err != nil {
			t.Skip(err)
		}
		for seed := range uint64(6) {
			runModel(t, seed, [2]*opencl.Device{dev, dev})
		}
	})
	t.Run("two devices", func(t *testing.T) {
		d1, d2 := opencltest.Halves(t)
		for seed := range uint64(6) {
			runModel(t, seed, [2]*opencl.Device{d1, d2})
		}
	})
}

type modelSlot struct {
	d     *tensor.Dense
	eng   int
	vals  []float32
	freed bool
}

func runModel(t *testing.T, seed uint64, devs [2]*opencl.Device) {
	rng := rand.New(rand.NewPCG(seed, 42))
	live := [2]device.Stats{devs[0].Stats(), devs[1].Stats()}
	var engs [2]*engine.Engine
	var closed [2]bool
	for k := range engs {
		engs[k] = engine.New(devs[k])
	}
	defer func() {
		for _, e := range engs {
			e.Close()
		}
		for k, d := range devs {
			if s := d.Stats(); s.AllocsLive != live[k].AllocsLive || s.BytesLive != live[k].BytesLive {
				t.Errorf("seed %d: device %d has %d allocations live after both Closes, want %d", seed, k, s.AllocsLive, live[k].AllocsLive)
			}
		}
	}()
	var slots []*modelSlot
	// invalid is the sentinel an operation on s must wrap, nil if valid.
	invalid := func(s *modelSlot) error {
		switch {
		case closed[s.eng]:
			return device.ErrClosed
		case s.freed:
			return engine.ErrFreed
		}
		return nil
	}
	want := func(errs ...error) []error {
		var w []error
		for _, e := range errs {
			if e != nil {
				w = append(w, e)
			}
		}
		return w
	}
	closedErr := func(k int) error {
		if closed[k] {
			return device.ErrClosed
		}
		return nil
	}
	pick := func() *modelSlot { return slots[rng.IntN(len(slots))] }
	newDense := func(k int) (d *tensor.Dense, err error) {
		defer func() {
			if r := recover(); r != nil {
				err, _ = r.(error)
				if err == nil {
					err = fmt.Errorf("%v", r)
				}
			}
		}()
		return tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(engs[k])), nil
	}
	small := func() float32 { return float32(rng.IntN(9) - 4) }

	for step := range 150 {
		var (
			what     string
			err      error
			expect   []error
			result   *modelSlot // the slot written, for the where check
			onDevice bool       // where the model says the write ran
			moved    device.Stats
		)
		k := rng.IntN(2)
		before := devs[k].Stats()
		kind := rng.IntN(100)
		if len(slots) < 2 {
			kind = 0
		}
		switch {
		case kind < 12: // a new Dense, set with Memset
			what = fmt.Sprintf("new Dense of engine %d", k)
			expect = want(closedErr(k))
			var d *tensor.Dense
			if d, err = newDense(k); err == nil {
				v := small()
				if err = engs[k].Memset(d, int64(v)); err == nil {
					slots = append(slots, &modelSlot{d: d, eng: k, vals: []float32{v, v, v, v, v, v}})
				}
			}
		case kind < 24: // a host write through Host
			s := pick()
			what = fmt.Sprintf("host write of a Dense of engine %d", s.eng)
			expect = want(invalid(s))
			var h *tensor.Dense
			if h, err = engine.Host(s.d); err == nil {
				data := h.Data().([]float32)
				i, v := rng.IntN(6), small()
				data[i], s.vals[i] = v, v
			}
		case kind < 36: // Memset by either engine
			s := pick()
			v := small()
			what = fmt.Sprintf("engine %d Memset(%v) of a Dense of engine %d", k, v, s.eng)
			expect = want(closedErr(k), invalid(s))
			if err = engs[k].Memset(s.d, v); err == nil {
				for i := range s.vals {
					s.vals[i] = v
				}
				result, onDevice = s, devs[s.eng] == devs[k]
			}
		case kind < 48: // Memcpy by either engine
			dst, src := pick(), pick()
			what = fmt.Sprintf("engine %d Memcpy into a Dense of engine %d from one of engine %d", k, dst.eng, src.eng)
			expect = want(closedErr(k), invalid(dst), invalid(src))
			if err = engs[k].Memcpy(dst.d, src.d); err == nil {
				copy(dst.vals, src.vals)
			}
		case kind < 72: // a binary op: a new Dense of engine k
			a, b := pick(), pick()
			op := rng.IntN(4)
			what = fmt.Sprintf("engine %d op %d of Denses of engines %d and %d", k, op, a.eng, b.eng)
			expect = want(closedErr(k), invalid(a), invalid(b))
			f := []func(x, y tensor.Tensor, o ...tensor.FuncOpt) (tensor.Tensor, error){engs[k].Add, engs[k].Sub, engs[k].Mul, engs[k].MaxBetween}[op]
			var c tensor.Tensor
			if c, err = f(a.d, b.d); err == nil {
				vals := make([]float32, 6)
				for i := range vals {
					x, y := a.vals[i], b.vals[i]
					vals[i] = []float32{x + y, x - y, x * y, max(x, y)}[op]
				}
				result = &modelSlot{d: c.(*tensor.Dense), eng: k, vals: vals}
				slots = append(slots, result)
				onDevice = devs[a.eng] == devs[k] && devs[b.eng] == devs[k]
			}
		case kind < 84: // a scalar op in place (UseUnsafe)
			s := pick()
			what = fmt.Sprintf("engine %d unsafe MulScalar of a Dense of engine %d", k, s.eng)
			expect = want(closedErr(k), invalid(s))
			if _, err = engs[k].MulScalar(s.d, float32(-0.5), true, tensor.UseUnsafe()); err == nil {
				for i := range s.vals {
					s.vals[i] *= -0.5
				}
				result, onDevice = s, devs[s.eng] == devs[k]
			}
		case kind < 99: // Free
			s := pick()
			what = fmt.Sprintf("Free of a Dense of engine %d", s.eng)
			expect = want(closedErr(s.eng))
			if expect == nil && s.freed {
				expect = want(engine.ErrFreed)
			}
			err = engs[s.eng].Free(s.d, int64(s.d.MemSize()))
			s.freed = true
		default: // Close
			what = fmt.Sprintf("Close of engine %d", k)
			err = engs[k].Close()
			closed[k] = true
		}
		moved = devs[k].Stats().Sub(before)
		where := fmt.Sprintf("seed %d step %d (%s)", seed, step, what)
		if len(expect) == 0 {
			if err != nil {
				t.Fatalf("%s: %v, want success", where, err)
			}
		} else if err == nil || !isAny(err, expect) {
			t.Fatalf("%s: %v, want an error wrapping one of %v", where, err, expect)
		}
		if result != nil && onDevice && (moved.H2DCalls != 0 || resident() && moved.D2HCalls != 0) {
			t.Fatalf("%s: the device op moved data: %v", where, moved)
		}
		// Check every valid Dense against the model, reading without
		// changing residency rules (both sides current afterwards).
		for _, s := range slots {
			if invalid(s) != nil {
				continue
			}
			a, err := engine.Array[float32](engs[s.eng], s.d)
			if err != nil {
				t.Fatalf("%s: Array: %v", where, err)
			}
			st := devs[s.eng].Stats()
			h, err := a.HostReadOnly()
			if err != nil {
				t.Fatalf("%s: read: %v", where, err)
			}
			if got := h.Data(); !sameFloats(got, s.vals) {
				t.Fatalf("%s: a Dense of engine %d holds %v, model %v", where, s.eng, got, s.vals)
			}
			if s == result {
				ranThere := devs[s.eng].Stats().Sub(st).D2HCalls > 0
				if !resident() { // it came home when the op ended
					ranThere = moved.Launches > 0
				}
				if ranThere != onDevice {
					t.Fatalf("%s: ran on the device: %v, the model says %v", where, ranThere, onDevice)
				}
			}
			must(t, ops.On(devs[s.eng], a)) // uploads a host write: every operand current on its device
		}
	}
}

func isAny(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

func sameFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(float64(a[i])) && math.IsNaN(float64(b[i]))) {
			return false
		}
	}
	return true
}
