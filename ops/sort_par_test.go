package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// TestSortParallelLines: a line of parSortMin elements or more, with
// fewer lines than workers, is sorted by the whole pool (counted), and
// Sort and ArgSort agree with the stable model (drefOrder) over drawn
// types, lengths, strides, value spreads (every digit varies; a top
// digit all share; ties and ±0; one value), NaNs, and in-place sorts.
func TestSortParallelLines(t *testing.T) {
	if workers() < 2 {
		t.Skip("one worker: lines are sorted one per worker")
	}
	defer func(m int) { parSortValuesMin = m }(parSortValuesMin)
	parSortValuesMin = 2 // Sort too on 2 cores
	r := rand.New(rand.NewPCG(draw.Seed(t), 9))
	for c := range 4 {
		checkParSort(t, r, c, func(sp int) float32 { return float32(drawSortValue(r, sp)) })
		checkParSort(t, r, c, func(sp int) float64 { return drawSortValue(r, sp) })
		checkParSort(t, r, c, func(sp int) array.Float16 { return array.F16(float32(drawSortValue(r, sp))) })
		checkParSort(t, r, c, func(sp int) int32 { sp = min(sp, 3); return int32(r.IntN(1<<(8*(sp+1))) - 1<<(8*sp+7)) })
		checkParSort(t, r, c, func(sp int) int8 { return int8(r.IntN(256) - 128) })
	}
}

// drawSortValue draws a value of spread sp: 0 every byte differs, 1 sign
// and exponent shared, 2 few values with ±0 (1% of these are NaN), 3 one
// value (the keys are all equal: no bucket pass), 4 normal values with
// rare ±1e30 and ±Inf, which the buckets' sample most likely misses (they
// fall in the end buckets).
func drawSortValue(r *rand.Rand, sp int) float64 {
	if sp == 3 {
		return 1.5
	}
	if sp == 4 {
		switch r.IntN(20000) {
		case 0:
			return math.Copysign(1e30, r.NormFloat64())
		case 1:
			return math.Inf(1 - 2*r.IntN(2))
		}
		return r.NormFloat64()
	}
	if r.IntN(100) == 0 {
		return math.NaN()
	}
	switch sp {
	case 0:
		return r.NormFloat64() * 1e3
	case 1:
		return 1 + r.Float64()
	}
	x := float64(r.IntN(5)-2) * 0.5
	if x == 0 && r.IntN(2) == 0 {
		x = math.Copysign(0, -1)
	}
	return x
}

func checkParSort[T array.Elem](t *testing.T, r *rand.Rand, c int, gen func(spread int) T) {
	t.Helper()
	L, stride, sp := parSortMin+r.IntN(2*parSortMin), 1+r.IntN(2), r.IntN(5)
	buf := make([]T, L*stride)
	xs := make([]T, L)
	for i := range xs {
		xs[i] = gen(sp)
		buf[i*stride] = xs[i]
	}
	// one column, NumPy shape (L, 1): of (L, 1), or of (L, 2) cropped
	// (stride 2); extents here are dimension 0 first
	a := array.FromSlice(buf, stride, L).Crop(0, 0, 1)
	order := drefOrder(xs, false)
	before := parSorted.Load()
	idx := array.New[int64](1, L)
	if err := ArgSort(idx, a, 0); err != nil {
		t.Fatal(err)
	}
	dst := a
	if r.IntN(2) == 0 {
		dst = array.New[T](1, L)
	}
	if err := Sort(dst, a, 0); err != nil {
		t.Fatal(err)
	}
	if n := parSorted.Load() - before; n != 2 {
		t.Fatalf("%T case %d: %d of 2 lines of %d took the pool-wide sort", xs[0], c, n, L)
	}
	iv, _ := idx.HostReadOnly()
	dv, _ := dst.HostReadOnly()
	for q, i := range order {
		if got := iv.At(0, q); got != int64(i) {
			t.Fatalf("%T case %d (L %d, stride %d, spread %d): ArgSort slot %d is %d, want %d", xs[0], c, L, stride, sp, q, got, i)
		}
		if got := dv.At(0, q); !same(got, xs[i]) {
			t.Fatalf("%T case %d (L %d, stride %d, spread %d): Sort slot %d is %v, want %v", xs[0], c, L, stride, sp, q, got, xs[i])
		}
	}
}
