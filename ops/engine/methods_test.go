package engine_test

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/ops/engine"
)

// operands of one case, made on one engine (the device engine or tensor's
// standard one).
type env struct {
	a, b *tensor.Dense                                     // float32 3×4
	i    *tensor.Dense                                     // int32 3×4
	mk   func(dt tensor.Dtype, shape ...int) *tensor.Dense // a zero Dense
	sc   func(v float32) *tensor.Dense                     // a float32 scalar Dense
}

var (
	methodA = []float32{3, -1, 2, 2, 0, 5, -4, 1, 7, 7, -2, 0}
	methodB = []float32{3, 0, 2, -1, 1, 5, -4, 2, 6, 8, -2, 0}
	methodI = []int32{4, -9, 4, 1, 0, 3, 3, -2, 8, -1, 8, 5}
)

// The comparisons (Bool results, AsSameType, UseUnsafe, reuse, scalar
// forms on either side, scalar Denses), Argmax/Argmin along each axis and
// over all, Transpose and Clamp give the standard engine's values, dtype
// and shape; each runs on the device: nothing moves under the transfer
// guard, and the result's Array is device-dirty (written there).
func TestMethodsMatchStdEngine(t *testing.T) {
	e, dev := testEngine(t)
	f32 := tensor.Float32
	cases := []struct {
		name string
		f    func(v env) (tensor.Tensor, error)
	}{
		{"Lt", func(v env) (tensor.Tensor, error) { return tensor.Lt(v.a, v.b) }},
		{"Lte", func(v env) (tensor.Tensor, error) { return tensor.Lte(v.a, v.b) }},
		{"Gt", func(v env) (tensor.Tensor, error) { return tensor.Gt(v.a, v.b) }},
		{"Gte", func(v env) (tensor.Tensor, error) { return tensor.Gte(v.a, v.b) }},
		{"ElEq", func(v env) (tensor.Tensor, error) { return tensor.ElEq(v.a, v.b) }},
		{"ElNe", func(v env) (tensor.Tensor, error) { return tensor.ElNe(v.a, v.b) }},
		{"Lt AsSameType", func(v env) (tensor.Tensor, error) { return tensor.Lt(v.a, v.b, tensor.AsSameType()) }},
		{"Gte AsSameType int32", func(v env) (tensor.Tensor, error) {
			return tensor.Gte(v.i, v.i, tensor.AsSameType())
		}},
		{"ElNe UseUnsafe", func(v env) (tensor.Tensor, error) { return tensor.ElNe(v.a, v.b, tensor.UseUnsafe()) }},
		{"Gt reuse Bool", func(v env) (tensor.Tensor, error) {
			return tensor.Gt(v.a, v.b, tensor.WithReuse(v.mk(tensor.Bool, 3, 4)))
		}},
		{"Lte reuse same", func(v env) (tensor.Tensor, error) {
			return tensor.Lte(v.a, v.b, tensor.AsSameType(), tensor.WithReuse(v.mk(f32, 3, 4)))
		}},
		{"LtScalar left", func(v env) (tensor.Tensor, error) { return tensor.Lt(v.a, float32(2)) }},
		{"LtScalar right", func(v env) (tensor.Tensor, error) { return tensor.Lt(float32(2), v.a) }},
		{"LteScalar right", func(v env) (tensor.Tensor, error) { return tensor.Lte(float32(2), v.a) }},
		{"GtScalar AsSameType", func(v env) (tensor.Tensor, error) { return tensor.Gt(v.a, float32(0), tensor.AsSameType()) }},
		{"GteScalar right", func(v env) (tensor.Tensor, error) { return tensor.Gte(float32(1), v.a) }},
		{"GteScalar Dense", func(v env) (tensor.Tensor, error) { return tensor.Gte(v.a, v.sc(0), tensor.AsSameType()) }},
		{"EqScalar", func(v env) (tensor.Tensor, error) { return tensor.ElEq(v.a, float32(7)) }},
		{"NeScalar right", func(v env) (tensor.Tensor, error) { return tensor.ElNe(float32(7), v.a) }},
		{"Argmax 0", func(v env) (tensor.Tensor, error) { return v.a.Argmax(0) }},
		{"Argmax 1", func(v env) (tensor.Tensor, error) { return v.a.Argmax(1) }},
		{"Argmin 0", func(v env) (tensor.Tensor, error) { return v.a.Argmin(0) }},
		{"Argmin 1", func(v env) (tensor.Tensor, error) { return v.a.Argmin(1) }},
		{"Argmax int32", func(v env) (tensor.Tensor, error) { return v.i.Argmax(1) }},
		{"Argmax all", func(v env) (tensor.Tensor, error) { return v.a.Argmax(tensor.AllAxes) }},
		{"Argmin all", func(v env) (tensor.Tensor, error) { return v.a.Argmin(tensor.AllAxes) }},
		{"Transpose", func(v env) (tensor.Tensor, error) {
			v.a.T()
			return v.a, v.a.Transpose()
		}},
		{"Transpose int32", func(v env) (tensor.Tensor, error) {
			v.i.T()
			return v.i, v.i.Transpose()
		}},
		{"Repeat axis 1", func(v env) (tensor.Tensor, error) { return tensor.Repeat(v.a, 1, 2) }},
		{"Repeat axis 0 int32", func(v env) (tensor.Tensor, error) { return tensor.Repeat(v.i, 0, 3) }},
		{"Repeat uneven", func(v env) (tensor.Tensor, error) { return tensor.Repeat(v.a, 0, 1, 0, 2) }},
		{"Repeat all", func(v env) (tensor.Tensor, error) { return tensor.Repeat(v.a, tensor.AllAxes, 2) }},
		{"Repeat vector axis 1", func(v env) (tensor.Tensor, error) {
			s, err := v.a.Sum(1) // (3): gorgonia's gradient of a row sum
			if err != nil {
				return nil, err
			}
			return tensor.Repeat(s, 1, 4)
		}},
		{"RepeatReuse", func(v env) (tensor.Tensor, error) {
			return tensor.RepeatReuse(v.a, v.mk(f32, 3, 8), 1, 2)
		}},
		{"SoftMax", func(v env) (tensor.Tensor, error) { return tensor.SoftMax(v.a, -1) }},
		{"SoftMax axis 0", func(v env) (tensor.Tensor, error) { return tensor.SoftMax(v.a, 0) }},
		{"LogSoftMax", func(v env) (tensor.Tensor, error) { return tensor.LogSoftMax(v.a, 1) }},
		{"SoftMaxB", func(v env) (tensor.Tensor, error) { return tensor.SoftMaxB(v.a, v.b, 1) }},
		{"SoftMaxB axis 0", func(v env) (tensor.Tensor, error) { return tensor.SoftMaxB(v.a, v.b, 0) }},
		{"LogSoftMaxB", func(v env) (tensor.Tensor, error) { return tensor.LogSoftMaxB(v.a, v.b, 1) }},
		{"Square", func(v env) (tensor.Tensor, error) { return tensor.Square(v.a) }},
		{"Cube UseUnsafe", func(v env) (tensor.Tensor, error) { return tensor.Cube(v.a, tensor.UseUnsafe()) }},
		{"Inv", func(v env) (tensor.Tensor, error) { return tensor.Inv(v.b) }},
		{"InvSqrt", func(v env) (tensor.Tensor, error) { return tensor.InvSqrt(v.b) }},
		{"Log2", func(v env) (tensor.Tensor, error) { return tensor.Log2(v.b) }},
		{"Sign UseUnsafe", func(v env) (tensor.Tensor, error) { return tensor.Sign(v.a, tensor.UseUnsafe()) }},
		{"Clamp", func(v env) (tensor.Tensor, error) { return tensor.Clamp(v.a, float32(-1), float32(3)) }},
		{"Clamp int32", func(v env) (tensor.Tensor, error) { return tensor.Clamp(v.i, int32(0), int32(4)) }},
		{"Clamp UseUnsafe", func(v env) (tensor.Tensor, error) {
			return tensor.Clamp(v.a, float32(0), float32(2), tensor.UseUnsafe())
		}},
		{"Clamp reuse", func(v env) (tensor.Tensor, error) {
			return tensor.Clamp(v.a, float32(0), float32(2), tensor.WithReuse(v.mk(f32, 3, 4)))
		}},
		{"Clamp incr", func(v env) (tensor.Tensor, error) {
			return tensor.Clamp(v.a, float32(0), float32(2), tensor.WithIncr(v.b))
		}},
	}
	std := func() env {
		return env{
			a: tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(slices.Clone(methodA))),
			b: tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(slices.Clone(methodB))),
			i: tensor.New(tensor.WithShape(3, 4), tensor.WithBacking(slices.Clone(methodI))),
			mk: func(dt tensor.Dtype, shape ...int) *tensor.Dense {
				return tensor.New(tensor.Of(dt), tensor.WithShape(shape...))
			},
			sc: func(v float32) *tensor.Dense { return tensor.New(tensor.FromScalar(v)) },
		}
	}
	onDev := func() env {
		return env{
			a: onDevice(t, e, methodA, 3, 4),
			b: onDevice(t, e, methodB, 3, 4),
			i: onDevice(t, e, methodI, 3, 4),
			mk: func(dt tensor.Dtype, shape ...int) *tensor.Dense {
				return tensor.New(tensor.Of(dt), tensor.WithShape(shape...), tensor.WithEngine(e))
			},
			sc: func(v float32) *tensor.Dense {
				d := tensor.New(tensor.Of(f32), tensor.WithShape(), tensor.WithEngine(e))
				must(t, e.Memset(d, v))
				return d
			},
		}
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.f(std())
			must(t, err)
			v := onDev()
			before := dev.Stats()
			was := guardResident()
			got, err := tc.f(v)
			guard.Set(was)
			moved := dev.Stats().Sub(before)
			must(t, err)
			if moved.H2DCalls != 0 || resident() && moved.D2HCalls != 0 {
				t.Fatalf("moved data: %v", moved)
			}
			gd, wd := got.(*tensor.Dense), want.(*tensor.Dense)
			if gd.Dtype() != wd.Dtype() || !gd.Shape().Eq(wd.Shape()) {
				t.Fatalf("got a %v Dense of shape %v, the standard engine a %v of %v", gd.Dtype(), gd.Shape(), wd.Dtype(), wd.Shape())
			}
			if _, ok := gd.Engine().(*engine.Engine); ok {
				if resident() && !deviceDirty(t, e, gd) || moved.Launches == 0 {
					t.Fatalf("the result is not device-dirty, or nothing launched (%v): it was not written on the device", moved)
				}
				if strings.HasPrefix(tc.name, "Transpose") && !slices.Equal(gd.Strides(), wd.Strides()) {
					t.Fatalf("strides %v, want %v", gd.Strides(), wd.Strides())
				}
				h, err := engine.Host(gd)
				must(t, err)
				gd = h
			} else if !strings.HasSuffix(tc.name, " all") {
				t.Fatalf("the result is a Dense of %T, not of the device engine", gd.Engine())
			}
			// Exactly equal but for the device's exp, log, sqrt and
			// division, a few ulps off the host's (ops' devTol).
			if g, w := values(gd), values(wd); !slices.EqualFunc(g, w, func(x, y float64) bool {
				return x == y || math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) <= 1e-5*max(1, math.Abs(y))
			}) {
				t.Fatalf("got %v, want %v", g, w)
			}
		})
	}
}

// deviceDirty reports whether d's Array view holds newer data on the device.
func deviceDirty(t *testing.T, e *engine.Engine, d *tensor.Dense) bool {
	t.Helper()
	var b interface{ DeviceDirty() bool }
	var err error
	switch d.Dtype() {
	case tensor.Bool, tensor.Uint8:
		b, err = engine.Array[uint8](e, d)
	case tensor.Int, tensor.Int64:
		b, err = engine.Array[int64](e, d)
	case tensor.Int32:
		b, err = engine.Array[int32](e, d)
	case tensor.Float32:
		b, err = engine.Array[float32](e, d)
	default:
		t.Fatalf("dtype %v", d.Dtype())
	}
	must(t, err)
	return b.DeviceDirty()
}

// values is d's elements in row-major order as float64 (true as 1).
func values(d *tensor.Dense) []float64 {
	conv := func(x reflect.Value) float64 {
		switch x.Kind() {
		case reflect.Bool:
			if x.Bool() {
				return 1
			}
			return 0
		case reflect.Float32, reflect.Float64:
			return x.Float()
		}
		return float64(x.Int())
	}
	if d.IsScalar() {
		return []float64{conv(reflect.ValueOf(d.Data()))}
	}
	data := reflect.ValueOf(d.Data())
	var out []float64
	it := d.Iterator()
	for i, err := it.Start(); err == nil; i, err = it.Next() {
		out = append(out, conv(data.Index(i)))
	}
	return out
}
