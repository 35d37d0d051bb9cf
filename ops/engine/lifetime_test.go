package engine_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/ops/engine"
)

// staleOnDevice is a Dense of e whose newest values, want, are on the
// device while its host memory still holds vals.
func staleOnDevice(t *testing.T, e *engine.Engine, vals []float32, k float32) *tensor.Dense {
	t.Helper()
	d := onDevice(t, e, vals, len(vals))
	if _, err := e.MulScalar(d, k, true, tensor.UseUnsafe()); err != nil {
		t.Fatal(err)
	}
	// The device holds the newest values; the host's pages were let go,
	// and a read fills them from the device (hostwrites.go). Without
	// userfaultfd they came home when the op ended.
	a, err := engine.Array[float32](e, d)
	must(t, err)
	if a.DeviceDirty() != resident() {
		t.Fatalf("the device copy is the newer one: %v, want %v", a.DeviceDirty(), resident())
	}
	for i, x := range d.Data().([]float32) {
		if x != vals[i]*k {
			t.Fatalf("host memory %v, want the newest values", d.Data())
		}
	}
	return d
}

// Issue 19.1: an operand of another engine whose newest data is on its
// device is read there (same device: the op runs on the device, nothing
// moves) or synced home with a counted copy (another device), never read
// stale from host memory.
func TestForeignEngine(t *testing.T) {
	check := func(t *testing.T, e1, e2 *engine.Engine, sameDev bool) {
		want := "[11 22 33 44]"
		for _, tc := range []struct {
			name string
			f    func(z, b *tensor.Dense) (tensor.Tensor, error)
		}{
			{"own first", func(z, b *tensor.Dense) (tensor.Tensor, error) { return z.Add(b) }},
			{"foreign first", func(z, b *tensor.Dense) (tensor.Tensor, error) { return e1.Add(b, z) }},
			{"unary", func(z, b *tensor.Dense) (tensor.Tensor, error) { return e1.Abs(b) }},
			{"scalar", func(z, b *tensor.Dense) (tensor.Tensor, error) { return e1.AddScalar(b, float32(0), true) }},
			{"Memcpy", func(z, b *tensor.Dense) (tensor.Tensor, error) { return z, e1.Memcpy(z, b) }},
			{"tensor.Copy", func(z, b *tensor.Dense) (tensor.Tensor, error) { return z, tensor.Copy(z, b) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				z := onDevice(t, e1, []float32{0, 0, 0, 0}, 4)
				b := staleOnDevice(t, e2, []float32{1, 2, 3, 4}, 11)
				d1, d2 := e1.Device().Stats(), e2.Device().Stats()
				was := guard.Set(sameDev) // on one device nothing may move
				c, err := tc.f(z, b)
				guard.Set(was)
				must(t, err)
				m1, m2 := e1.Device().Stats().Sub(d1), e2.Device().Stats().Sub(d2)
				if sameDev && (m1.H2DCalls != 0 || resident() && m1.D2HCalls != 0) {
					t.Fatalf("on one device the op moved data: %v", m1)
				}
				if !sameDev && resident() && m2.D2HCalls == 0 && tc.name != "Memcpy" && tc.name != "tensor.Copy" {
					t.Fatalf("the other device's newer data came home uncounted: %v", m2)
				}
				if got := fmt.Sprint(hostVals[float32](t, c.(*tensor.Dense))); got != want {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
		t.Run("sum", func(t *testing.T) {
			b := staleOnDevice(t, e2, []float32{1, 2, 3, 4}, 11)
			was := guard.Set(sameDev)
			s, err := e1.Sum(b)
			guard.Set(was)
			must(t, err)
			if got := fmt.Sprint(hostVals[float32](t, s.(*tensor.Dense))); got != "[110]" {
				t.Fatalf("sum %v, want [110]", got)
			}
		})
	}
	t.Run("same device", func(t *testing.T) {
		e1, dev := testEngine(t)
		e2 := engine.New(dev)
		defer e2.Close()
		check(t, e1, e2, true)
	})
	t.Run("two devices", func(t *testing.T) {
		d1, d2 := opencltest.Halves(t)
		e1, e2 := engine.New(d1), engine.New(d2)
		defer e1.Close()
		defer e2.Close()
		check(t, e1, e2, false)
	})
}

// TestForeignWritesReadRight: ops of one engine write a Dense of another
// engine on the same device (drawn kinds and sizes; drawn ops of either
// engine, and writes through Data() between them). After each op the
// Dense's Data() holds the model's values with no engine call, and each
// write reaches the next op, whichever engine runs it: the caller's
// engine settles the blocks of others its call used, as their own calls
// would (without userfaultfd, a copy home each, counted by the owner).
// Each op ran where the data lives (placement): the other engine's on the
// host while adopted Go memory has no device copy (until its own engine
// first used it), every op on the device from then on (a launch each).
func TestForeignWritesReadRight(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 47))
	own, dev := simEngine(t)
	other := engine.New(dev)
	defer other.Close()
	for c := range 30 {
		d, model, what := drawDense(r, own)
		st, w0 := dev.Stats(), own.HostWork()
		// Alloc's memory has a device copy from the start; adopted Go
		// memory from its own engine's first use.
		steps, onDevice, typed := 1+r.IntN(6), int64(0), strings.HasPrefix(what, "Alloc")
		for step := range steps {
			e, by := other, "the other engine"
			if r.IntN(3) == 0 {
				e, by = own, "its own engine"
				typed = true
			}
			if typed {
				onDevice++
			}
			k := float32(1 + r.IntN(4))
			if _, err := e.AddScalar(d, k, true, tensor.UseUnsafe()); err != nil {
				t.Fatalf("case %d, %s, step %d by %s: %v", c, what, step, by, err)
			}
			for j := range model {
				model[j] += k
			}
			if got := d.Data().([]float32); !slices.Equal(got, model) { // no engine call
				t.Fatalf("case %d, %s, step %d: after an op of %s, Data() reads stale values", c, what, step, by)
			}
			if r.IntN(2) == 0 {
				j := r.IntN(len(model))
				d.Data().([]float32)[j] = -0.5
				model[j] = -0.5
			}
		}
		if got := hostVals[float32](t, d); !slices.Equal(got, model) {
			t.Fatalf("case %d, %s: a write through Data() was lost", c, what)
		}
		m, homed := dev.Stats().Sub(st), own.HostWork().Sub(w0).Homed
		if m.Launches != onDevice || !resident() && homed != onDevice {
			t.Fatalf("case %d, %s: %d ops moved %v, %d homed by its engine; want %d on the device (a launch each), and without userfaultfd a copy home each", c, what, steps, m, homed, onDevice)
		}
	}
}

// entryPoints calls every entry point of e on d (of e, or of another
// engine), each returning its error.
func entryPoints(e *engine.Engine, d, other *tensor.Dense) map[string]error {
	errs := map[string]error{}
	call := func(name string, f func() error) {
		defer func() {
			if r := recover(); r != nil {
				err, _ := r.(error)
				errs[name] = fmt.Errorf("panic: %w", err)
			}
		}()
		errs[name] = f()
	}
	tt := func(f func() (tensor.Tensor, error)) func() error {
		return func() error { _, err := f(); return err }
	}
	call("Host", func() error { _, err := engine.Host(d); return err })
	call("Accessible", func() error { _, err := e.Accessible(d); return err })
	call("Array", func() error { _, err := engine.Array[float32](e, d); return err })
	call("Add", tt(func() (tensor.Tensor, error) { return e.Add(d, other) }))
	call("Add other first", tt(func() (tensor.Tensor, error) { return e.Add(other, d) }))
	call("Mul reuse", tt(func() (tensor.Tensor, error) { return e.Mul(other, other, tensor.WithReuse(d)) }))
	call("AddScalar", tt(func() (tensor.Tensor, error) { return e.AddScalar(d, float32(1), true) }))
	call("Neg", tt(func() (tensor.Tensor, error) { return e.Neg(d) }))
	call("Sum", tt(func() (tensor.Tensor, error) { return e.Sum(d) }))
	call("Max 0", tt(func() (tensor.Tensor, error) { return e.Max(d, 0) }))
	call("MatMul", func() error { return e.MatMul(d, d, other) })
	call("Memset", func() error { return e.Memset(d, float32(1)) })
	call("Memcpy into", func() error { return e.Memcpy(d, other) })
	call("Memcpy from", func() error { return e.Memcpy(other, d) })
	call("Memclr", func() error { e.Memclr(d); return nil })
	return errs
}

// Issue 19.2: a Dense used after Free is an error wrapping ErrFreed at
// every entry point, and nothing leaks.
func TestUseAfterFree(t *testing.T) {
	e, dev := testEngine(t)
	live := dev.Stats()
	a := onDevice(t, e, []float32{1, 2, 3, 4}, 2, 2)
	other := onDevice(t, e, []float32{5, 6, 7, 8}, 2, 2)
	must(t, e.Free(a, int64(a.MemSize())))
	fresh := onDevice(t, e, []float32{9, 9, 9, 9}, 2, 2) // may get a's address
	for name, err := range entryPoints(e, a, other) {
		if !errors.Is(err, engine.ErrFreed) {
			t.Errorf("%s after Free: %v, want an error wrapping ErrFreed", name, err)
		}
	}
	if err := e.Free(a, int64(a.MemSize())); !errors.Is(err, engine.ErrFreed) {
		t.Fatalf("double Free: %v", err)
	}
	if got := fmt.Sprint(hostVals[float32](t, fresh)); got != "[9 9 9 9]" {
		t.Fatalf("a later allocation changed: %v", got)
	}
	// Another engine sees the freed Dense as freed too.
	e2 := engine.New(dev)
	defer e2.Close()
	if _, err := e2.Add(a, a); !errors.Is(err, engine.ErrFreed) {
		t.Fatalf("another engine's op on a freed Dense: %v", err)
	}
	must(t, e.Free(other, int64(other.MemSize())))
	must(t, e.Free(fresh, int64(fresh.MemSize())))
	if s := dev.Stats(); s.AllocsLive != live.AllocsLive || s.BytesLive != live.BytesLive {
		t.Fatalf("after freeing everything: %v, want %d allocations live as before", s, live.AllocsLive)
	}
}

// Issue 19.3: Memset converts the value to the Dense's element type, for
// every element type, or refuses one that does not fit.
func TestMemsetConverts(t *testing.T) {
	e, _ := testEngine(t)
	memsetType[float32](t, e, 1e300)
	memsetType[float64](t, e, "x")
	memsetType[int8](t, e, 300)
	memsetType[int16](t, e, 2.5)
	memsetType[int32](t, e, math.NaN())
	memsetType[int64](t, e, math.Inf(1))
	memsetType[uint8](t, e, -1)
	memsetType[uint16](t, e, int64(1<<20))
	memsetType[uint32](t, e, float32(-3))
	memsetType[uint64](t, e, true)
}

func memsetType[T array.Elem](t *testing.T, e *engine.Engine, bad any) {
	dt := tensor.Dtype{Type: typeOf[T]()}
	t.Run(dt.String(), func(t *testing.T) {
		for _, v := range []any{int64(3), float64(3), uint8(3), int(3), float32(3)} {
			// A fresh Dense: its memory is typed by this first use.
			d := tensor.New(tensor.Of(dt), tensor.WithShape(2, 3), tensor.WithEngine(e))
			must(t, e.Memset(d, v))
			if got := fmt.Sprint(hostVals[T](t, d)); got != "[3 3 3 3 3 3]" {
				t.Fatalf("Memset(%T(3)) of a %v Dense: %v", v, dt, got)
			}
			must(t, e.Memset(d, int8(-0)))
			if got := fmt.Sprint(hostVals[T](t, d)); got != "[0 0 0 0 0 0]" {
				t.Fatalf("Memset(0) of a %v Dense: %v", dt, got)
			}
		}
		d := tensor.New(tensor.Of(dt), tensor.WithShape(2, 3), tensor.WithEngine(e))
		must(t, e.Memset(d, 7))
		if err := e.Memset(d, bad); !errors.Is(err, array.ErrType) {
			t.Fatalf("Memset(%T(%v)) of a %v Dense: %v, want ErrType", bad, bad, dt, err)
		}
		// Only a view's elements are set.
		col, err := d.Slice(nil, tensor.S(1))
		must(t, err)
		must(t, e.Memset(col, 1))
		if got := fmt.Sprint(hostVals[T](t, d)); got != "[7 1 7 7 1 7]" {
			t.Fatalf("after a bad Memset and a column's: %v", got)
		}
	})
}

// Issue 19.4: after Close every entry point returns an error wrapping
// device.ErrClosed (Memclr panics with one), never a fault; Close frees
// every allocation.
func TestUseAfterClose(t *testing.T) {
	dev, err := opencl.Default()
	if err != nil {
		t.Skip(err)
	}
	live := dev.Stats()
	e, e2 := engine.New(dev), engine.New(dev)
	defer e2.Close()
	a := onDevice(t, e, []float32{1, 2, 3, 4}, 2, 2)
	b, err := a.Add(a) // device-dirty
	must(t, err)
	other := onDevice(t, e2, []float32{5, 6, 7, 8}, 2, 2)
	before := dev.Stats()
	must(t, e.Close())
	if s := dev.Stats(); s.AllocsLive != before.AllocsLive-2 {
		t.Fatalf("Close left allocations: %d live, want %d", s.AllocsLive, before.AllocsLive-2)
	}
	for _, d := range []*tensor.Dense{a, b} {
		for name, err := range entryPoints(e, d, other) {
			if !errors.Is(err, device.ErrClosed) {
				t.Errorf("%s after Close: %v, want an error wrapping device.ErrClosed", name, err)
			}
		}
		// The open engine refuses the closed one's Denses too.
		for name, err := range entryPoints(e2, d, other) {
			if !errors.Is(err, device.ErrClosed) {
				t.Errorf("%s of the other engine after Close: %v, want device.ErrClosed", name, err)
			}
		}
	}
	if _, err := e.Alloc(8); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Alloc after Close: %v", err)
	}
	if err := e.Free(a, int64(a.MemSize())); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Free after Close: %v", err)
	}
	if err := e.Memset(tensor.Memory(memOf{a.Uintptr(), a.MemSize()}), float32(1)); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Memset of bare memory after Close: %v", err)
	}
	must(t, e.Close())
	if got := fmt.Sprint(hostVals[float32](t, other)); got != "[5 6 7 8]" {
		t.Fatalf("the other engine's Dense changed: %v", got)
	}
	must(t, e2.Close())
	if s := dev.Stats(); s.AllocsLive != live.AllocsLive || s.BytesLive != live.BytesLive {
		t.Fatalf("after both Closes: %v, want %d allocations live as before", s, live.AllocsLive)
	}
}

type memOf struct{ p, n uintptr }

func (m memOf) Uintptr() uintptr { return m.p }
func (m memOf) MemSize() uintptr { return m.n }
