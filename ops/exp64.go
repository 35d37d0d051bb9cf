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
	y, kk, _, _ := expCore64(x)
	return scale64(y, expK(kk))
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
	lanes4or8(d, a, expF64AVX512, expF64, expF64one)
}

// Float64 Tanh is package math's algorithm (Cephes'): below 0.625 in
// magnitude its rational form, unfused as math's source rounds it, so the
// same bits where the compiler does not fuse (GOAMD64 below v3); above,
// 1 − 2/(e^(2|x|) + 1) with x's sign, but with Exp's kernels (one ulp;
// math.Exp is less often correctly rounded): within two ulps
// (TestTanhF64). Past 44 it is ±1 either way.

var (
	tanhP64 = [...]float64{-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3}
	tanhQ64 = [...]float64{1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3}
)

// tanhF64one is float64 Tanh of one element as the kernels compute it.
func tanhF64one(x float64) float64 {
	if x == 0 {
		return x
	}
	z := math.Abs(x)
	if z < 0.625 {
		s := x * x
		p := float64(float64(float64(tanhP64[0]*s)+tanhP64[1])*s) + tanhP64[2]
		q := float64(float64(float64(float64(s+tanhQ64[0])*s)+tanhQ64[1])*s) + tanhQ64[2]
		return x + x*s*p/q
	}
	t := 1 - 2/(expF64one(2*z)+1)
	return math.Float64frombits(math.Float64bits(t) | math.Float64bits(x)&(1<<63))
}

// lanes4or8 stores one of a in d: k8 (AVX-512) over the first multiple
// of 8, k4 (AVX2) over the rest of the first multiple of 4, one over the
// last lanes (all of them without the kernels).
func lanes4or8(d, a []float64, k8, k4 func(d, a unsafe.Pointer, n int), one func(float64) float64) {
	a = a[:len(d)]
	i := 0
	if useAsm {
		w, m := 0, len(d)&^3
		if useAVX512 {
			w = len(d) &^ 7
		}
		if w > 0 {
			k8(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), w)
		}
		if m > w {
			k4(unsafe.Pointer(&d[w]), unsafe.Pointer(&a[w]), m-w)
		}
		if m > 0 {
			kernelRuns.Add(1)
		}
		i = m
	}
	for ; i < len(d); i++ {
		d[i] = one(a[i])
	}
}
