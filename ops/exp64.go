package ops

import (
	"math"
	"unsafe"
)

// Float64 Exp in float64 lanes (eight a step on AVX-512, four on AVX2), in
// place of package math's one element at a time (0.2x NumPy's speed at
// 2^16): x = k·ln2 + r with k·ln2's high part exact, so r = hi − lo with
// hi exact; e^r − 1 − r = r²·Q(r), Q Taylor's 1/2! … 1/13! (truncation
// below 2^−57); then e^r = s + (e + (r²·Q − lo)) with s + e = 1 + hi
// exactly, so that only terms below 2^−52 of e^r round before the last
// sum; and the product by 2^k in two exact-then-rounding steps
// (subnormal results round once). Within one ulp of the correctly
// rounded value (TestExpF64Accuracy). x is clamped to [−746, 710], where
// e^x is 0 and +Inf; NaN gives NaN. The kernels (exp64_amd64.s) do these
// operations, fused multiply-adds included, so they give expF64one's
// bits (TestExpF64Kernels).

// expQ is Q's Taylor coefficients, highest first (exp64_amd64.s's table
// holds their bits).
var expQ = [...]float64{1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
	1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2}

// expF64one is float64 Exp of one element as expF64 computes it.
func expF64one(x float64) float64 {
	if x < -746 { // comparisons, not min and max: NaN passes them
		x = -746
	}
	if x > 710 {
		x = 710
	}
	kk, k, hi := expReduce64(x)
	lo := float64(k * expLn2Lo) // rounded: not fused into r
	r := hi - lo
	t := math.FMA(r*r, horner(r, expQ[:]), -lo)
	s := 1 + hi
	e := (1 - s) + hi // s + e = 1 + hi exactly
	return scale64(s+(e+t), int64(kk-math.Float64bits(expMagic)))
}

// expReduce64 returns k = round(x·log2e) (and its magic-number form kk)
// and hi = x − k·ln2hi, exact (ln2hi has 32 bits, |k| < 2^11).
func expReduce64(x float64) (kk uint64, k, hi float64) {
	m := math.FMA(x, math.Log2E, expMagic)
	k = m - expMagic
	return math.Float64bits(m), k, math.FMA(-k, expLn2Hi, x)
}

// scale64 is y·2^k for k in [−1100, 1100]: y·2^⌊k/2⌋ is exact, the
// second product rounds (to a subnormal, or +Inf).
func scale64(y float64, k int64) float64 {
	k1 := k >> 1
	return y * math.Float64frombits(uint64(k1+1023)<<52) * math.Float64frombits(uint64(k-k1+1023)<<52)
}

const (
	expMagic = 0x1.8p52
	expLn2Hi = 6.93147180369123816490e-01
	expLn2Lo = 1.90821492927058770002e-10
)

// expLanes64 stores expF64one of a in d: the AVX-512 kernel over the first
// multiple of 8, the AVX2 one over the rest of the first multiple of 4,
// the Go loop over the last lanes (all of them without the kernels).
func expLanes64(d, a []float64) {
	a = a[:len(d)]
	i := 0
	if useAsm {
		w, m := 0, len(d)&^3
		if useAVX512 {
			w = len(d) &^ 7
		}
		if w > 0 {
			expF64AVX512(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), w)
		}
		if m > w {
			expF64(unsafe.Pointer(&d[w]), unsafe.Pointer(&a[w]), m-w)
		}
		if m > 0 {
			kernelRuns.Add(1)
		}
		i = m
	}
	for ; i < len(d); i++ {
		d[i] = expF64one(a[i])
	}
}
