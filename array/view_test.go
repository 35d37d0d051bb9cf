package array

import (
	"errors"
	"testing"
)

func TestView(t *testing.T) {
	root := func() *Array[int32] { // 4 columns × 3 rows × 2 planes, element = storage index
		a := New[int32](4, 3, 2)
		for i := range a.data {
			a.data[i] = int32(i)
		}
		return a
	}
	for _, tc := range []struct {
		name string
		of   func(a *Array[int32]) *Array[int32]
		off  int
		dims []Dim
		want []int32 // elements in View order; nil: refused
		err  error
	}{
		{name: "reshape 2×12", dims: []Dim{{0, 12, 1}, {0, 2, 12}}, want: seq(0, 24)},
		{name: "row-major transpose", dims: []Dim{{0, 3, 4}, {0, 4, 1}, {0, 2, 12}}, want: []int32{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23}},
		{name: "permuted crop", off: 13, dims: []Dim{{5, 2, 4}, {-1, 2, 1}}, want: []int32{13, 17, 14, 18}},
		{name: "rows 1-2 of plane 0 as one run", off: 4, dims: []Dim{{0, 8, 1}}, want: seq(4, 12)},
		{name: "not a box: rows across planes", off: 8, dims: []Dim{{0, 8, 1}}, err: ErrShape},
		{name: "empty", off: 1 << 40, dims: []Dim{{0, 0, 1}}, want: []int32{}},
		{name: "of a crop", of: func(a *Array[int32]) *Array[int32] { return a.Crop(1, 1, 2) }, dims: []Dim{{0, 4, 1}, {0, 2, 4}}, want: seq(4, 12)},
		{name: "not a box: columns 1-2 as a run", off: 1, dims: []Dim{{0, 6, 1}}, err: ErrShape},
		{name: "not a box: stride 2", dims: []Dim{{0, 2, 2}}, err: ErrShape},
		{name: "aliasing", dims: []Dim{{0, 4, 1}, {0, 4, 1}}, err: ErrShape},
		{name: "past the storage", off: 20, dims: []Dim{{0, 5, 1}}, err: ErrOutOfRange},
		{name: "negative offset", off: -1, dims: []Dim{{0, 1, 1}}, err: ErrOutOfRange},
		{name: "offset overflow", off: 1<<63 - 1, dims: []Dim{{0, 1, 1}}, err: ErrOutOfRange},
		{name: "extent overflow", dims: []Dim{{0, 1 << 62, 1 << 2}, {0, 8, 1}}, err: ErrShape},
		{name: "outside the crop it views", of: func(a *Array[int32]) *Array[int32] { return a.Crop(1, 1, 1) }, dims: []Dim{{0, 8, 1}}, err: ErrOutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := root()
			if tc.of != nil {
				a = tc.of(a)
			}
			v, err := a.View(tc.off, tc.dims)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("View = %v, want an error wrapping %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h, err := v.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			got := []int32{}
			for x := range h.Values() {
				got = append(got, x)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func seq(lo, hi int32) []int32 {
	s := []int32{}
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// FuzzView feeds View an offset and dims anywhere in int64 over a crop of
// a 3-D root: it errs with ErrShape or ErrOutOfRange, or its view lies in
// the crop's elements, addresses each at most once, and is exactly the
// box of root positions that dirty state will record for it.
func FuzzView(f *testing.F) {
	f.Add(int64(0), int64(0), int64(24), int64(1), int64(1), int64(1), uint8(0))
	f.Add(int64(13), int64(0), int64(2), int64(4), int64(2), int64(1), uint8(1))
	f.Add(int64(1<<62), int64(-5), int64(1<<62), int64(1<<62), int64(3), int64(-1), uint8(2))
	f.Fuzz(func(t *testing.T, off, min, e0, s0, e1, s1 int64, crop uint8) {
		a := New[uint16](5, 4, 3)
		if crop%2 == 1 {
			a = a.Crop(0, 1, 3).Crop(2, 1, 2)
		}
		v, err := a.View(int(off), []Dim{{int(min), int(e0), int(s0)}, {0, int(e1), int(s1)}})
		if err != nil {
			if !errors.Is(err, ErrShape) && !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("View: %v", err)
			}
			return
		}
		if v.Len() == 0 {
			return
		}
		if v.Len() > len(a.data) {
			t.Fatalf("view of %d elements over %d", v.Len(), len(a.data))
		}
		b := v.raw.box(nil)
		inA := a.raw.box(nil)
		seen := map[int]bool{}
		pos := make([]int, 3)
		v.raw.forEachIndex(func(i int) {
			if i < 0 || i >= len(a.data) || seen[i] {
				t.Fatalf("view %v at %d: storage index %d outside or repeated", v.Dims(), v.raw.off, i)
			}
			seen[i] = true
			if !v.raw.st.exact(i, pos) {
				t.Fatalf("index %d is not a root position", i)
			}
			for k, p := range pos {
				if p < b[k].lo || p > b[k].hi || p < inA[k].lo || p > inA[k].hi {
					t.Fatalf("position %v outside the view's box %v or the crop's %v", pos, b, inA)
				}
			}
		})
		size := 1
		for _, s := range b {
			size *= s.hi - s.lo + 1
		}
		if size != len(seen) {
			t.Fatalf("view of %d elements, box of %d", len(seen), size)
		}
	})
}
