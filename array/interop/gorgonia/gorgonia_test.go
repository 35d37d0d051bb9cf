package gorgonia_test

import (
	"errors"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
)

func d(min, extent, stride int) array.Dim { return array.Dim{Min: min, Extent: extent, Stride: stride} }

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i)
	}
	return s
}

// sameElements checks d.At(i, j, …) == a's element (…, j, i) everywhere,
// counting Array coordinates from the mins.
func sameElements[T array.Elem](t *testing.T, dn *tensor.Dense, a *array.Array[T]) {
	t.Helper()
	shape := dn.Shape()
	if dn.IsScalar() {
		shape = nil
	}
	if a.Rank() != len(shape) {
		t.Fatalf("Array rank %d, Dense shape %v", a.Rank(), dn.Shape())
	}
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if len(shape) == 0 {
		if got, want := v.At(), dn.ScalarValue().(T); got != want {
			t.Fatalf("scalar %v, Dense holds %v", got, want)
		}
		return
	}
	idx := make([]int, len(shape))
	coords := make([]int, len(shape))
	for {
		for i, x := range idx {
			k := len(idx) - 1 - i
			coords[k] = a.Dim(k).Min + x
		}
		want, err := dn.At(idx...)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.At(coords...); got != want.(T) {
			t.Fatalf("Array%v = %v, Dense%v = %v", coords, got, idx, want)
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// Dense and its views → Array dims: shapes and strides reverse.
func TestFromDenseLayouts(t *testing.T) {
	mk := func() *tensor.Dense { return tensor.New(tensor.WithShape(2, 3, 4), tensor.WithBacking(seq(24))) }
	view := func(v tensor.View, err error) *tensor.Dense {
		if err != nil {
			t.Fatal(err)
		}
		return v.(*tensor.Dense)
	}
	transposed := func(axes ...int) *tensor.Dense {
		x := mk()
		if err := x.T(axes...); err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, tc := range []struct {
		name string
		d    *tensor.Dense
		dims []array.Dim
	}{
		{"(2, 3, 4)", mk(), []array.Dim{d(0, 4, 1), d(0, 3, 4), d(0, 2, 12)}},
		{"vector", tensor.New(tensor.WithShape(5), tensor.WithBacking(seq(5))), []array.Dim{d(0, 5, 1)}},
		{"scalar", tensor.New(tensor.FromScalar(7.0)), []array.Dim{}},
		{"Slice [1]", view(mk().Slice(tensor.S(1))), []array.Dim{d(0, 4, 1), d(0, 3, 4)}},
		{"Slice [:, 1:3]", view(mk().Slice(nil, tensor.S(1, 3))), []array.Dim{d(0, 4, 1), d(0, 2, 4), d(0, 2, 12)}},
		{"Slice [:, :, 0:4:2]", view(mk().Slice(nil, nil, tensor.S(0, 4, 2))), []array.Dim{d(0, 2, 2), d(0, 3, 4), d(0, 2, 12)}},
		{"Slice [1, 2]", view(mk().Slice(tensor.S(1), tensor.S(2))), []array.Dim{d(0, 4, 1)}},
		{"T()", transposed(), []array.Dim{d(0, 2, 12), d(0, 3, 4), d(0, 4, 1)}},
		{"T(0, 2, 1)", transposed(0, 2, 1), []array.Dim{d(0, 3, 4), d(0, 4, 1), d(0, 2, 12)}},
		{"Fortran", tensor.New(tensor.WithShape(2, 3), tensor.AsFortran(seq(6))), []array.Dim{d(0, 3, 2), d(0, 2, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := rg.FromDense[float64](tc.d)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Dims(); !slices.Equal(got, tc.dims) {
				t.Fatalf("dims %v, want %v (Dense shape %v strides %v)", got, tc.dims, tc.d.Shape(), tc.d.Strides())
			}
			sameElements(t, tc.d, a)
		})
	}
}

// Array layouts → Dense shape and strides, zero-copy for dense Arrays and
// their permutations.
func TestToDenseLayouts(t *testing.T) {
	base := array.FromSlice(seq(24), 4, 3, 2)
	for _, tc := range []struct {
		name    string
		a       *array.Array[float64]
		shape   tensor.Shape
		strides []int
		lazyT   bool
	}{
		{"dense", base, tensor.Shape{2, 3, 4}, []int{12, 4, 1}, false},
		{"Transpose(0, 2)", base.Transpose(0, 2), tensor.Shape{4, 3, 2}, []int{1, 4, 12}, true},
		{"Permute(1, 2, 0)", base.Permute(1, 2, 0), tensor.Shape{4, 2, 3}, []int{1, 12, 4}, true},
		{"Slice(2, 1)", base.Slice(2, 1), tensor.Shape{3, 4}, []int{4, 1}, false},
		{"outer crop", base.Crop(2, 1, 1), tensor.Shape{1, 3, 4}, nil, false},
		{"1-D", array.FromSlice(seq(5), 5), tensor.Shape{5}, []int{1}, false},
		{"0-D", base.Slice(0, 1).Slice(0, 2).Slice(0, 1), tensor.ScalarShape(), nil, false},
		{"with mins", array.NewWithMins[float64]([]int{5, -1}, []int{2, 3}), tensor.Shape{3, 2}, []int{2, 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dn, err := rg.ToDense(tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if !dn.Shape().Eq(tc.shape) {
				t.Fatalf("shape %v, want %v", dn.Shape(), tc.shape)
			}
			if tc.strides != nil && !slices.Equal(dn.Strides(), tc.strides) {
				t.Errorf("strides %v, want %v", dn.Strides(), tc.strides)
			}
			if got := dn.RequiresIterator(); got != tc.lazyT {
				t.Errorf("RequiresIterator = %v, want %v (a lazy transpose)", got, tc.lazyT)
			}
			sameElements(t, dn, tc.a)
			// Materializing the lazy transpose copies into a row-major Dense
			// with the same elements.
			if tc.lazyT {
				sameElements(t, dn.Materialize().(*tensor.Dense), tc.a)
			}
		})
	}
}

// Layouts a Dense cannot address: an error, and the copy that works.
func TestToDenseNeedsCopy(t *testing.T) {
	base := array.FromSlice(seq(24), 4, 3, 2)
	for _, tc := range []struct {
		name string
		a    *array.Array[float64]
	}{
		{"inner crop", base.Crop(0, 1, 2)},
		{"middle crop", base.Crop(1, 0, 2)},
		{"channel slice of interleaved", base.Slice(0, 3)},
		{"transposed crop", base.Crop(0, 0, 3).Transpose(0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rg.ToDense(tc.a)
			if !errors.Is(err, array.ErrLayout) {
				t.Fatalf("err = %v, want array.ErrLayout", err)
			}
			t.Log(err)
			c, err := rg.ToDenseCopy(tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if c.RequiresIterator() {
				t.Errorf("the copy is not row-major")
			}
			sameElements(t, c, tc.a)
		})
	}
}

// A write through either side is seen by the other.
func TestSharesMemory(t *testing.T) {
	dn := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{0, 1, 2, 3, 4, 5}))
	a, err := rg.FromDense[float32](dn)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := a.Host()
	h.Set(-1, 2, 1) // Dense (1, 2)
	if v, _ := dn.At(1, 2); v != float32(-1) {
		t.Errorf("Dense sees %v after the Array write", v)
	}
	dn.SetAt(float32(9), 0, 1)
	if h.At(1, 0) != 9 {
		t.Errorf("Array sees %v after the Dense write", h.At(1, 0))
	}

	// Array → Dense → arithmetic in place.
	b := array.New[float32](3, 2).Transpose(0, 1)
	bd, err := rg.ToDense(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := bd.SetAt(float32(5), 2, 1); err != nil { // Array (1, 2)
		t.Fatal(err)
	}
	bv, _ := b.HostReadOnly()
	if bv.At(1, 2) != 5 {
		t.Errorf("Array sees %v after a write through the transposed Dense", bv.At(1, 2))
	}

	// Round trip Dense → Array → Dense shares the original memory.
	back, err := rg.ToDense(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.Apply(func(x float32) float32 { return x * 10 }, tensor.UseUnsafe()); err != nil {
		t.Fatal(err)
	}
	if v, _ := dn.At(1, 2); v != float32(-10) {
		t.Errorf("original Dense sees %v after Apply on the round-tripped one", v)
	}

	// A view of a Dense is the matching Array view of the same memory.
	big := tensor.New(tensor.WithShape(4, 5), tensor.WithBacking(seq(20)))
	sv, _ := big.Slice(tensor.S(1, 3), tensor.S(2, 5))
	va, err := rg.FromDense[float64](sv.(*tensor.Dense))
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := rg.FromDense[float64](big)
	crop := whole.Crop(0, 2, 3).Crop(1, 1, 2)
	for k := range 2 {
		if v, c := va.Dim(k), crop.Dim(k); v.Extent != c.Extent || v.Stride != c.Stride {
			t.Errorf("view dims %v, crop dims %v", va.Dims(), crop.Dims())
		}
	}
	vh, _ := va.Host()
	vh.Set(-5, 0, 0)
	if v, _ := big.At(1, 2); v != -5.0 {
		t.Errorf("parent Dense sees %v after writing the view's Array", v)
	}
}

func TestTypes(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    *tensor.Dense
		want string // the Buffer's Go type
	}{
		{"int8", tensor.New(tensor.WithBacking([]int8{1, 2})), "*array.Array[int8]"},
		{"int16", tensor.New(tensor.WithBacking([]int16{1, 2})), "*array.Array[int16]"},
		{"int32", tensor.New(tensor.WithBacking([]int32{1, 2})), "*array.Array[int32]"},
		{"int64", tensor.New(tensor.WithBacking([]int64{1, 2})), "*array.Array[int64]"},
		{"uint8", tensor.New(tensor.WithBacking([]uint8{1, 2})), "*array.Array[uint8]"},
		{"uint16", tensor.New(tensor.WithBacking([]uint16{1, 2})), "*array.Array[uint16]"},
		{"uint32", tensor.New(tensor.WithBacking([]uint32{1, 2})), "*array.Array[uint32]"},
		{"uint64", tensor.New(tensor.WithBacking([]uint64{1, 2})), "*array.Array[uint64]"},
		{"float32", tensor.New(tensor.WithBacking([]float32{1, 2})), "*array.Array[float32]"},
		{"float64", tensor.New(tensor.WithBacking([]float64{1, 2})), "*array.Array[float64]"},
		{"int", tensor.New(tensor.WithBacking([]int{1, 2})), "use tensor.Int64"},
		{"bool", tensor.New(tensor.WithBacking([]bool{true, false})), "bool has no Array element type"},
		{"complex128", tensor.New(tensor.WithBacking([]complex128{1, 2})), "complex128 has no Array element type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := rg.FromDenseAny(tc.d)
			if err != nil {
				if !errors.Is(err, array.ErrType) || !contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want array.ErrType saying %q", err, tc.want)
				}
				return
			}
			if got := typeName(b); got != tc.want {
				t.Fatalf("FromDenseAny gave %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := rg.FromDense[float32](tensor.New(tensor.WithBacking([]float64{1}))); !errors.Is(err, array.ErrType) || !contains(err.Error(), "FromDense[float64]") {
		t.Errorf("FromDense[float32] of a float64 Dense: err = %v", err)
	}
	if _, err := rg.ToDense(array.New[array.Float16](2)); !errors.Is(err, array.ErrType) || !contains(err.Error(), "float16") {
		t.Errorf("ToDense of Float16: err = %v", err)
	}
	if _, err := rg.ToDense(array.New[array.BFloat16](2)); !errors.Is(err, array.ErrType) || !contains(err.Error(), "bfloat16") {
		t.Errorf("ToDense of BFloat16: err = %v", err)
	}
	if _, err := rg.ToDense(array.New[float32](0, 2)); !errors.Is(err, array.ErrLayout) {
		t.Errorf("ToDense of an empty Array: err = %v", err)
	}
	masked := tensor.New(tensor.WithBacking([]float64{1, 2}, []bool{true, false}))
	if _, err := rg.FromDense[float64](masked); !errors.Is(err, array.ErrLayout) {
		t.Errorf("masked Dense: err = %v", err)
	}
}
