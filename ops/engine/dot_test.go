package engine_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops/engine"
)

// tensor.Dot and tensor.Contract on the engine's Denses give the standard
// engine's values and shapes (gorgonia's BarzilaiBorwein solver contracts
// every axis of two gradients and reads Data()[0]): a result of one
// element is current in host memory, read through Data() with no Host
// call. Before, every one failed ("Neither x's nor y's engines support
// Dot"). Shapes the engine does not do are an ErrLayout naming MatMul.
func TestDotMatchesStdEngine(t *testing.T) {
	e, _ := testEngine(t)
	vals := []float64{1, -2, 3, 0.5, 5, -6, 7, 8, 9, 10, 11, 12}
	mk := func(on bool, n int, shape ...int) *tensor.Dense {
		v := append([]float64(nil), vals[:n]...)
		if !on {
			return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
		}
		d := onDevice(t, e, v, shape...)
		_, err := e.MulScalar(d, 1.0, true, tensor.UseUnsafe()) // newest on the device
		must(t, err)
		return d
	}
	type operand struct {
		n     int
		shape []int
	}
	for _, tc := range []struct {
		name string
		a, b operand
		axes [][]int // Contract's, else Dot
	}{
		{"vectors", operand{5, []int{5}}, operand{5, []int{5}}, nil},
		{"row·col", operand{6, []int{1, 6}}, operand{6, []int{6, 1}}, nil},
		{"matrices", operand{6, []int{2, 3}}, operand{12, []int{3, 4}}, nil},
		{"1×1 matrices", operand{1, []int{1, 1}}, operand{1, []int{1, 1}}, nil},
		{"Contract all", operand{12, []int{3, 4}}, operand{12, []int{3, 4}}, [][]int{{0, 1}, {0, 1}}},
		{"Contract one axis", operand{6, []int{2, 3}}, operand{12, []int{3, 4}}, [][]int{{1}, {0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := func(a, b *tensor.Dense) (tensor.Tensor, error) {
				if tc.axes != nil {
					return tensor.Contract(a, b, tc.axes[0], tc.axes[1])
				}
				return tensor.Dot(a, b)
			}
			want, err := f(mk(false, tc.a.n, tc.a.shape...), mk(false, tc.b.n, tc.b.shape...))
			must(t, err)
			a, b := mk(true, tc.a.n, tc.a.shape...), mk(true, tc.b.n, tc.b.shape...)
			was := guardResident() // a one-element result comes home explicitly
			got, err := f(a, b)
			guard.Set(was)
			if err != nil {
				t.Fatalf("on the engine: %v", err)
			}
			if !got.Shape().Eq(want.Shape()) {
				t.Fatalf("shape %v, standard engine %v", got.Shape(), want.Shape())
			}
			gd, wd := got.(*tensor.Dense), want.(*tensor.Dense)
			if wd.DataSize() == 1 {
				near(t, tc.name+" Data()", []float64{one(gd.Data())}, []float64{one(wd.Data())}, 1e-12)
				return
			}
			near(t, tc.name, hostVals[float64](t, gd), flat[float64](wd), 1e-12)
		})
	}
	_, err := tensor.Dot(mk(true, 6, 2, 3), mk(true, 3, 3))
	if !errors.Is(err, array.ErrLayout) || !strings.Contains(err.Error(), "MatMul") {
		t.Fatalf("matrix·vector: %v, want an ErrLayout naming MatMul", err)
	}
	var _ tensor.Dotter = (*engine.Engine)(nil)
}

// one is the value of a scalar or one-element slice.
func one(v any) float64 {
	if s, ok := v.([]float64); ok {
		return s[0]
	}
	return v.(float64)
}
