package engine_test

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/guard"
	"math"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

func testEngine(t *testing.T) (*engine.Engine, *opencl.Device) {
	t.Helper()
	d, err := opencl.Default()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	e := engine.New(d)
	t.Cleanup(func() { e.Close() })
	return e, d
}

// onDevice makes a Dense of e holding vals (row-major) and uploads it.
func onDevice[T float32 | float64 | int32](t *testing.T, e *engine.Engine, vals []T, shape ...int) *tensor.Dense {
	t.Helper()
	d := tensor.New(tensor.Of(tensor.Dtype{Type: typeOf[T]()}), tensor.WithShape(shape...), tensor.WithEngine(e))
	h, err := engine.Host(d)
	if err != nil {
		t.Fatal(err)
	}
	copy(h.Data().([]T), vals)
	a, err := engine.Array[T](e, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := ops.On(e.Device(), a); err != nil {
		t.Fatal(err)
	}
	return d
}

// hostVals reads d through its host view.
func hostVals[T any](t *testing.T, d *tensor.Dense) []T {
	t.Helper()
	h, err := engine.Host(d)
	if err != nil {
		t.Fatal(err)
	}
	return flat[T](h)
}

// flat is d's values in row-major order, whatever its strides.
func flat[T any](d *tensor.Dense) []T {
	if d.IsScalar() {
		return []T{d.Data().(T)}
	}
	data := d.Data().([]T)
	var vals []T
	it := d.Iterator()
	for i, err := it.Start(); err == nil; i, err = it.Next() {
		vals = append(vals, data[i])
	}
	return vals
}

func seqf(n int, f func(i int) float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}

// A chain of tensor's own API on device Denses moves nothing between host
// and device (checked under the transfer guard and with the counters) and
// equals the standard engine's answer.
func TestChainStaysOnDevice(t *testing.T) {
	e, dev := testEngine(t)
	av := seqf(12, func(i int) float32 { return float32(i) - 5 })
	bv := seqf(12, func(i int) float32 { return 0.5 * float32(i%5) })
	a, b := onDevice(t, e, av, 3, 4), onDevice(t, e, bv, 4, 3)
	ha := tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(append([]float32(nil), av...)))
	hb := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(append([]float32(nil), bv...)))

	before := dev.Stats()
	was := guardResident()
	run := func(a, b *tensor.Dense) (*tensor.Dense, *tensor.Dense) {
		c, err := a.MatMul(b) // 3×3
		must(t, err)
		c, err = c.MulScalar(float32(0.25), true)
		must(t, err)
		c2, err := tensor.Tanh(c)
		must(t, err)
		c, err = c.Add(c2.(*tensor.Dense))
		must(t, err)
		s, err := c.Sum(1)
		must(t, err)
		return c, s
	}
	c, s := run(a, b)
	guard.Set(was)
	if d := dev.Stats().Sub(before); resident() && (d.H2DCalls != 0 || d.D2HCalls != 0) {
		t.Fatalf("the chain moved data: %v", d)
	}
	hc, hs := run(ha, hb)
	near(t, "chain", hostVals[float32](t, c), hc.Data().([]float32), 1e-5)
	near(t, "row sums", hostVals[float32](t, s), hs.Data().([]float32), 1e-5)
	if got := fmt.Sprint(c); !strings.Contains(got, "Inaccesible data") {
		t.Fatalf("a device Dense printed %q: tensor should refuse to read it", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func near[T float32 | float64](t *testing.T, what string, got, want []T, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// Every operation, with tensor's options, on views too, against the
// standard engine on the same values.
func TestOps(t *testing.T) {
	e, _ := testEngine(t)
	av := seqf(24, func(i int) float32 { return float32(i%7) + 0.5 })
	bv := seqf(24, func(i int) float32 { return float32(i%5) + 1 })
	type op = func(a, b *tensor.Dense) (tensor.Tensor, error)
	for _, tc := range []struct {
		name string
		f    op
	}{
		{"Add", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Add(a, b) }},
		{"Sub", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Sub(a, b) }},
		{"Mul", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Mul(a, b) }},
		{"Div", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Div(a, b) }},
		{"Pow", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Pow(a, b) }},
		{"MinBetween", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.MinBetween(a, b) }},
		{"MaxBetween", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.MaxBetween(a, b) }},
		{"scalar left", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Sub(a, float32(2)) }},
		{"scalar right", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Div(float32(3), a) }},
		{"Neg", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Neg(a) }},
		{"Abs", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Abs(a) }},
		{"Sqrt", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Sqrt(a) }},
		{"Exp", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Exp(a) }},
		{"Log", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Log(a) }},
		{"Sum all", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Sum(a) }},
		{"Sum 0", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Sum(a, 0) }},
		{"Sum 0 2", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Sum(a, 0, 2) }},
		{"Max 1", func(a, b *tensor.Dense) (tensor.Tensor, error) { return a.Max(1) }},
		{"Min 2", func(a, b *tensor.Dense) (tensor.Tensor, error) { return a.Min(2) }},
		{"reuse", func(a, b *tensor.Dense) (tensor.Tensor, error) {
			r := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(a.Shape().Clone()...), tensor.WithEngine(a.Engine()))
			return tensor.Add(a, b, tensor.WithReuse(r))
		}},
		{"unsafe", func(a, b *tensor.Dense) (tensor.Tensor, error) { return tensor.Mul(a, b, tensor.UseUnsafe()) }},
		{"incr", func(a, b *tensor.Dense) (tensor.Tensor, error) {
			r := a.Clone().(*tensor.Dense)
			return tensor.Mul(a, b, tensor.WithIncr(r))
		}},
		{"slice", func(a, b *tensor.Dense) (tensor.Tensor, error) {
			as, err := a.Slice(nil, tensor.S(1, 3))
			must(t, err)
			bs, err := b.Slice(nil, tensor.S(0, 2))
			must(t, err)
			return tensor.Sub(as, bs)
		}},
		{"transpose", func(a, b *tensor.Dense) (tensor.Tensor, error) {
			a2, b2 := a.ShallowClone(), b.ShallowClone()
			must(t, a2.T(2, 1, 0))
			must(t, b2.T(2, 1, 0))
			return tensor.Add(a2, b2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := onDevice(t, e, av, 2, 3, 4), onDevice(t, e, bv, 2, 3, 4)
			ha := tensor.New(tensor.WithShape(2, 3, 4), tensor.WithBacking(append([]float32(nil), av...)))
			hb := tensor.New(tensor.WithShape(2, 3, 4), tensor.WithBacking(append([]float32(nil), bv...)))
			got, err := tc.f(a, b)
			must(t, err)
			want, err := tc.f(ha, hb)
			must(t, err)
			wd := want.(*tensor.Dense)
			if !got.Shape().Eq(wd.Shape()) {
				t.Fatalf("shape %v, want %v", got.Shape(), wd.Shape())
			}
			near(t, tc.name, hostVals[float32](t, got.(*tensor.Dense)), flat[float32](wd), 2e-6)
			if tc.name == "unsafe" && got != tensor.Tensor(a) {
				t.Fatal("UseUnsafe did not write a")
			}
		})
	}
}

// Integers are exact, and the memory functions work where the data lives.
func TestIntsAndMemory(t *testing.T) {
	e, _ := testEngine(t)
	a := onDevice(t, e, []int32{1, -2, 3, 4, 5, 6}, 2, 3)
	b, err := a.MulScalar(int32(3), true)
	must(t, err)
	c, err := b.Sum(0)
	must(t, err)
	if got := hostVals[int32](t, c); fmt.Sprint(got) != "[15 9 27]" {
		t.Fatalf("column sums %v, want [15 9 27]", got)
	}
	p, err := e.Prod(a, 0) // the standard engine has no Prod to compare with
	must(t, err)
	if got := hostVals[int32](t, p.(*tensor.Dense)); fmt.Sprint(got) != "[4 -10 18]" {
		t.Fatalf("column products %v, want [4 -10 18]", got)
	}
	must(t, e.Memset(b, int32(7)))
	if got := hostVals[int32](t, b); fmt.Sprint(got) != "[7 7 7 7 7 7]" {
		t.Fatalf("after Memset %v", got)
	}
	cp := a.Clone().(*tensor.Dense) // tensor copies through our Memcpy
	e.Memclr(a)
	if got := hostVals[int32](t, a); fmt.Sprint(got) != "[0 0 0 0 0 0]" {
		t.Fatalf("after Memclr %v", got)
	}
	if got := hostVals[int32](t, cp); fmt.Sprint(got) != "[1 -2 3 4 5 6]" {
		t.Fatalf("clone %v", got)
	}
	must(t, tensor.Copy(a, cp))
	if got := hostVals[int32](t, a); fmt.Sprint(got) != "[1 -2 3 4 5 6]" {
		t.Fatalf("after Copy %v", got)
	}
	// The documented way to copy from a host Dense: Host first, so the
	// next device op uploads what the standard engine wrote.
	b2, err := a.Add(a) // a is on the device now
	must(t, err)
	_ = b2.Data() // unguarded: reads host memory, never crashes
	_, err = engine.Host(a)
	must(t, err)
	host := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]int32{9, 9, 9, 9, 9, 10}))
	must(t, tensor.Copy(a, host))
	b2, err = a.Add(a)
	must(t, err)
	if got := hostVals[int32](t, b2); fmt.Sprint(got) != "[18 18 18 18 18 20]" {
		t.Fatalf("a device op after tensor.Copy from the host: %v", got)
	}
}

// Bad input is an error that names the fix, and loses nothing.
func TestErrors(t *testing.T) {
	e, dev := testEngine(t)
	live := dev.Stats().AllocsLive
	a := onDevice(t, e, seqf(6, func(i int) float32 { return float32(i) }), 2, 3)
	ints := tensor.New(tensor.Of(tensor.Int), tensor.WithShape(2, 3), tensor.WithEngine(e))
	if _, err := ints.Add(ints); !errors.Is(err, array.ErrType) {
		t.Fatalf("Add of Go ints: %v, want ErrType", err)
	}
	r := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(3, 2), tensor.WithEngine(e))
	if _, err := tensor.Add(a, a, tensor.WithReuse(r)); !errors.Is(err, array.ErrLayout) {
		t.Fatalf("reuse of another shape: %v, want ErrLayout", err)
	}
	b := onDevice(t, e, seqf(6, func(i int) float32 { return float32(i) }), 3, 2)
	if _, err := a.Add(b); err == nil {
		t.Fatal("Add of shapes 2×3 and 3×2 succeeded")
	}
	if _, err := a.Sum(2); !errors.Is(err, array.ErrLayout) {
		t.Fatalf("Sum along axis 2 of a matrix: %v", err)
	}
	if _, err := tensor.Add(a, "x"); err == nil {
		t.Fatal("a string scalar was accepted")
	}
	if err := a.Memset(float32(1)); err == nil {
		t.Fatal("tensor's own Memset read device memory")
	}
	if got := hostVals[float32](t, a); fmt.Sprint(got) != "[0 1 2 3 4 5]" {
		t.Fatalf("failed calls changed a: %v", got)
	}
	must(t, e.Free(a, int64(a.MemSize())))
	if err := e.Free(a, int64(a.MemSize())); !errors.Is(err, engine.ErrFreed) {
		t.Fatalf("double Free: %v, want ErrFreed", err)
	}
	must(t, e.Close())
	must(t, e.Close())
	if _, err := e.Alloc(8); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Alloc after Close: %v", err)
	}
	if got := dev.Stats().AllocsLive; got != live {
		t.Fatalf("device allocations live %d after Close, want %d", got, live)
	}
}
