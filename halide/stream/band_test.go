package stream_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide/stream"
)

// Band cuts a region's outermost dimension into bands that cover every
// row once, in order, the first extent%bands one row longer, and leaves
// the other dimensions as they are.
func TestBand(t *testing.T) {
	for rows := 1; rows <= 23; rows++ {
		for bands := 1; bands <= rows; bands++ {
			region := []array.Dim{{Min: -2, Extent: 3, Stride: 1}, {Min: 7, Extent: rows, Stride: 3}}
			next := region[1].Min
			for k := range bands {
				b := stream.Cut{Bands: bands}.Band(region, k)
				if b[0] != region[0] || b[1].Min != next || b[1].Stride != 3 {
					t.Fatalf("%d rows in %d bands, band %d: %v", rows, bands, k, b)
				}
				if want := rows/bands + map[bool]int{true: 1}[k < rows%bands]; b[1].Extent != want {
					t.Fatalf("%d rows in %d bands, band %d: %d rows, want %d", rows, bands, k, b[1].Extent, want)
				}
				next += b[1].Extent
			}
			if next != region[1].Min+rows {
				t.Fatalf("%d rows in %d bands cover up to %d", rows, bands, next)
			}
		}
	}
}

// Reduce's Needs refuses outputs that are not one element of a band in
// range, and bands that leave one empty, with ErrChain.
func TestReduceNeeds(t *testing.T) {
	in := []array.Dim{{Extent: 4, Stride: 1}, {Extent: 3, Stride: 4}}
	step := stream.Reduce("sum", in, stream.Cut{Bands: 3}, func(out *array.Array[float32], in *array.Array[uint8]) error { return nil })
	if r, err := step.Needs([]array.Dim{{Min: 2, Extent: 1}}); err != nil || r[1].Min != 2 || r[1].Extent != 1 || r[0] != in[0] {
		t.Fatalf("band 2: %v, %v", r, err)
	}
	for _, out := range [][]array.Dim{{{Min: 3, Extent: 1}}, {{Min: -1, Extent: 1}}, {{Min: 0, Extent: 2}}, {{Extent: 1}, {Extent: 1}}} {
		if _, err := step.Needs(out); !errors.Is(err, stream.ErrChain) {
			t.Errorf("output %v: %v, want ErrChain", out, err)
		}
	}
	empty := stream.Reduce("sum", in, stream.Cut{Bands: 5}, func(out *array.Array[float32], in *array.Array[uint8]) error { return nil })
	if _, err := empty.Needs([]array.Dim{{Min: 4, Extent: 1}}); !errors.Is(err, stream.ErrChain) {
		t.Errorf("5 bands of 3 rows: %v, want ErrChain", err)
	}
}

// checkCut checks c's bands of a region of rows rows against the cut's
// model: they cover every row once, in order, none empty when there are
// rows enough; the middle bands differ by at most a row; and where the
// thin first or last band applies, those bands are the model's rows, no
// taller than a middle band.
func checkCut(t *testing.T, c stream.Cut, rows int) {
	t.Helper()
	region := []array.Dim{{Min: -2, Extent: 3, Stride: 1}, {Min: 7, Extent: rows, Stride: 3}}
	n := max(c.Bands, 1)
	next := region[1].Min
	ext := make([]int, n)
	for k := range n {
		b := c.Band(region, k)
		if b[0] != region[0] || b[1].Min != next || b[1].Stride != 3 || b[1].Extent < 0 {
			t.Fatalf("%+v of %d rows, band %d: %v (want it from row %d)", c, rows, k, b, next)
		}
		if rows >= n && b[1].Extent < 1 {
			t.Fatalf("%+v of %d rows, band %d is empty", c, rows, k)
		}
		ext[k] = b[1].Extent
		next += b[1].Extent
	}
	if next != region[1].Min+rows {
		t.Fatalf("%+v of %d rows covers up to row %d", c, rows, next)
	}
	// the model: a thin band (weight below 1) gets its share of the rows
	// by weight (two bands: rounded, the first takes the rest), at least
	// one; the others share the rest equally
	w := func(f float64) float64 {
		if f > 0 && f < 1 {
			return f
		}
		return 1
	}
	w0, w1 := w(c.First), w(c.Last)
	W := float64(n-2) + w0 + w1
	share := func(w float64) int {
		switch {
		case w == 1 || n < 2:
			return 0
		case n == 2:
			return max(1, int(math.Round(float64(rows)*w/W)))
		}
		return max(1, int(float64(rows)*w/W))
	}
	e0, e1 := share(w0), share(w1)
	if n == 2 && e0 > 0 && e1 > 0 {
		e0 = rows - e1
	}
	if rows-e0-e1 < n-b2i(e0 > 0)-b2i(e1 > 0) {
		e0, e1 = 0, 0 // too few rows: equal bands
	}
	mid := ext
	if e0 > 0 {
		if ext[0] != e0 {
			t.Fatalf("%+v of %d rows: bands %v, want the first %d rows", c, rows, ext, e0)
		}
		mid = mid[1:]
	}
	if e1 > 0 {
		if ext[n-1] != e1 {
			t.Fatalf("%+v of %d rows: bands %v, want the last %d rows", c, rows, ext, e1)
		}
		mid = mid[:len(mid)-1]
	}
	if len(mid) > 0 && slices.Max(mid)-slices.Min(mid) > 1 {
		t.Fatalf("%+v of %d rows: bands %v: the equal ones differ by more than a row", c, rows, ext)
	}
	if n > 2 && len(mid) > 0 && max(e0, e1) > slices.Max(mid) {
		t.Fatalf("%+v of %d rows: bands %v: a thin band is taller than the others", c, rows, ext)
	}
	if n == 2 && e0 > 0 && e1 > 0 && (w1 < w0 && e1 > e0 || w0 < w1 && e0 > e1) {
		t.Fatalf("%+v of %d rows: bands %v, the thinner one taller", c, rows, ext)
	}
}

// Cuts drawn at random (band counts from 1 to past the rows, first and
// last fractions in and out of (0, 1), NaN and infinities among them)
// against the model.
func TestCut(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 11))
	odd := []float64{0, -0.5, 1, 1.5, math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, math.Nextafter(1, 0)}
	frac := func() float64 {
		if r.IntN(4) == 0 {
			return odd[r.IntN(len(odd))]
		}
		return r.Float64()
	}
	for range 20000 {
		rows := 1 + r.IntN(300)
		checkCut(t, stream.Cut{Bands: 1 + r.IntN(rows+3), First: frac(), Last: frac()}, rows)
	}
}

// FuzzCut: any band count, fractions and row count in range cut by the
// model.
func FuzzCut(f *testing.F) {
	f.Add(int64(4096), int64(4), 0.5, 0.25)
	f.Add(int64(7), int64(6), 0.01, 1.0)
	f.Add(int64(1), int64(1), 0.9, 0.0)
	f.Add(int64(4096), int64(2), 0.0, 0.125)
	f.Fuzz(func(t *testing.T, rows, bands int64, first, last float64) {
		if rows < 1 || rows > 1<<20 || bands < 1 || bands > rows+5 {
			t.Skip()
		}
		checkCut(t, stream.Cut{Bands: int(bands), First: first, Last: last}, int(rows))
	})
}
