package ops

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// TopK of few from many (k·16 < the line's extent): one pass keeps
// candidates, not the whole line's keys. A key at or below the k-th best
// kept so far cannot be in the result (a later equal key loses the tie to
// the lower index), so once k are kept almost every element costs one
// comparison; float32 lines skip 32 elements a step below that threshold
// (aboveF32). Stop 56 measured the gather-everything-then-heap way at
// 0.30-0.43 ms for 100 of 2^16 on 16 cores, NumPy 2's partition 0.075.
// Lines shorter than that, and k near the extent, take sortLine's way.

// topPair is a candidate: its key (NaNs: all ones, above every number)
// and index.
type topPair[K ukey] struct {
	key K
	i   uint32
}

// ahead orders candidates: the greater key, then the lower index.
func ahead[K ukey](a, b topPair[K]) bool { return a.key > b.key || a.key == b.key && a.i < b.i }

// topSel keeps one scan's candidates: up to cap(p), pruned to the best k
// when full. Keys below cut are passed over: after a prune, a key at or
// below the k-th best kept (a later equal key loses the tie to the lower
// index). Chunks of one line share bar, the greatest k-th best key any of
// them has pruned to: a key below it cannot be among the line's best k.
type topSel[K ukey] struct {
	p    []topPair[K]
	k    int
	cut  K
	done bool           // k NaNs kept: nothing later is better
	bar  *atomic.Uint64 // nil: not shared
}

// reset readies t for a scan of at most m elements: a buffer of 2k+256
// candidates, or m (a long line's chunk holds no more; 64 chunks of 2k+256
// took 16 times the line's size for k near L/16).
func (t *topSel[K]) reset(k int, bar *atomic.Uint64, m int) {
	if c := min(2*k+256, m); cap(t.p) < c {
		t.p = make([]topPair[K], 0, c)
	}
	t.p, t.k, t.cut, t.done, t.bar = t.p[:0], k, 0, false, bar
	if bar != nil {
		t.cut = K(bar.Load())
	}
}

// push adds a candidate; it reports whether that pruned (cut changed).
func (t *topSel[K]) push(key K, i uint32) bool {
	t.p = append(t.p, topPair[K]{key, i})
	if len(t.p) == cap(t.p) {
		t.prune()
		return true
	}
	return false
}

// prune keeps the best k candidates and raises cut (and bar).
func (t *topSel[K]) prune() {
	if len(t.p) <= t.k {
		return
	}
	selectBest(t.p, t.k)
	t.p = t.p[:t.k]
	thr := t.p[0].key
	for _, c := range t.p[1:] {
		thr = min(thr, c.key)
	}
	if t.bar != nil {
		for {
			b := t.bar.Load()
			if uint64(thr) <= b || t.bar.CompareAndSwap(b, uint64(thr)) {
				break
			}
		}
		t.cut = max(t.cut, K(t.bar.Load()))
	}
	if thr == ^K(0) {
		t.done = true
		return
	}
	t.cut = max(t.cut, thr+1)
}

// selectBest moves the k best candidates of p to its front, in no order:
// quickselect with a median-of-three pivot (indices differ, so no two
// candidates tie), insertion sort for short ranges.
func selectBest[K ukey](p []topPair[K], k int) {
	lo, hi := 0, len(p)
	for hi-lo > 16 {
		m := lo + (hi-lo)/2
		if ahead(p[m], p[lo]) {
			p[m], p[lo] = p[lo], p[m]
		}
		if ahead(p[hi-1], p[lo]) {
			p[hi-1], p[lo] = p[lo], p[hi-1]
		}
		if ahead(p[hi-1], p[m]) {
			p[hi-1], p[m] = p[m], p[hi-1]
		}
		// p[m] is the median: to the end, then the better ones before it
		p[m], p[hi-1] = p[hi-1], p[m]
		piv, s := p[hi-1], lo
		for i := lo; i < hi-1; i++ {
			if ahead(p[i], piv) {
				p[i], p[s] = p[s], p[i]
				s++
			}
		}
		p[s], p[hi-1] = p[hi-1], p[s]
		switch {
		case k < s:
			hi = s
		case k > s+1:
			lo = s + 1
		default:
			return
		}
	}
	for i := lo + 1; i < hi; i++ {
		for j := i; j > lo && ahead(p[j], p[j-1]); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// topScan adds the elements lo ≤ i < hi of s (stride sa) to t.
func topScan[T array.Elem, K ukey](t *topSel[K], s []T, sa, lo, hi int) {
	if x32, ok := any(s).([]float32); ok && sa == 1 {
		topScanF32(any(t).(*topSel[uint32]), x32, lo, hi)
		return
	}
	if x64, ok := any(s).([]float64); ok {
		topScanF64(any(t).(*topSel[uint64]), x64, sa, lo, hi)
		return
	}
	kd := kindOf[T]()
	for i := lo; i < hi && !t.done; i++ {
		x := s[i*sa]
		key := ^K(0)
		if !isNaN(kd, x) {
			key = keyOf[T, K](kd, x)
		}
		if key >= t.cut {
			t.push(key, uint32(i))
		}
	}
}

// topScanF32 is topScan for contiguous float32: once cut is set, the
// kernel finds the next element that may be at or above it.
func topScanF32(t *topSel[uint32], x []float32, lo, hi int) {
	cf := valueOf[float32](kFloat, t.cut) // cut's value
	for i := lo; i < hi && !t.done; {
		e := min(i+32, hi)
		if t.cut != 0 && useAsm {
			// a key at or above cut is a value ≥ cut's (−0 and +0
			// compare equal) or a NaN: a superset, checked exactly below
			i += aboveF32(unsafe.Pointer(&x[i]), hi-i, cf)
			if e = hi; hi-i >= 32 {
				e = i + 1 // that one
			}
		}
		for ; i < e; i++ {
			u := math.Float32bits(x[i])
			key := ^uint32(0)
			if u&0x7fffffff <= 0x7f800000 {
				key = keyF32(u)
			}
			if key >= t.cut && t.push(key, uint32(i)) {
				cf = valueOf[float32](kFloat, t.cut)
				if t.done {
					return
				}
			}
		}
	}
}

// topScanF64 is topScan for float64 in concrete code: the generic loop's
// per-element kind and size switches took 3 of its 6 ns an element.
func topScanF64(t *topSel[uint64], x []float64, sa, lo, hi int) {
	for i := lo; i < hi && !t.done; i++ {
		u := math.Float64bits(x[i*sa])
		key := ^uint64(0)
		if u&(1<<63-1) <= 0x7ff0000000000000 {
			key = u ^ (uint64(int64(u)>>63) | 1<<63) // keyF32's mapping
		}
		if key >= t.cut {
			t.push(key, uint32(i))
		}
	}
}

// topGrain is the fewest elements of a long line's chunk.
const topGrain = 1 << 14

// topFiltered counts the lines selected this way, topSplit those of them
// scanned by the whole pool, for the tests.
var topFiltered, topSplit atomic.Int64

// topScratch is a call's selections: one per chunk, and the merge.
type topScratch[K ukey] struct {
	sel [maxChunks]topSel[K]
	all topSel[K]
	bar atomic.Uint64
}

var topPools [3]sync.Pool

// topLines is TopK's way for k·16 < L: each line scanned once, many
// lines a worker each, few long ones cut into chunks over the pool whose
// candidates are merged.
func topLines[T array.Elem, K ukey](ls *lineSet, vb, ib, ab unsafe.Pointer) {
	pool := &topPools[min(sizeOf[K]()/4, 2)]
	sc, _ := pool.Get().(*topScratch[K])
	if sc == nil {
		sc = new(topScratch[K])
	}
	defer pool.Put(sc)
	if ls.lines() >= workers() || ls.L < 2*topGrain {
		ls.forLines(lineGrain, func(c int, off *[maxOps]int) {
			t := &sc.sel[c]
			t.reset(ls.k, nil, ls.L)
			topScan(t, span[T](ab, off[1], ls.L, ls.st[1]), ls.st[1], 0, ls.L)
			topEmit[T](ls, t, vb, ib, ab, off)
		}, nil)
		return
	}
	var off [maxOps]int
	j := getJob()
	defer putJob(j)
	forRows(&ls.n, 0, ls.lines(), &off, func(m int, o *[maxOps]int) {
		row := *o
		for range m {
			s := span[T](ab, row[1], ls.L, ls.st[1])
			sc.bar.Store(0)
			j.body = func(_ *job, c, lo, hi int) {
				t := &sc.sel[c]
				t.reset(ls.k, &sc.bar, hi-lo)
				topScan(t, s, ls.st[1], lo, hi)
				t.prune()
			}
			n := j.parallel(ls.L, topGrain)
			sc.all.reset(ls.k, nil, 2*ls.k+256)
			for c := range n {
				sc.all.p = append(sc.all.p, sc.sel[c].p...)
			}
			topEmit[T](ls, &sc.all, vb, ib, ab, &row)
			topSplit.Add(1)
			for k := range ls.n.nops {
				row[k] += ls.n.str[k][0]
			}
		}
	})
}

// best returns the best k candidates, best first.
func (t *topSel[K]) best() []topPair[K] {
	t.prune()
	p := t.p[:t.k]
	slices.SortFunc(p, func(a, b topPair[K]) int {
		switch {
		case ahead(a, b):
			return -1
		case ahead(b, a):
			return 1
		}
		return 0
	})
	return p
}

// topEmit writes the best k of t's candidates in order to the line at
// off: values (a NaN's own bits, read from a) and coordinates.
func topEmit[T array.Elem, K ukey](ls *lineSet, t *topSel[K], vb, ib, ab unsafe.Pointer, off *[maxOps]int) {
	p := t.best()
	if vb != nil {
		s := span[T](ab, off[1], ls.L, ls.st[1])
		vd := span[T](vb, off[0], ls.k, ls.st[0])
		kd := kindOf[T]()
		float := kd == kFloat || kd == kHalf
		for r, c := range p {
			if float && c.key == ^K(0) {
				vd[r*ls.st[0]] = s[int(c.i)*ls.st[1]]
			} else {
				vd[r*ls.st[0]] = valueOf[T](kd, c.key)
			}
		}
	}
	if ib != nil {
		id := span[int64](ib, off[2], ls.k, ls.st[2])
		for r, c := range p {
			id[r*ls.st[2]] = int64(c.i) + int64(ls.min)
		}
	}
	topFiltered.Add(1)
}
