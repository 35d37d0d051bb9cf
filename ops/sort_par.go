package ops

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// A long line sorted on many cores. A line of 2^16 float32 took 0.8-1.1
// ms on one core of the 16-core Xeon, where NumPy 2's AVX-512 sort takes
// 0.25-0.37 ms, and with few lines there is no parallelism across them.
//
// The line's keys go to buckets by value, each chunk's keys in order, so
// the pass is stable; then each bucket is a run of its own, sorted on one
// worker by sortLine's radix sort and written out there. The buckets are
// drawn from a sample of 4096 keys: its range cut into 4096 bins, and
// consecutive bins grouped so that each bucket holds about as many
// samples (a bucket by the top bits of the keys held a tenth of a
// normal line in a few buckets). Three passes over the pool: count,
// scatter, sort and write; splitting every radix pass over the pool
// instead took as long at 2^16 and 1.2x the time at 2^20 and 2^24
// (bench/results/h100-2026-12-07-pool.txt). NaNs take the all-ones key,
// above every number's, so they end last in index order, as sortLine sets
// them; a Sort writes their own bits back there.

// sortBinBits is the width of the sample's bins: 4096.
const sortBinBits = 12

// sortBucketsMax bounds a line's buckets; a line takes one per
// sortBucketLen elements up to that.
const (
	sortBucketsMax = 1024
	sortBucketLen  = 512
)

// parSortMin is the shortest line sorted this way; shorter lines go to
// one worker each.
const parSortMin = 1 << 15

// parSortGrain is a chunk's fewest keys (a variable for the benchmarks'
// -sort.grain).
var parSortGrain = 1 << 12

// parSortValuesMin is the fewest workers that sort a long line's values
// (Sort) this way: it makes more passes than sortLine's, so on 2 cores a
// Sort of 2^16 or 2^20 float32 took 1.0-1.2x sortLine's time, while an
// ArgSort took 0.6-0.8x. A variable, so that the tests reach the path on
// 2 cores.
var parSortValuesMin = 4

// parSortScratch is a call's per-chunk tallies (bucket counts, then
// first slots; NaNs), the bins' bucket and each bucket's first slot.
type parSortScratch struct {
	hist  [maxChunks][sortBucketsMax]uint32
	nans  [maxChunks + 1]int
	bin   [1 << sortBinBits]uint16
	smp   [1 << sortBinBits]uint64 // the sample's keys
	start [sortBucketsMax + 1]int
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
	b := getSortBuf[K](ls.L, mode != sortValues)
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
	kd := kindOf[T]()
	withIdx := mode != sortValues
	keys, kt, ix, it, nb := b.k0[:L], b.k1[:L], []uint32(nil), []uint32(nil), b.nb[:L]
	if withIdx {
		ix, it = b.i0[:L], b.i1[:L]
	}
	key := func(x T) K {
		if isNaN(kd, x) {
			return ^K(0)
		}
		return keyOf[T, K](kd, x)
	}

	// the buckets, from a sample (16 keys a bucket, at least 1024, at
	// most 4096): its range in bins, bins grouped. The sample is serial
	// work: past the helpers' spin, each phase would wake them.
	nbk := min(sortBucketsMax, max(1, L/sortBucketLen))
	S := min(L, 1<<sortBinBits, max(1024, 16*nbk))
	smp := sc.smp[:S]
	if x32, ok := any(s).([]float32); ok && sa == 1 {
		for q := range smp {
			u := math.Float32bits(x32[q*(L/S)])
			smp[q] = uint64(keyF32(u))
			if u&0x7fffffff > 0x7f800000 {
				smp[q] = 1<<32 - 1
			}
		}
	} else {
		for q := range smp {
			smp[q] = uint64(key(s[q*(L/S)*sa]))
		}
	}
	lo, hi := slices.Min(smp), slices.Max(smp)
	sh := uint(max(0, bits.Len64(hi-lo)-sortBinBits))
	sc.bin = [1 << sortBinBits]uint16{}
	for _, k := range smp {
		sc.bin[(k-lo)>>sh]++
	}
	acc, v := 0, 0
	for p, c := range sc.bin {
		sc.bin[p] = uint16(v)
		acc += int(c)
		for v < nbk-1 && acc*nbk >= (v+1)*S {
			v++
		}
	}
	bin := &sc.bin

	j := getJob()
	defer putJob(j)
	// keys, each chunk's count per bucket, its NaNs' bits from its first
	// slot on
	j.body = func(_ *job, c, lo0, hi0 int) {
		h := sc.hist[c][:nbk]
		clear(h)
		q := 0
		x32, f32 := any(s).([]float32)
		f32 = f32 && sa == 1
		for i := lo0; i < hi0; i++ {
			var k K
			if f32 {
				u := math.Float32bits(x32[i])
				if u&0x7fffffff > 0x7f800000 {
					nb[lo0+q], k = K(u), ^K(0)
					q++
				} else {
					k = K(keyF32(u))
				}
			} else if x := s[i*sa]; isNaN(kd, x) {
				nb[lo0+q], k = rawBits[T, K](x), ^K(0)
				q++
			} else {
				k = keyOf[T, K](kd, x)
			}
			keys[i] = k
			h[bin[(min(max(uint64(k), lo), hi)-lo)>>sh]]++
		}
		sc.nans[c] = q
	}
	n := j.parallel(L, parSortGrain)
	// each chunk's first slot per bucket (by bucket, then chunk); the
	// NaNs' bits in index order (they go after the numbers)
	var base uint32
	for v := range nbk {
		sc.start[v] = int(base)
		for c := range n {
			m := sc.hist[c][v]
			sc.hist[c][v] = base
			base += m
		}
	}
	sc.start[nbk] = L
	nn := 0
	for c := range n {
		lo := L * c / n
		nn += copy(nb[nn:], nb[lo:lo+sc.nans[c]])
	}
	// the keys (and indices) to their buckets' slots
	j.body = func(_ *job, c, lo0, hi0 int) {
		h := &sc.hist[c]
		for i := lo0; i < hi0; i++ {
			k := keys[i]
			v := bin[(min(max(uint64(k), lo), hi)-lo)>>sh]
			p := h[v]
			h[v] = p + 1
			kt[p] = k
			if withIdx {
				it[p] = uint32(i)
			}
		}
	}
	j.parallel(L, parSortGrain)
	// the buckets that start in a chunk's span, each sorted on one worker
	// and written out
	m := L - nn
	j.body = func(_ *job, _, lo, hi int) {
		v := sort.SearchInts(sc.start[:nbk], lo)
		for ; v < nbk && sc.start[v] < hi; v++ {
			p, e := sc.start[v], sc.start[v+1]
			rk, ri, ks, is := kt[p:e], []uint32(nil), keys[p:e], []uint32(nil)
			if withIdx {
				ri, is = it[p:e], ix[p:e]
			}
			if e-p > 1 {
				rk, ri = radixSort(rk, ks, ri, is, withIdx, 8*sizeOf[T]())
			}
			if mode == sortValues {
				vd := span[T](vb, off[0], L, ls.st[0])
				if d32, ok := any(vd).([]float32); ok && ls.st[0] == 1 && sizeOf[K]() == 4 {
					if p < m {
						writeF32(d32[p:min(e, m)], any(rk[:min(e, m)-p]).([]uint32))
					}
					for r := max(p, m); r < e; r++ {
						d32[r] = math.Float32frombits(uint32(nb[r-m]))
					}
					continue
				}
				for r := p; r < e; r++ {
					if r < m {
						vd[r*ls.st[0]] = valueOf[T](kd, rk[r-p])
					} else {
						vd[r*ls.st[0]] = fromBits[T](nb[r-m])
					}
				}
				continue
			}
			id := span[int64](ib, off[2], L, ls.st[2])
			for r := p; r < e; r++ {
				id[r*ls.st[2]] = int64(ri[r-p]) + int64(ls.min)
			}
		}
	}
	j.parallel(L, parSortGrain)
}
