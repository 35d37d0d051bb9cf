package gonum_test

import (
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/gonum"
)

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i)
	}
	return s
}

// Shapes and strides: gonum (rows, cols, stride) ↔ Array extents and strides.
func TestFromDenseLayouts(t *testing.T) {
	big := mat.NewDense(5, 7, seq(35))
	for _, tc := range []struct {
		name      string
		m         *mat.Dense
		wantDims  []array.Dim
		wantFirst float64
	}{
		{"3x4", mat.NewDense(3, 4, seq(12)), []array.Dim{d(0, 4, 1), d(0, 3, 4)}, 0},
		{"1x5", mat.NewDense(1, 5, seq(5)), []array.Dim{d(0, 5, 1), d(0, 1, 5)}, 0},
		{"5x1", mat.NewDense(5, 1, seq(5)), []array.Dim{d(0, 1, 1), d(0, 5, 1)}, 0},
		{"slice 1:4,2:6", big.Slice(1, 4, 2, 6).(*mat.Dense), []array.Dim{d(0, 4, 1), d(0, 3, 7)}, 9},
		{"empty", &mat.Dense{}, []array.Dim{d(0, 0, 1), d(0, 0, 0)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := gonum.FromDense(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Dims(); !slices.Equal(got, tc.wantDims) {
				t.Fatalf("dims %v, want %v", got, tc.wantDims)
			}
			if a.Len() == 0 {
				return
			}
			v, err := a.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			if got := v.At(0, 0); got != tc.wantFirst {
				t.Errorf("At(0, 0) = %v, want %v", got, tc.wantFirst)
			}
			r, c := tc.m.Dims()
			for i := range r {
				for j := range c {
					if v.At(j, i) != tc.m.At(i, j) {
						t.Fatalf("Array(%d, %d) = %v, m.At(%d, %d) = %v", j, i, v.At(j, i), i, j, tc.m.At(i, j))
					}
				}
			}
		})
	}
}

// Array layouts ↔ the blas64.General gonum gets.
func TestToGeneralLayouts(t *testing.T) {
	dense := array.FromSlice(seq(12), 4, 3)
	for _, tc := range []struct {
		name               string
		a                  *array.Array[float64]
		rows, cols, stride int
		first              float64
		wantErr            bool
	}{
		{"dense 4x3", dense, 3, 4, 4, 0, false},
		{"crop", dense.Crop(0, 1, 2).Crop(1, 1, 2), 2, 2, 4, 5, false},
		{"one row", dense.Crop(1, 2, 1), 1, 4, 4, 8, false},
		{"one column", dense.Crop(0, 3, 1), 3, 1, 4, 3, false},
		{"mins dropped", array.NewWithMins[float64]([]int{-2, 5}, []int{3, 2}), 2, 3, 3, 0, false},
		{"transposed", dense.Transpose(0, 1), 0, 0, 0, 0, true},
		{"1-D", array.FromSlice(seq(3), 3), 0, 0, 0, 0, true},
		{"3-D", array.New[float64](2, 2, 2), 0, 0, 0, 0, true},
		{"empty", array.New[float64](0, 3), 0, 0, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := gonum.ToGeneral(tc.a)
			if tc.wantErr {
				if !errors.Is(err, array.ErrLayout) {
					t.Fatalf("err = %v, want array.ErrLayout", err)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Rows != tc.rows || g.Cols != tc.cols || g.Stride != tc.stride || g.Data[0] != tc.first {
				t.Fatalf("got %d×%d stride %d first %v, want %d×%d stride %d first %v", g.Rows, g.Cols, g.Stride, g.Data[0], tc.rows, tc.cols, tc.stride, tc.first)
			}
		})
	}
}

// A write through either side is seen by the other, both ways.
func TestDenseSharesMemory(t *testing.T) {
	m := mat.NewDense(3, 4, seq(12))
	a, err := gonum.FromDense(m)
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	m.Set(2, 1, -1)
	if got := h.At(1, 2); got != -1 {
		t.Errorf("Array sees %v after m.Set, want -1", got)
	}
	h.Set(-2, 3, 0)
	if got := m.At(0, 3); got != -2 {
		t.Errorf("m sees %v after Array Set, want -2", got)
	}

	back, err := gonum.ToDense(a)
	if err != nil {
		t.Fatal(err)
	}
	back.Set(1, 1, 42)
	if m.At(1, 1) != 42 {
		t.Errorf("round trip Dense→Array→Dense does not share memory")
	}
	if !mat.Equal(back, m) {
		t.Errorf("round trip changed the matrix:\n%v\n%v", mat.Formatted(back), mat.Formatted(m))
	}

	// A device-aware Array: gonum computes into it in place.
	c := array.New[float64](2, 2)
	cm, err := gonum.ToDense(c)
	if err != nil {
		t.Fatal(err)
	}
	cm.Mul(mat.NewDense(2, 2, []float64{1, 2, 3, 4}), mat.NewDense(2, 2, []float64{1, 0, 0, 1}))
	v, _ := c.HostReadOnly()
	if got := v.Data(); !slices.Equal(got, []float64{1, 2, 3, 4}) {
		t.Errorf("Mul into the Array's memory gave %v", got)
	}
}

func TestVectors(t *testing.T) {
	m := mat.NewDense(3, 4, seq(12))
	col := m.ColView(2).(*mat.VecDense)
	a, err := gonum.FromVecDense(col)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Dims(), []array.Dim{d(0, 3, 4)}; !slices.Equal(got, want) {
		t.Fatalf("column view dims %v, want %v", got, want)
	}
	h, _ := a.Host()
	h.Set(-7, 1)
	if m.At(1, 2) != -7 {
		t.Errorf("write through the column Array not seen by the matrix")
	}

	back, err := gonum.ToVecDense(a)
	if err != nil {
		t.Fatal(err)
	}
	if r := back.RawVector(); r.N != 3 || r.Inc != 4 {
		t.Errorf("ToVecDense gives N %d Inc %d, want 3, 4", r.N, r.Inc)
	}
	back.SetVec(2, 99)
	if m.At(2, 2) != 99 {
		t.Errorf("write through VecDense not seen")
	}

	for _, tc := range []struct {
		name string
		v    blas64.Vector
	}{
		{"negative inc", blas64.Vector{N: 3, Inc: -1, Data: seq(3)}},
		{"short data", blas64.Vector{N: 4, Inc: 2, Data: seq(6)}},
		{"negative N", blas64.Vector{N: -1, Inc: 1}},
	} {
		if _, err := gonum.FromVector(tc.v); !errors.Is(err, array.ErrLayout) {
			t.Errorf("%s: err = %v, want array.ErrLayout", tc.name, err)
		}
	}
	for _, tc := range []struct {
		name string
		a    *array.Array[float64]
	}{
		{"2-D", array.New[float64](2, 2)},
		{"empty", array.New[float64](0)},
	} {
		if _, err := gonum.ToVector(tc.a); !errors.Is(err, array.ErrLayout) {
			t.Errorf("%s: err = %v, want array.ErrLayout", tc.name, err)
		}
	}
}

func TestGeneralErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    blas64.General
	}{
		{"stride < cols", blas64.General{Rows: 2, Cols: 3, Stride: 2, Data: seq(6)}},
		{"short data", blas64.General{Rows: 2, Cols: 3, Stride: 3, Data: seq(5)}},
		{"negative", blas64.General{Rows: -1, Cols: 3, Stride: 3}},
	} {
		if _, err := gonum.FromGeneral(tc.g); !errors.Is(err, array.ErrLayout) {
			t.Errorf("%s: err = %v, want array.ErrLayout", tc.name, err)
		}
	}
	if _, err := gonum.FromDense(nil); !errors.Is(err, array.ErrLayout) {
		t.Errorf("nil Dense: err = %v", err)
	}
}

func d(min, extent, stride int) array.Dim { return array.Dim{Min: min, Extent: extent, Stride: stride} }

// A blas64.General or Vector converts through the mat value over it, as
// the package documents, sharing memory both ways.
func TestRawThroughMat(t *testing.T) {
	g := blas64.General{Rows: 2, Cols: 3, Stride: 5, Data: seq(10)}
	var m mat.Dense
	m.SetRawMatrix(g)
	a, err := gonum.FromDense(&m)
	if err != nil {
		t.Fatal(err)
	}
	h, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	if got := h.At(2, 1); got != g.Data[1*5+2] {
		t.Fatalf("element (2, 1) = %v, want g.Data[7] = %v", got, g.Data[7])
	}
	h.Set(-1, 1, 1)
	if g.Data[6] != -1 {
		t.Fatalf("a write through the Array is not in g.Data: %v", g.Data)
	}
	back, err := gonum.ToDense(a)
	if err != nil {
		t.Fatal(err)
	}
	if r := back.RawMatrix(); r.Stride != 5 || &r.Data[0] != &g.Data[0] {
		t.Fatalf("ToDense(a).RawMatrix() = stride %d over %p, want stride 5 over g.Data %p", r.Stride, &r.Data[0], &g.Data[0])
	}
	v := blas64.Vector{N: 3, Inc: 3, Data: seq(9)}
	var vd mat.VecDense
	vd.SetRawVector(v)
	va, err := gonum.FromVecDense(&vd)
	if err != nil {
		t.Fatal(err)
	}
	if va.Dim(0).Stride != 3 || va.Len() != 3 {
		t.Fatalf("FromVecDense of Inc 3: dims %v", va.Dims())
	}
}
