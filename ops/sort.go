package ops

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Sort, ArgSort and TopK order the elements of each line by value, −0
// before +0, NaNs after every number (NumPy's order), and equal elements
// (the same bits) in index order: the sort is stable. On the host it is an
// LSD radix sort of the elements' bits mapped to unsigned keys whose order
// is the value order (a long line on many cores: sort_par.go); a TopK of
// few from many keeps candidates in one pass instead (topk.go).

// Sort stores in dst the elements of a sorted ascending along axis
// ax. dst has a's shape and may be a itself.
func Sort[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	dim := axisDim(a, ax)
	ls := linesOf("Sort", lineSame, a, dim, dst)
	return sortLines(sortValues, &ls, dim, dst, nil, a)
}

// ArgSort stores in dst the coordinates along ax (Min included, as
// ArgMax) that sort a ascending along axis ax: a's element at
// dst's i-th coordinate is the i-th smallest; ties keep index order.
func ArgSort[T array.Elem](dst *array.Array[int64], a *array.Array[T], ax array.Axis) error {
	dim := axisDim(a, ax)
	ls := linesOf("ArgSort", lineSame, a, dim, dst)
	ls.toSecond()
	return sortLines(sortArgs, &ls, dim, nil, dst, a)
}

// TopK stores the k largest elements of a along axis ax in
// descending order in vals and their coordinates along ax (Min included)
// in idx, where k is vals' (and idx's) extent along ax, at most a's; ties
// keep the lower coordinate first, NaNs count as the largest. Either of
// vals and idx may be nil. k beyond a's extent panics with array.ErrShape.
func TopK[T array.Elem](vals *array.Array[T], idx *array.Array[int64], a *array.Array[T], ax array.Axis) error {
	dim := axisDim(a, ax)
	var ls lineSet
	switch {
	case vals == nil && idx == nil:
		panic(fmt.Errorf("%w: ops.TopK: both destinations are nil: pass vals, idx or both", array.ErrShape))
	case vals == nil:
		ls = linesOf("TopK", lineTopK, a, dim, idx)
		ls.toSecond()
	case idx == nil:
		ls = linesOf("TopK", lineTopK, a, dim, vals)
	default:
		ls = linesOf("TopK", lineTopK, a, dim, vals, idx)
	}
	if ls.k > ls.L {
		panic(fmt.Errorf("%w: ops.TopK along %s: k = %d (the destinations' extent there) is more than a's extent %d: make them at most %d",
			array.ErrShape, dimName(dim, a.Rank()), ls.k, ls.L, ls.L))
	}
	return sortLines(sortTop, &ls, dim, vals, idx, a)
}

type sortMode uint8

const (
	sortValues sortMode = iota // dst operand 0
	sortArgs                   // int64 dst as operand 2
	sortTop                    // descending, first k: values operand 0, indices operand 2
)

var sortNames = [...]string{"Sort", "ArgSort", "TopK"}

// sortLines sorts every line; vals (operand 0) and idx (operand 2) may
// be nil.
func sortLines[T array.Elem](mode sortMode, ls *lineSet, dim int, vals *array.Array[T], idx *array.Array[int64], a *array.Array[T]) error {
	if ok, err := deviceSort(mode, ls, dim, vals, idx, a); ok {
		return err
	}
	if ls.lines() == 0 || ls.k == 0 {
		return nil
	}
	av, err := a.HostReadOnly()
	if err != nil {
		return err
	}
	var vb, ib unsafe.Pointer
	if vals != nil {
		v, err := outHost(vals)
		if err != nil {
			return err
		}
		vb = dataPtr(v)
	}
	if idx != nil {
		v, err := outHost(idx)
		if err != nil {
			return err
		}
		ib = dataPtr(v)
	}
	ab := hostPtr(av)
	switch sizeOf[T]() {
	case 8:
		sortWith[T, uint64](mode, ls, vb, ib, ab)
	case 4:
		sortWith[T, uint32](mode, ls, vb, ib, ab)
	default:
		sortWith[T, uint16](mode, ls, vb, ib, ab)
	}
	return nil
}

type ukey interface{ ~uint16 | ~uint32 | ~uint64 }

// sortBuf is one worker's scratch: keys and indices, twice (the radix
// passes go back and forth), and the NaNs set aside.
type sortBuf[K ukey] struct {
	k0, k1 []K
	i0, i1 []uint32
	nan    []uint32
	nb     []K // the NaNs' bits (Sort)
	h11    *digits11
}

// grow readies b for lines of n; the indices only for idx (ArgSort,
// TopK): a Sort of 2^24 float32 took 400 MB of scratch with them.
func (b *sortBuf[K]) grow(n int, idx bool) {
	if cap(b.k0) < n {
		b.k0, b.k1, b.nb = make([]K, n), make([]K, n), make([]K, n)
		b.nan = nil // appended to
	}
	if idx && cap(b.i0) < n {
		b.i0, b.i1 = make([]uint32, n), make([]uint32, n)
	}
}

// upTo is s[:n], nil for nil.
func upTo(s []uint32, n int) []uint32 {
	if s == nil {
		return nil
	}
	return s[:n]
}

// sortPools keeps sortBufs between calls (by key size), so that a big
// sort does not allocate and clear its scratch each time.
var sortPools [3]sync.Pool

// getSortBuf takes a sortBuf for lines of n from its pool; putSortBuf
// gives it back.
func getSortBuf[K ukey](n int, idx bool) *sortBuf[K] {
	b, _ := sortPools[min(sizeOf[K]()/4, 2)].Get().(*sortBuf[K])
	if b == nil {
		b = new(sortBuf[K])
	}
	b.grow(n, idx)
	return b
}

func putSortBuf[K ukey](b *sortBuf[K]) { sortPools[min(sizeOf[K]()/4, 2)].Put(b) }

func sortWith[T array.Elem, K ukey](mode sortMode, ls *lineSet, vb, ib, ab unsafe.Pointer) {
	if mode == sortTop && ls.k*16 < ls.L {
		topLines[T, K](ls, vb, ib, ab)
		return
	}
	if sortLinesParallel[T, K](mode, ls, vb, ib, ab) {
		return
	}
	var bufs [maxChunks]*sortBuf[K]
	// a sort takes about 10 ns a point: cut as finely as Exp (with
	// lineGrain, 256 rows of 256 went to 2 workers of 16); a chunk's
	// scratch goes back to the pool at its end, so a call holds about one
	// per worker, not one per chunk
	ls.forLines(costlyGrain, func(c int, off *[maxOps]int) {
		b := bufs[c]
		if b == nil {
			b = getSortBuf[K](ls.L, mode != sortValues)
			bufs[c] = b
		}
		sortLine[T](mode, ls, b, vb, ib, ab, off)
	}, func(c int) {
		if bufs[c] != nil {
			putSortBuf(bufs[c])
			bufs[c] = nil
		}
	})
}

// keyOf maps x's bits to a key whose unsigned order is the value order
// (floats: −Inf … −0, +0 … +Inf; NaNs are set aside before). kd is
// kindOf[T](), which the callers take once outside their loops: in
// shared generic code it is a type switch at run time.
func keyOf[T array.Elem, K ukey](kd kind, x T) K {
	u := rawBits[T, K](x)
	sign := K(1) << (8*sizeOf[T]() - 1)
	switch kd {
	case kFloat, kHalf:
		if u&sign != 0 {
			return ^u & (sign | (sign - 1))
		}
		return u | sign
	case kSigned:
		return u ^ sign
	}
	return u
}

// valueOf inverts keyOf.
func valueOf[T array.Elem, K ukey](kd kind, k K) T {
	sign := K(1) << (8*sizeOf[T]() - 1)
	switch kd {
	case kFloat, kHalf:
		if k&sign != 0 {
			k &^= sign
		} else {
			k = ^k & (sign | (sign - 1))
		}
	case kSigned:
		k ^= sign
	}
	return fromBits[T](k)
}

func isNaN[T array.Elem](k kind, x T) bool {
	switch k {
	case kFloat:
		return x != x
	case kHalf:
		f := toF32(x)
		return f != f
	}
	return false
}

// sortLine sorts one line: keys (complemented for TopK's descending
// order) and indices of the numbers, the NaNs' indices aside.
func sortLine[T array.Elem, K ukey](mode sortMode, ls *lineSet, b *sortBuf[K], vb, ib, ab unsafe.Pointer, off *[maxOps]int) {
	n, sa := ls.L, ls.st[1]
	s := span[T](ab, off[1], n, sa)
	k := kindOf[T]()
	mask := K(1)<<(8*sizeOf[T]()-1) | (K(1)<<(8*sizeOf[T]()-1) - 1)
	keys, ix, it := b.k0[:n], []uint32(nil), []uint32(nil)
	if mode != sortValues { // else b's indices may be short
		ix, it = b.i0[:n], b.i1[:n]
	}
	nan := b.nan[:0]
	m := 0
	if x32, ok := any(s).([]float32); ok && sa == 1 && mode == sortValues && ls.st[0] == 1 && n >= sortF32Min {
		sortF32(span[float32](vb, off[0], n, 1), x32[:n], any(b).(*sortBuf[uint32]))
		return
	}
	if x32, ok := any(s).([]float32); ok && sa == 1 {
		m, nan = gatherF32(x32[:n], any(keys).([]uint32), ix, nan, mode == sortTop)
		n = 0 // gathered
	}
	for i := 0; i < n; i++ {
		x := s[i*sa]
		if isNaN(k, x) {
			nan = append(nan, uint32(i))
			continue
		}
		kk := keyOf[T, K](k, x)
		if mode == sortTop {
			kk = ^kk & mask
		}
		keys[m] = kk
		if ix != nil {
			ix[m] = uint32(i)
		}
		m++
	}
	keys, ix = radixSort(keys[:m], b.k1[:m], upTo(ix, m), upTo(it, m), mode != sortValues, 8*sizeOf[T]())
	n = ls.L
	nn := len(nan)
	if mode == sortValues {
		// the NaNs' bits, read before dst (maybe a itself) is written
		nb := b.nb[:nn]
		for q, i := range nan {
			nb[q] = rawBits[T, K](s[int(i)*sa])
		}
		vd := span[T](vb, off[0], ls.L, ls.st[0])
		if d32, ok := any(vd).([]float32); ok && ls.st[0] == 1 {
			writeF32(d32, any(keys).([]uint32)[:m])
		} else {
			for r := 0; r < m; r++ {
				vd[r*ls.st[0]] = valueOf[T](k, keys[r])
			}
		}
		for q := range nn {
			vd[(m+q)*ls.st[0]] = fromBits[T](nb[q])
		}
		b.nan = nan
		return
	}
	kOut := ls.k
	var vd []T
	var id []int64
	if vb != nil {
		vd = span[T](vb, off[0], kOut, ls.st[0])
	}
	if ib != nil {
		id = span[int64](ib, off[2], kOut, ls.st[2])
	}
	put := func(r int, i uint32, key K, isNan bool) {
		if vd != nil {
			if isNan {
				vd[r*ls.st[0]] = s[int(i)*sa]
			} else {
				vd[r*ls.st[0]] = valueOf[T](k, ^key&mask)
			}
		}
		if id != nil {
			id[r*ls.st[2]] = int64(i) + int64(ls.min)
		}
	}
	if mode == sortTop { // NaNs first, then the numbers descending
		r := 0
		for ; r < min(nn, kOut); r++ {
			put(r, nan[r], 0, true)
		}
		for q := 0; r < kOut; q, r = q+1, r+1 {
			put(r, ix[q], keys[q], false)
		}
	} else { // ArgSort: the numbers, then the NaNs
		for r := 0; r < m; r++ {
			id[r*ls.st[2]] = int64(ix[r]) + int64(ls.min)
		}
		for q, i := range nan {
			id[(m+q)*ls.st[2]] = int64(i) + int64(ls.min)
		}
	}
	b.nan = nan
}

// rawBits and fromBits move T's bits in and out of a key-sized word.
func rawBits[T array.Elem, K ukey](x T) K {
	switch sizeOf[T]() {
	case 1:
		return K(*(*uint8)(unsafe.Pointer(&x)))
	case 2:
		return K(*(*uint16)(unsafe.Pointer(&x)))
	case 4:
		return K(*(*uint32)(unsafe.Pointer(&x)))
	}
	return K(*(*uint64)(unsafe.Pointer(&x)))
}

func fromBits[T array.Elem, K ukey](k K) T {
	var x T
	switch sizeOf[T]() {
	case 1:
		*(*uint8)(unsafe.Pointer(&x)) = uint8(k)
	case 2:
		*(*uint16)(unsafe.Pointer(&x)) = uint16(k)
	case 4:
		*(*uint32)(unsafe.Pointer(&x)) = uint32(k)
	default:
		*(*uint64)(unsafe.Pointer(&x)) = uint64(k)
	}
	return x
}

// radixSort sorts keys (with their indices ix when withIdx) by w-bit
// digits of 8, least significant first, through the scratch kt, it; it
// returns the slices that hold the result. Digits on which every key
// agrees are skipped. Short runs use insertion sort.
func radixSort[K ukey](keys, kt []K, ix, it []uint32, withIdx bool, w int) ([]K, []uint32) {
	n := len(keys)
	if n <= 48 {
		for i := 1; i < n; i++ {
			k, x := keys[i], uint32(0)
			if withIdx {
				x = ix[i]
			}
			j := i
			for ; j > 0 && keys[j-1] > k; j-- {
				keys[j] = keys[j-1]
				if withIdx {
					ix[j] = ix[j-1]
				}
			}
			keys[j] = k
			if withIdx {
				ix[j] = x
			}
		}
		return keys, ix
	}
	if k32, ok := any(keys).([]uint32); ok && !withIdx {
		return any(radixU32(k32, any(kt).([]uint32))).([]K), ix
	}
	nd := w / 8
	var h [8][256]int
	for _, k := range keys {
		for d := 0; d < nd; d++ {
			h[d][uint8(k>>(8*d))]++
		}
	}
	for d := 0; d < nd; d++ {
		hd := &h[d]
		if hd[uint8(keys[0]>>(8*d))] == n {
			continue // every key has this digit
		}
		sum := 0
		for i := range hd {
			c := hd[i]
			hd[i] = sum
			sum += c
		}
		sh := uint(8 * d)
		if withIdx {
			for i, k := range keys {
				p := hd[uint8(k>>sh)]
				hd[uint8(k>>sh)] = p + 1
				kt[p], it[p] = k, ix[i]
			}
			ix, it = it, ix
		} else {
			for _, k := range keys {
				p := hd[uint8(k>>sh)]
				hd[uint8(k>>sh)] = p + 1
				kt[p] = k
			}
		}
		keys, kt = kt, keys
	}
	return keys, ix
}

// radixU32 is radixSort of 32-bit keys without indices in concrete code:
// the four digits counted in one sweep into uint32 counts, a quarter of
// the generic table to clear, which short lines feel.
func radixU32(keys, kt []uint32) []uint32 {
	var h [4][256]uint32
	for _, k := range keys {
		h[0][uint8(k)]++
		h[1][uint8(k>>8)]++
		h[2][uint8(k>>16)]++
		h[3][k>>24]++
	}
	n := uint32(len(keys))
	kt = kt[:len(keys)]
	for d := range 4 {
		if h[d][uint8(keys[0]>>(8*d))] == n {
			continue // every key has this digit
		}
		var sum uint32
		for i, c := range h[d] {
			h[d][i] = sum
			sum += c
		}
		sh := uint(8 * d)
		hd := &h[d]
		for _, k := range keys {
			b := uint8(k >> sh)
			p := hd[b]
			hd[b] = p + 1
			kt[p] = k
		}
		keys, kt = kt, keys
	}
	return keys
}

// keyF32 is keyOf for float32 bits, not NaN: every bit flipped for a
// negative, the sign bit for the others (no branch: the signs come in no
// order).
func keyF32(u uint32) uint32 { return u ^ (uint32(int32(u)>>31) | 1<<31) }

// gatherF32 is sortLine's gather for a contiguous float32 line, in
// concrete code: the keys and indices (ix nil: none) of the numbers, NaNs
// aside.
func gatherF32(x []float32, keys, ix, nan []uint32, top bool) (int, []uint32) {
	m, flip := 0, uint32(0)
	if top {
		flip = ^flip
	}
	for i, v := range x {
		u := math.Float32bits(v)
		if u&0x7fffffff > 0x7f800000 {
			nan = append(nan, uint32(i))
			continue
		}
		keys[m] = keyF32(u) ^ flip
		if ix != nil {
			ix[m] = uint32(i)
		}
		m++
	}
	return m, nan
}
