package ops

import "math"

// Float32 Expm1 in float64 lanes: x = k·ln2 + r with |r| ≤ ln2/2, and
// e^r = 1 + z·c + r·o (z = r²) with c and o the even and odd halves of
// e^r's Taylor series (c to r⁸/8!, o to r⁹/9!: truncation below 1e-11
// relative), two short independent chains of fused multiply-adds. Then
//
//	e^x − 1 = 2^k·p + (2^k − 1),  p = z·c + r·o   (one rounding: no cancellation)
//
// The float32 results are the correctly rounded values nearly always,
// within one ulp always (TestMath32Accuracy). The kernels (hyp_amd64.s)
// do the same operations, fused multiply-adds included, so they give the
// Go loop's bits (TestHypKernels). x is clamped to [−110, 100]: past the
// ends the float32 results are already −1 or +Inf. NaN gives NaN. Sinh
// and Cosh compute in float32 lanes (sinhcosh32.go).

var (
	expEven = [...]float64{1.0 / 40320, 1.0 / 720, 1.0 / 24, 1.0 / 2}
	expOdd  = [...]float64{1.0 / 362880, 1.0 / 5040, 1.0 / 120, 1.0 / 6, 1}
)

// expParts reduces x = k·ln2 + r and returns k's magic-number form kk
// (k in its low bits), k, r, z = r², and e^r's halves c and o.
func expParts(x float64) (kk uint64, k, r, z, c, o float64) {
	if x < -110 { // comparisons, not min and max: NaN passes them
		x = -110
	}
	if x > 100 {
		x = 100
	}
	kk, k, r = expReduce(x)
	z = r * r
	return kk, k, r, z, horner(z, expEven[:]), horner(z, expOdd[:])
}

// expReduce returns k = round(x·log2e), in its magic-number form kk too
// (k in the low bits: one fused multiply-add onto 0x1.8p52 rounds it),
// and r = x − k·ln2 (ln2 in two parts, so k·ln2hi is exact).
func expReduce(x float64) (kk uint64, k, r float64) {
	kk, k, hi := expReduce64(x)
	return kk, k, math.FMA(-k, expLn2Lo, hi)
}

// pow2 is 2^(k+b) for k's magic-number form kk: the low bits of kk + 1023
// + b are the exponent (k + b is in float64's normal range).
func pow2(kk uint64, b int) float64 { return math.Float64frombits((kk + uint64(1023+b)) << 52) }

// expm1_32 is Expm1 of one float32 as expm1F32 computes it.
func expm1_32(x float32) float32 {
	kk, _, r, z, c, o := expParts(float64(x))
	s := pow2(kk, 0)
	p := math.FMA(z, c, r*o)
	return withSign32(float32(math.FMA(s, p, s-1)), x) // −0 gives −0 (p is +0); negative results stay so
}

// withSign32 sets y's sign bit where x's is set (the kernels OR the
// input's sign into their results: y ≥ 0, NaN, or already negative).
func withSign32(y, x float32) float32 {
	return math.Float32frombits(math.Float32bits(y) | math.Float32bits(x)&(1<<31))
}
