package gorgonia_test

import (
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
)

// A scalar Dense is a 0-D Array over the same element, and tensor's own
// allocations convert like backed ones.
func TestScalarAndAllocated(t *testing.T) {
	s := tensor.New(tensor.FromScalar(float32(3)))
	a, err := rg.FromDense[float32](s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rank() != 0 {
		t.Fatalf("rank %d, want 0", a.Rank())
	}
	h, _ := a.Host()
	h.Set(4)
	if got := s.ScalarValue(); got != float32(4) {
		t.Errorf("scalar Dense holds %v after the Array write, want 4", got)
	}
	back, err := rg.ToDense(a)
	if err != nil {
		t.Fatal(err)
	}
	if !back.IsScalar() || back.ScalarValue() != float32(4) {
		t.Errorf("ToDense of a 0-D Array: shape %v value %v", back.Shape(), back.ScalarValue())
	}

	m := tensor.New(tensor.Of(tensor.Int16), tensor.WithShape(3, 2))
	b, err := rg.FromDense[int16](m)
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := b.Host()
	hb.Set(-9, 1, 2)
	if v, _ := m.At(2, 1); v != int16(-9) {
		t.Errorf("tensor-allocated Dense holds %v, want -9", v)
	}
	if b.Dims()[1] != (array.Dim{Extent: 3, Stride: 2}) {
		t.Errorf("dims %v", b.Dims())
	}
}
