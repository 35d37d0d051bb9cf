package ops

import "math"

// Float64 Sinh, Cosh and Expm1 on Exp's operations (expCore64), in place
// of package math's one element at a time (0.1-0.2x NumPy's speed here).
// With h = e^|x|/2 (Exp's result scaled by 2^(k−1), so it is finite up
// to |x| = 711 where cosh is):
//
//	cosh x = h + 1/(4h)                  (no cancellation)
//	sinh x = ±(h − 1/(4h))   for |x| ≥ 1 (cancellation at most coth 1 = 1.31)
//	sinh x = x + x³·S(x²)    below, S Taylor's 1/3! … 1/17! (truncation below 2^−56)
//	e^x − 1 = 2^k·hi + (2^k − 1) + 2^k·t  (e^r − 1 = hi + t, two fused multiply-adds)
//
// Expm1 clamps x at −60 (e^x − 1 rounds to −1 below) and past 709 is Exp.
// Each result takes x's sign bit (±0 stay ±0). Within two ulps of 200-bit
// arithmetic (TestHyp64Accuracy). The kernels (exp64_amd64.s) do these
// operations, fused multiply-adds included, so they give the Go loop's
// bits (TestHyp64Kernels).

// sinhS64 is S's coefficients, highest first (exp64_amd64.s's h64c holds
// their bits).
var sinhS64 = [...]float64{1.0 / 355687428096000, 1.0 / 1307674368000, 1.0 / 6227020800, 1.0 / 39916800,
	1.0 / 362880, 1.0 / 5040, 1.0 / 120, 1.0 / 6}

// expCore64 is expF64one's steps before the scaling, for x already
// clamped: y = e^r, k's magic-number form kk, and hi and t with e^r − 1
// = hi + t.
func expCore64(x float64) (y float64, kk uint64, hi, t float64) {
	kk, k, hi := expReduce64(x)
	lo := float64(k * expLn2Lo) // rounded: not fused into r
	r := hi - lo
	t = math.FMA(r*r, horner(r, expQ[:]), -lo)
	s := 1 + hi
	e := (1 - s) + hi // s + e = 1 + hi exactly
	return s + (e + t), kk, hi, t
}

// expK is k of kk, as an integer.
func expK(kk uint64) int64 { return int64(kk - math.Float64bits(expMagic)) }

// halfExp64 is e^z/2 for z ≥ 0 (or NaN) as the kernels compute it: z
// clamped to 711, e^r scaled by 2^⌊k/2⌋ and then by 2^(k−⌊k/2⌋−1).
func halfExp64(z float64) float64 {
	if z > 711 {
		z = 711
	}
	y, kk, _, _ := expCore64(z)
	k := expK(kk)
	k1 := k >> 1
	return y * math.Float64frombits(uint64(k1+1023)<<52) * math.Float64frombits(uint64(k-k1+1022)<<52)
}

// coshF64one is float64 Cosh of one element as the kernels compute it.
func coshF64one(x float64) float64 {
	h := halfExp64(math.Abs(x))
	return h + 0.25/h
}

// sinhF64one is float64 Sinh of one element as the kernels compute it.
func sinhF64one(x float64) float64 {
	if math.Abs(x) < 1 {
		s := x * x
		return math.FMA(x*s, horner(s, sinhS64[:]), x)
	}
	h := halfExp64(math.Abs(x))
	return withSign64(h-0.25/h, x)
}

// expm1F64one is float64 Expm1 of one element as the kernels compute it.
func expm1F64one(x float64) float64 {
	c := x
	if c < -60 { // comparisons, not min and max: NaN passes them
		c = -60
	}
	if c > 710 {
		c = 710
	}
	y, kk, hi, t := expCore64(c)
	k := expK(kk)
	if x > 709 {
		return scale64(y, k)
	}
	k1 := k >> 1
	p := math.Float64frombits(uint64(k1+1023)<<52) * math.Float64frombits(uint64(k-k1+1023)<<52) // 2^k
	return withSign64(math.FMA(p, t, math.FMA(p, hi, p-1)), x)
}

// withSign64 sets y's sign bit where x's is set (the kernels OR the
// input's sign into their results).
func withSign64(y, x float64) float64 {
	return math.Float64frombits(math.Float64bits(y) | math.Float64bits(x)&(1<<63))
}
