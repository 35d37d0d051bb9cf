package gorgonia_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
)

// Random permutations and crops of dense Arrays: every permutation maps to
// a Dense without copying, with the same elements, and back to the same
// Array layout; a crop either maps the same way or is refused with
// array.ErrLayout, and then ToDenseCopy holds the same elements.
func TestRandomLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		rank := 1 + r.IntN(4)
		extents := make([]int, rank)
		n := 1
		for k := range extents {
			extents[k] = 1 + r.IntN(4)
			n *= extents[k]
		}
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
