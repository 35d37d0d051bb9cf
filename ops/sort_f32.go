package ops

import (
	"math"
	"sync/atomic"
)

// sortF32Min is the shortest contiguous float32 line whose values sort
// by sortF32: three 11-bit digit passes, the digit counts taken while the
// keys are made. Below it the tables' clearing and prefix sums cost more
// than the pass saved, and radixU32's four 8-bit passes win.
const sortF32Min = 1 << 12

// sortedF32 counts the lines sorted by sortF32, for the tests.
var sortedF32 atomic.Int64

// digits11 is sortF32's digit counts: 2048 per 11-bit digit.
type digits11 [3][1 << 11]uint32

// sortF32 stores x's values in ascending order in d (which may be x),
// NaNs last in index order with their own bits. The NaNs take the
// all-ones key (above every number's) while their bits wait in b.nb.
func sortF32(d, x []float32, b *sortBuf[uint32]) {
	n := len(x)
	keys, kt, nb := b.k0[:n], b.k1[:n], b.nb[:n]
	if b.h11 == nil {
		b.h11 = new(digits11)
	}
	h := b.h11
	*h = digits11{}
	q := 0
	for i, v := range x {
		u := math.Float32bits(v)
		k := keyF32(u)
		if u&0x7fffffff > 0x7f800000 {
			nb[q], k = u, ^uint32(0)
			q++
		}
		keys[i] = k
		h[0][k&2047]++
		h[1][k>>11&2047]++
		h[2][k>>22]++
	}
	for dg := range 3 {
		sh := uint(11 * dg)
		hd := &h[dg]
		if hd[keys[0]>>sh&2047] == uint32(n) {
			continue // every key has this digit
		}
		var sum uint32
		for i, c := range hd {
			hd[i] = sum
			sum += c
		}
		kt = kt[:n]
		for _, k := range keys {
			v := k >> sh & 2047
			p := hd[v]
			hd[v] = p + 1
			kt[p] = k
		}
		keys, kt = kt, keys
	}
	m := n - q
	d = d[:n]
	writeF32(d[:m], keys[:m])
	for j, u := range nb[:q] {
		d[m+j] = math.Float32frombits(u)
	}
	sortedF32.Add(1)
}

// writeF32 stores the float32 values of keys (no NaN's) in d.
func writeF32(d []float32, keys []uint32) {
	d = d[:len(keys)]
	for r, k := range keys {
		if k&(1<<31) != 0 {
			d[r] = math.Float32frombits(k &^ (1 << 31))
		} else {
			d[r] = math.Float32frombits(^k)
		}
	}
}
