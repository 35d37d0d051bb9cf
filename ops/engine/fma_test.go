package engine_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

// tensor.FMA and FMAScalar on device-resident Denses run as one kernel on
// the device, move nothing, write y in place and match the standard
// engine's a·x + y, for drawn shapes and element types; shapes that differ
// are refused with array.ErrLayout and y is left as it was.
func TestFMA(t *testing.T) {
	t.Run("float32", testFMA[float32])
	t.Run("float64", testFMA[float64])
	t.Run("int32", testFMA[int32])
}

func testFMA[T float32 | float64 | int32](t *testing.T) {
	e, dev := testEngine(t)
	rng := rand.New(rand.NewPCG(3, 4))
	draw := func(n int) []T {
		v := make([]T, n)
		for i := range v {
			v[i] = T(rng.IntN(13) - 6)
		}
		return v
	}
	for it := range 12 {
		shape := []int{1 + rng.IntN(5), 1 + rng.IntN(7)}
		n := shape[0] * shape[1]
		av, xv, yv := draw(n), draw(n), draw(n)
		s := T(rng.IntN(7) - 3)
		for mode, scalar := range []bool{false, true, true} { // x a Dense, a Go value, a 0-D Dense on the device
			a, x, y := onDevice(t, e, av, shape...), onDevice(t, e, xv, shape...), onDevice(t, e, yv, shape...)
			sd := scalarOn(t, e, s)
			before := dev.Stats()
			var got tensor.Tensor
			var err error
			switch mode {
			case 0:
				got, err = tensor.FMA(a, x, y)
			case 1:
				got, err = tensor.FMA(a, s, y)
			default:
				got, err = tensor.FMA(a, sd, y)
			}
			must(t, err)
			moved := dev.Stats().Sub(before)
			if got != tensor.Tensor(y) || moved.Launches != 1 || resident() && moved.H2DCalls+moved.D2HCalls != 0 {
				t.Fatalf("case %d (scalar %v): result %p for y %p, %d launches, %d up, %d down; want y, one launch, nothing moved", it, scalar, got, y, moved.Launches, moved.H2DCalls, moved.D2HCalls)
			}
			want := make([]T, n)
			for i := range want {
				m := xv[i]
				if scalar {
					m = s
				}
				want[i] = av[i]*m + yv[i]
			}
			std := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(yv)))
			var ref tensor.Tensor
			if scalar {
				ref, err = tensor.FMA(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(av))), s, std)
			} else {
				ref, err = tensor.FMA(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(av))), tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(xv))), std)
			}
			must(t, err)
			if g := hostVals[T](t, y); !slices.Equal(g, want) || !slices.Equal(ref.Data().([]T), want) {
				t.Fatalf("case %d (scalar %v): device %v, standard engine %v, want %v", it, scalar, g, ref.Data(), want)
			}
		}
	}
	a, y := onDevice(t, e, draw(6), 2, 3), onDevice(t, e, []T{1, 2, 3, 4, 5, 6}, 3, 2)
	if _, err := tensor.FMA(a, T(2), y); !errors.Is(err, array.ErrLayout) {
		t.Fatalf("FMA of shapes (2, 3) and (3, 2): %v, want ErrLayout", err)
	}
	if g := hostVals[T](t, y); !slices.Equal(g, []T{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("y after a refused FMA: %v", g)
	}
}

// scalarOn is a 0-D Dense of e holding v, resident on e's device.
func scalarOn[T float32 | float64 | int32](t *testing.T, e *engine.Engine, v T) *tensor.Dense {
	t.Helper()
	d := tensor.New(tensor.Of(tensor.Dtype{Type: typeOf[T]()}), tensor.WithShape(), tensor.WithEngine(e))
	a, err := engine.Array[T](e, d)
	if err != nil {
		t.Fatal(err)
	}
	must(t, ops.Fill(a, v))
	return d
}
