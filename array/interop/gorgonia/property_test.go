package gorgonia_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
	"github.com/resident-go/resident/internal/draw"
)

// Random permutations and crops of dense Arrays: every permutation maps to
// a Dense without copying, with the same elements, and back to the same
// Array layout; a crop either maps the same way or is refused with
// array.ErrLayout, and then ToDenseCopy holds the same elements.
func TestRandomLayouts(t *testing.T) {
	r := draw.Rand(t)
	for i := range 400 {
		extents, n := draw.Extents(r, 4, 4)
		rank := len(extents)
		a := array.FromSlice(seq(n), extents...).Permute(r.Perm(rank)...)
		cropped := r.IntN(2) == 0
		if cropped {
			k := r.IntN(rank)
			e := a.Dim(k).Extent
			lo := r.IntN(e)
			a = a.Crop(k, lo, 1+r.IntN(e-lo))
		}
		dn, err := rg.ToDense(a)
		switch {
		case err == nil:
			sameElements(t, dn, a)
			back, err := rg.FromDense[float64](dn)
			if err != nil {
				t.Fatalf("case %d: FromDense(ToDense(%v)): %v", i, a.Dims(), err)
			}
			for k, d := range a.Dims() {
				b := back.Dim(k)
				if b.Extent != d.Extent || (d.Extent > 1 && b.Stride != d.Stride) {
					t.Fatalf("case %d: round trip %v → %v", i, a.Dims(), back.Dims())
				}
			}
		case !cropped || !errors.Is(err, array.ErrLayout):
			t.Fatalf("case %d: ToDense(%v): %v", i, a.Dims(), err)
		default:
			c, err := rg.ToDenseCopy(a)
			if err != nil {
				t.Fatalf("case %d: ToDenseCopy(%v): %v", i, a.Dims(), err)
			}
			sameElements(t, c, a)
		}
	}
}
