package ops

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// TestTopKFilter: TopK of few from many (topLines' one pass) against the
// reference order, over drawn element types, layouts, line counts and
// lengths and value patterns: rising lines make every element a
// candidate, falling ones almost none, negative ones order by the keys'
// flipped bits (+0 before −0), and few values with NaNs, ±0 and ±Inf test
// the tie order and NaNs' own bits. Counters show that each line
// took the filter, and the few long ones the pool's chunks.
func TestTopKFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 36))
	for c := range 50 {
		switch c % 5 {
		case 0:
			topKCase[float32](t, r)
		case 1:
			topKCase[float64](t, r)
		case 2:
			topKCase[int32](t, r)
		case 3:
			topKCase[uint8](t, r)
		default:
			topKCase[array.Float16](t, r)
		}
	}
}

func topKCase[T array.Elem](t *testing.T, r *rand.Rand) {
	t.Helper()
	rows := 1 + r.IntN(workers()+2)
	L := 17 + r.IntN(3<<15)
	if rows > 2 {
		L = 17 + r.IntN(5000)
	}
	k := 1 + r.IntN((L-1)/16)
	dim := r.IntN(2)
	ext := []int{L, rows}
	if dim == 1 {
		ext = []int{rows, L}
	}
	pattern := r.IntN(5)
	val := func(x float64) T {
		switch kindOf[T]() {
		case kHalf:
			return fromF32[T](float32(x))
		case kFloat:
			return T(x)
		}
		return T(math.Min(math.Max(math.Round(x), 0), 120)) // every type's range
	}
	pos := 0
	a := makeView(r, layouts[r.IntN(len(layouts))], ext, func() T {
		i := pos / ext[0] // the line's coordinate along dim 0, or the row
		if dim == 0 {
			i = pos % ext[0]
		}
		pos++
		switch pattern {
		case 0:
			return val(r.NormFloat64()*30 + 60)
		case 1: // rising: every element a candidate
			return val(float64(i) * 120 / float64(L))
		case 2: // falling
			return val(120 - float64(i)*120/float64(L))
		case 3: // negative: the best are nearest 0, +0 before −0
			switch r.IntN(40) {
			case 0:
				return val(math.Copysign(0, -1))
			case 1:
				return val(0)
			}
			return val(-math.Abs(r.NormFloat64()) * 30)
		}
		switch x := r.IntN(40); {
		case x == 0:
			return val(math.NaN())
		case x == 1:
			return val(math.Inf(1 - 2*r.IntN(2)))
		case x == 2:
			return val(math.Copysign(0, -1))
		default:
			return val(float64(r.IntN(7)))
		}
	})
	vext := append([]int(nil), ext...)
	vext[dim] = k
	vals, idx := array.New[T](vext...), array.New[int64](vext...)
	f0, s0 := topFiltered.Load(), topSplit.Load()
	if err := TopK(vals, idx, a, axisOf(dim)); err != nil {
		t.Fatal(err)
	}
	if got := topFiltered.Load() - f0; got != int64(rows) {
		t.Fatalf("%s %v along %d, k %d: %d lines took the filter, want %d", typeName[T](), ext, dim, k, got, rows)
	}
	wantSplit := 0
	if rows < workers() && L >= 2*topGrain {
		wantSplit = rows
	}
	if got := topSplit.Load() - s0; got != int64(wantSplit) {
		t.Fatalf("%s %v along %d: %d lines split over the pool, want %d", typeName[T](), ext, dim, got, wantSplit)
	}
	h, _ := a.HostReadOnly()
	vh, _ := vals.HostReadOnly()
	ih, _ := idx.HostReadOnly()
	am, vm := a.Dims()[dim].Min, vals.Dims()[dim].Min
	line := make([]T, L)
	for row := range rows {
		at := func(m, i int) []int {
			if dim == 0 {
				return []int{m + i, a.Dims()[1].Min + row}
			}
			return []int{a.Dims()[0].Min + row, m + i}
		}
		for i := range L {
			line[i] = h.At(at(am, i)...)
		}
		want := drefOrder(line, true)[:k]
		for q, w := range want {
			c := at(vm, q)
			c[1-dim] -= a.Dims()[1-dim].Min // vals and idx are dense from 0
			gv, gi := vh.At(c...), ih.At(c...)
			if gi != int64(w+am) || rawBits[T, uint64](gv) != rawBits[T, uint64](line[w]) {
				t.Fatalf("%s %v along %d, k %d, pattern %d, row %d, slot %d: got %v at %d, want %v at %d",
					typeName[T](), ext, dim, k, pattern, row, q, gv, gi, line[w], w+am)
			}
		}
	}
}

// TestTopKCut: the pass-over rules at their edges, run in one order on
// one goroutine. A key one above the k-th best kept (cut itself) must be
// kept; and chunks that read a bar published by a later chunk, at their
// start or at a prune, must keep their keys equal to it (they rank ahead
// by index).
func TestTopKCut(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 37))
	cases := 200
	if raceEnabled { // one goroutine: nothing to watch, a quarter of the draws
		cases = 50
	}
	for range cases {
		k := 1 + r.IntN(40)
		var probe topSel[uint32]
		probe.reset(k, nil, 1<<30)
		c := cap(probe.p) // the first prune's point
		// 0 … c−1, then c−k+1: above the k-th best after that prune
		xs := make([]float32, c+1+r.IntN(300))
		for i := range xs {
			xs[i] = float32(min(i, c-k+1) - 1000*max(0, i-c))
		}
		xs[c] = float32(c - k + 1)
		checkTopChunks[float32, uint32](t, xs, k, []int{0, len(xs)}, false)

		// few values, many ties; chunks scanned last first, sharing a bar.
		// 5 is common in the last chunk (the bar) and rare in some
		// others: their own k-th best stays below the bar, and their 5s
		// rank ahead of the last chunk's.
		n := 2 + r.IntN(5)
		bounds := []int{0}
		for range n {
			bounds = append(bounds, bounds[len(bounds)-1]+c+r.IntN(2000))
		}
		ys := make([]float32, bounds[n])
		zs := make([]float64, bounds[n])
		for q := range n {
			p5 := 0.3
			if q < n-1 && r.IntN(2) == 0 {
				p5 = float64(k) / float64(4*c)
			}
			for i := bounds[q]; i < bounds[q+1]; i++ {
				ys[i] = float32(r.IntN(5))
				if r.Float64() < p5 {
					ys[i] = 5
				}
				zs[i] = float64(ys[i])
			}
		}
		for _, early := range []bool{false, true} {
			checkTopChunks[float32, uint32](t, ys, k, bounds, early)
			checkTopChunks[float64, uint64](t, zs, k, bounds, early)
		}
		// chunks shorter than k (their buffers hold the chunk, no more)
		short := []int{0}
		for short[len(short)-1] < len(ys) {
			short = append(short, min(len(ys), short[len(short)-1]+1+r.IntN(2*k)))
		}
		checkTopChunks[float32, uint32](t, ys, k, short, r.IntN(2) == 0)
	}
}

// checkTopChunks selects the best k of xs from the chunks between bounds,
// scanned from the last to the first with one bar, and compares them
// with the reference order. With early, every chunk starts (reads the bar)
// before any scans, as on a pool where all begin at once; else each starts
// after the later ones finish.
func checkTopChunks[T array.Elem, K ukey](t *testing.T, xs []T, k int, bounds []int, early bool) {
	t.Helper()
	var bar atomic.Uint64
	sels := make([]topSel[K], len(bounds)-1)
	for c := range sels {
		if early {
			sels[c].reset(k, &bar, bounds[c+1]-bounds[c])
		}
	}
	var all topSel[K]
	all.reset(k, nil, 1<<30)
	for c := len(sels) - 1; c >= 0; c-- {
		s := &sels[c]
		if !early {
			s.reset(k, &bar, bounds[c+1]-bounds[c])
		}
		topScan(s, xs, 1, bounds[c], bounds[c+1])
		s.prune()
		all.p = append(all.p, s.p...)
	}
	got := all.best()
	for q, w := range drefOrder(xs, true)[:k] {
		if int(got[q].i) != w {
			t.Fatalf("k %d, %d chunks (early %v), slot %d: got index %d (%v), want %d (%v)", k, len(sels), early, q, got[q].i, xs[got[q].i], w, xs[w])
		}
	}
}
