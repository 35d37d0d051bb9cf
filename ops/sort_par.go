package ops

import (
	"math"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// A long line sorted on many cores. A line of 2^16 float32 took 0.8-1.1
// ms on one core of the 16-core Xeon, where NumPy 2's AVX-512 sort takes
// 0.25 ms, and with few lines there is no parallelism across them.
//
// One pass split over the pool moves the keys into buckets by their top
// msdBits varying bits (from the highest bit where any two keys differ
// down), each chunk's keys in order, so the pass is stable. Then each
// bucket is a run of its own, sorted on one worker by sortLine's radix
// sort (whose passes skip the digits a bucket's keys share). Splitting
// every radix pass over the pool instead took as long at 2^16 and 1.2x
// the time at 2^20 and 2^24 (bench/results/h100-2026-12-07-pool.txt).
// NaNs take the all-ones key, above every number's key, so they end last
// in index order, as sortLine sets them; a Sort writes their own bits
// back there.

// msdBits is the width of the bucket digit: 2048 buckets.
const msdBits = 11

// parSortMin is the shortest line sorted this way; shorter lines go to
// one worker each.
const parSortMin = 1 << 15

// parSortGrain is a chunk's fewest keys.
const parSortGrain = 1 << 12

// parSortValuesMin is the fewest workers that sort a long line's values
// (Sort) this way: it makes more passes than sortLine's, so on 2 cores a
// Sort of 2^16 or 2^20 float32 took 1.0-1.2x sortLine's time, while an
// ArgSort took 0.6-0.8x. A variable, so that the tests reach the path on
// 2 cores.
var parSortValuesMin = 4

// parSortScratch is a call's per-chunk tallies: bucket counts (then
// first slots), NaNs, the bits where keys differ and the first key.
type parSortScratch struct {
	hist  [maxChunks][1 << msdBits]uint32
	nans  [maxChunks]int
	diff  [maxChunks]uint64
	first [maxChunks]uint64
	start [1<<msdBits + 1]int // each bucket's first slot in the line
}

var parSortPool = sync.Pool{New: func() any { return new(parSortScratch) }}

// parSorted counts the lines sorted this way, for the tests.
var parSorted atomic.Int64

// sortLinesParallel sorts ls's lines one after another, each with the
// whole pool, for Sort and ArgSort of few long lines; it reports false
// (and does nothing) where sortLine's way is faster: short lines, lines
// enough for every worker, one worker, or TopK.
func sortLinesParallel[T array.Elem, K ukey](mode sortMode, ls *lineSet, vb, ib, ab unsafe.Pointer) bool {
	nw := workers()
	if mode == sortTop || ls.L < parSortMin || nw < 2 || ls.lines() >= nw || mode == sortValues && nw < parSortValuesMin {
		return false
	}
	b := getSortBuf[K](ls.L)
	sc := parSortPool.Get().(*parSortScratch)
	var off [maxOps]int
	forRows(&ls.n, 0, ls.lines(), &off, func(m int, o *[maxOps]int) {
		row := *o
		for range m {
			sortLongLine[T](mode, ls, b, sc, vb, ib, ab, &row)
			parSorted.Add(1)
			for k := range ls.n.nops {
				row[k] += ls.n.str[k][0]
			}
		}
	})
	parSortPool.Put(sc)
	putSortBuf(b)
	return true
}

// sortLongLine sorts the line at off with the pool.
func sortLongLine[T array.Elem, K ukey](mode sortMode, ls *lineSet, b *sortBuf[K], sc *parSortScratch, vb, ib, ab unsafe.Pointer, off *[maxOps]int) {
	L, sa := ls.L, ls.st[1]
	s := span[T](ab, off[1], L, sa)
	withIdx := mode != sortValues
	keys, kt, ix, it := b.k0[:L], b.k1[:L], b.i0[:L], b.i1[:L]
	nb := b.nb[:L] // a chunk's NaN bits from its first slot on (Sort)
	j := getJob()
	defer putJob(j)

	// keys, indices and the NaNs' bits, and where the keys differ
	j.body = func(_ *job, c, lo, hi int) {
		q := 0
		x32, f32 := any(s).([]float32)
		f32 = f32 && sa == 1
		k0 := K(0)
		var diff K
		for i := lo; i < hi; i++ {
			var k K
			if f32 {
				u := math.Float32bits(x32[i])
				if u&0x7fffffff > 0x7f800000 {
					nb[lo+q], k = K(u), ^K(0)
					q++
				} else {
					k = K(keyF32(u))
				}
			} else if x := s[i*sa]; isNaN(kindOf[T](), x) {
				nb[lo+q], k = rawBits[T, K](x), ^K(0)
				q++
			} else {
				k = keyOf[T, K](x)
			}
			if i == lo {
				k0 = k
			}
			diff |= k ^ k0
			keys[i] = k
			if withIdx {
				ix[i] = uint32(i)
			}
		}
		sc.nans[c], sc.diff[c], sc.first[c] = q, uint64(diff), uint64(k0)
	}
	n := j.parallel(L, parSortGrain)
	var diff uint64
	for c := range n {
		diff |= sc.diff[c] | (sc.first[c] ^ sc.first[0])
	}

	// the NaNs' bits in index order: they go after the numbers
	nn := 0
	for c := range n {
		lo := L * c / n
		nn += copy(nb[nn:], nb[lo:lo+sc.nans[c]])
	}
	if diff != 0 { // else every key is the same: in order already
		sh := uint(max(0, bits.Len64(diff)-msdBits))
		bucket := func(k K) uint32 { return uint32(uint64(k)>>sh) & (1<<msdBits - 1) }
		j.body = func(_ *job, c, lo, hi int) {
			h := &sc.hist[c]
			*h = [1 << msdBits]uint32{}
			for _, k := range keys[lo:hi] {
				h[bucket(k)]++
			}
		}
		j.parallel(L, parSortGrain)
		// each chunk's first slot per bucket: by bucket, then chunk
		var base uint32
		for v := range 1 << msdBits {
			sc.start[v] = int(base)
			for c := range n {
				m := sc.hist[c][v]
				sc.hist[c][v] = base
				base += m
			}
		}
		sc.start[1<<msdBits] = L
		j.body = func(_ *job, c, lo, hi int) {
			h := &sc.hist[c]
			if !withIdx {
				for _, k := range keys[lo:hi] {
					p := h[bucket(k)]
					h[bucket(k)] = p + 1
					kt[p] = k
				}
				return
			}
			for i := lo; i < hi; i++ {
				k := keys[i]
				p := h[bucket(k)]
				h[bucket(k)] = p + 1
				kt[p], it[p] = k, ix[i]
			}
		}
		j.parallel(L, parSortGrain)
		// each bucket on one worker: the buckets that start in a chunk's
		// span, sorted into kt and it (keys and ix are their scratch)
		j.body = func(_ *job, _, lo, hi int) {
			v := sort.SearchInts(sc.start[:], lo)
			for ; v < 1<<msdBits && sc.start[v] < hi; v++ {
				p, e := sc.start[v], sc.start[v+1]
				if e-p < 2 {
					continue
				}
				rk, ri := radixSort(kt[p:e], keys[p:e], it[p:e], ix[p:e], withIdx, 8*sizeOf[T]())
				if &rk[0] != &kt[p] {
					copy(kt[p:e], rk)
					if withIdx {
						copy(it[p:e], ri)
					}
				}
			}
		}
		j.parallel(L, parSortGrain)
		keys, ix = kt, it
	}

	m := L - nn
	j.body = func(_ *job, _, lo, hi int) {
		if mode == sortValues {
			vd := span[T](vb, off[0], L, ls.st[0])
			for r := lo; r < hi; r++ {
				if r < m {
					vd[r*ls.st[0]] = valueOf[T](keys[r])
				} else {
					vd[r*ls.st[0]] = fromBits[T](nb[r-m])
				}
			}
			return
		}
		id := span[int64](ib, off[2], L, ls.st[2])
		for r := lo; r < hi; r++ {
			id[r*ls.st[2]] = int64(ix[r]) + int64(ls.min)
		}
	}
	j.parallel(L, parSortGrain)
}
