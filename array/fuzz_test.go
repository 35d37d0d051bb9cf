package array

import (
	"errors"
	"fmt"
	"testing"
)

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
		a.raw.forEach(func(c []int) { h.Set(int32(c[0]+10*c[1]+100*c[2]), c...) })
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
			w.raw.forEach(func(c []int) {
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

// FuzzLayout feeds view and constructor arithmetic arguments anywhere in
// int64: each call either panics with ErrShape or ErrOutOfRange, or
// returns a view whose every element, span included, lies inside its
// storage.
func FuzzLayout(f *testing.F) {
	f.Add(int64(1), int64(1<<62), int64(1<<62+1<<20), int64(0), uint8(0))
	f.Add(int64(0), int64(-1<<63), int64(5), int64(1<<63-1), uint8(1))
	f.Add(int64(4), int64(1<<62+1), int64(3), int64(-7), uint8(2))
	f.Add(int64(1), int64(2), int64(3), int64(1<<63-1), uint8(3))
	f.Fuzz(func(t *testing.T, x, y, z, w int64, op uint8) {
		defer func() {
			if e := recover(); e != nil {
				err, _ := e.(error)
				if !errors.Is(err, ErrShape) && !errors.Is(err, ErrOutOfRange) {
					t.Fatalf("op %d (%d, %d, %d, %d): panic %v", op%6, x, y, z, w, e)
				}
			}
		}()
		a := NewWithMins[uint8]([]int{-3, 5}, []int{16, 16})
		var v *Array[uint8]
		switch op % 6 {
		case 0:
			v = a.Crop(int(x), int(y), int(z))
		case 1:
			v = a.Translate(int(x)&1, int(w)).Crop(int(x)&1, int(y), int(z))
		case 2:
			v = New[uint8](int(x)&0xff, int(y))
		case 3:
			v = a.SetMin(int(y), int(w)).Crop(0, int(z), 2)
		case 4:
			v = a.Embed(int(x)&3, int(w)).Slice(int(y)&3, int(z))
		case 5:
			d, err := Wrap(make([]uint8, 256), []Dim{{int(x), int(y), int(z) & 0xffff}, {0, int(w) & 0xff, 16}})
			if err != nil {
				if !errors.Is(err, ErrShape) && !errors.Is(err, ErrOutOfRange) {
					t.Fatal(err)
				}
				return
			}
			v = d
		}
		n := len(v.data)
		if v.Len() == 0 {
			return
		}
		if s := v.raw.spanElems(); v.raw.off < 0 || s > n || v.raw.off > n-s {
			t.Fatalf("op %d: view %v at %d spans %d of %d elements", op%6, v.Dims(), v.raw.off, s, n)
		}
	})
}

func TestLayoutOverflow(t *testing.T) {
	for name, f := range map[string]func(){
		"crop past the end": func() { New[uint8](16, 16).Crop(1, 1<<62, 1<<62+1<<20) },
		"count overflow":    func() { New[uint8](4, 1<<62+1) },
		"translate":         func() { New[uint8](4).Translate(0, 1<<63-2) },
		"setmin":            func() { New[uint8](4).SetMin(1<<63 - 2) },
		"embed":             func() { New[uint8](4).Embed(0, 1<<63-1) },
		"wrap alias":        func() { _, err := Wrap(make([]uint8, 64), []Dim{{0, 8, 1}, {0, 8, 4}}); panic(err) },
		"wrap overflow":     func() { _, err := Wrap(make([]uint8, 64), []Dim{{0, 8, 1}, {0, 1 << 60, 1 << 10}}); panic(err) },
		"permute 65-D": func() {
			ext := make([]int, 65)
			order := make([]int, 65)
			for i := range ext {
				ext[i], order[i] = 1, i
			}
			order[64] = 3 // dimension 3 twice, 64 never
			New[uint8](ext...).Permute(order...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, ErrShape) && !errors.Is(err, ErrOutOfRange) {
					t.Fatalf("got %v, want ErrShape or ErrOutOfRange", err)
				}
			}()
			f()
		})
	}
}

// TestSplitTooMany: Split of a broadcast view (stride 0, so any extent
// fits in one element) into more views than a Go slice can hold panics
// with ErrShape, as New does for storage, not with the runtime's
// makeslice panic.
func TestSplitTooMany(t *testing.T) {
	for _, c := range []struct{ extent, n int }{
		{1 << 62, 1 << 62},
		{maxInt, maxInt},
		{1 << 47, 1 << 47},
		{1 << 50, 1 << 48},
		{3 << 40, 3 << 40},
	} {
		t.Run(fmt.Sprint(c.extent, "/", c.n), func(t *testing.T) {
			v, err := Scalar[float32](1).BroadcastTo(c.extent)
			if err != nil {
				t.Fatal(err)
			}
			mustPanic(t, ErrShape, func() { v.Split(c.n, 0) })
		})
	}
}

// FuzzSplit: Split of a broadcast view of any int64 extent into any int64
// count gives count views whose extents add up, or panics with ErrShape or
// ErrOutOfRange, never another panic. Counts that fit the bound but would
// really take gigabytes are skipped.
func FuzzSplit(f *testing.F) {
	f.Add(int64(12), int64(3))
	f.Add(int64(1<<62), int64(1<<62))
	f.Add(int64(maxInt), int64(1))
	f.Add(int64(0), int64(1))
	f.Add(int64(7), int64(-1))
	f.Fuzz(func(t *testing.T, extent, n int64) {
		if extent < 0 {
			return // a shape mistake: BroadcastTo panics
		}
		v, err := Scalar[float32](1).BroadcastTo(int(extent))
		if err != nil {
			t.Fatal(err)
		}
		if n > 1<<12 && n <= int64(maxSplit[float32]()) && extent%n == 0 {
			t.Skip("a count that fits the bound: gigabytes of views")
		}
		var parts []*Array[float32]
		func() {
			defer func() {
				if r := recover(); r != nil {
					err, _ := r.(error)
					if !errors.Is(err, ErrShape) && !errors.Is(err, ErrOutOfRange) {
						t.Fatalf("Split(%d) of extent %d panicked with %v, want ErrShape or ErrOutOfRange", n, extent, r)
					}
				}
			}()
			parts = v.Split(int(n), 0)
		}()
		if parts == nil {
			return
		}
		sum := 0
		for _, p := range parts {
			sum += p.Dim(0).Extent
		}
		if int64(len(parts)) != n || sum != int(extent) {
			t.Fatalf("Split(%d) of extent %d: %d views of %d elements in all", n, extent, len(parts), sum)
		}
	})
}
