package array

import "testing"

// FuzzViews applies a random sequence of views and checks that every
// addressable element lies inside the root allocation and that a view's
// elements are the parent's elements at the same coordinates.
func FuzzViews(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{3, 3, 3, 1, 0, 0, 2, 1, 1})
	f.Add([]byte{6, 0, 2, 5, 1, 7, 4, 4, 4, 4, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		a := New[int32](5, 4, 3)
		h, _ := a.Host()
		a.raw.ForEach(func(c []int) { h.Set(int32(c[0]+10*c[1]+100*c[2]), c...) })
		root := len(a.data)
		v := a
		next := func() int {
			if len(ops) == 0 {
				return 0
			}
			b := int(ops[0])
			ops = ops[1:]
			return b
		}
		for len(ops) > 0 && v.Rank() > 0 {
			op, dim := next()%7, next()%v.Rank()
			d := v.Dim(dim)
			var w *Array[int32]
			switch op {
			case 0:
				lo := d.Min + next()%max(d.Extent, 1)
				w = v.Crop(dim, lo, next()%(d.Max()-lo+2))
			case 1:
				if d.Extent == 0 {
					continue
				}
				w = v.Slice(dim, d.Min+next()%d.Extent)
			case 2:
				w = v.Transpose(dim, next()%v.Rank())
			case 3:
				w = v.Translate(dim, next()-128)
			case 4:
				w = v.Embed(next()%(v.Rank()+1), next()-128)
			case 5:
				mins := make([]int, v.Rank())
				for i := range mins {
					mins[i] = next() - 100
				}
				w = v.SetMin(mins...)
			case 6:
				order := make([]int, v.Rank())
				for i := range order {
					order[i] = (i + dim) % v.Rank()
				}
				w = v.Permute(order...)
			}
			// Every element of w lies in the root and holds a value of a.
			hw, _ := w.HostReadOnly()
			w.raw.ForEach(func(c []int) {
				i := w.raw.index(c)
				if i < 0 || i >= root {
					t.Fatalf("element %v of %v at %d, outside [0, %d)", c, w.Dims(), i, root)
				}
				x := hw.At(c...)
				if x < 0 || x%10 > 4 || x/10%10 > 3 || x/100 > 2 {
					t.Fatalf("element %v holds %d, not one of a's values", c, x)
				}
			})
			if w.raw.spanElems() > 0 && w.raw.off+w.raw.spanElems() > root {
				t.Fatalf("span of %v ends at %d past %d", w.Dims(), w.raw.off+w.raw.spanElems(), root)
			}
			v = w
		}
	})
}
