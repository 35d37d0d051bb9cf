package array_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
)

// ExampleArray_Compact: a copy keeps its source's memory order (NumPy's
// copy(order='K')), so an interleaved image's copy is interleaved and
// its views are the source's; COrder asks for the planar layout.
func ExampleArray_Compact() {
	img := array.NewInterleaved[uint8](4, 3, 2) // x, y, c: NumPy shape (2, 3, 4), channels innermost
	keep, _ := img.Compact()
	planar, _ := img.Compact(array.COrder)
	fmt.Println(img.Dims())
	fmt.Println(keep.Dims())
	fmt.Println(planar.Dims())
	fmt.Println(array.Like(img).Dims())
	// Output:
	// [{0 4 2} {0 3 8} {0 2 1}]
	// [{0 4 2} {0 3 8} {0 2 1}]
	// [{0 4 1} {0 3 4} {0 2 12}]
	// [{0 4 2} {0 3 8} {0 2 1}]
}

// TestOrderArgument: at most one known Order, else ErrShape.
func TestOrderArgument(t *testing.T) {
	a := array.New[float32](2, 3)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"two orders to Like", func() { array.Like(a, array.KeepOrder, array.COrder) }},
		{"unknown order to Like", func() { array.Like(a, array.Order(7)) }},
		{"two orders to Compact", func() { _, _ = a.Compact(array.COrder, array.COrder) }},
	} {
		func() {
			defer func() {
				r := recover()
				err, _ := r.(error)
				if !errors.Is(err, array.ErrShape) {
					t.Errorf("%s: recovered %v, want a panic wrapping ErrShape", tc.name, r)
				}
			}()
			tc.f()
		}()
	}
	// A transposed view's copy is transposed; the COrder copy is not.
	v := a.Transpose(0, 1)
	if got := array.Like(v).Dims(); got[0].Stride != 2 || got[1].Stride != 1 {
		t.Errorf("Like of a transposed view: %v, want strides (2, 1)", got)
	}
	if got := array.Like(v, array.COrder).Dims(); got[0].Stride != 1 || got[1].Stride != 3 {
		t.Errorf("Like(COrder) of a transposed view: %v, want strides (1, 3)", got)
	}
}

// TestCompactEmptyView: an empty view whose offset lies past its root's
// (empty) storage copies to an empty Array (it panicked slicing storage).
func TestCompactEmptyView(t *testing.T) {
	v := array.New[int32](1, 0, 4).Permute(2, 0, 1).Translate(1, -3).Slice(0, 3)
	for _, o := range []array.Order{array.KeepOrder, array.COrder} {
		c, err := v.Compact(o)
		if err != nil || c.Len() != 0 {
			t.Fatalf("Compact(%v) of %v: %v, %v", o, v.Dims(), c, err)
		}
	}
}
