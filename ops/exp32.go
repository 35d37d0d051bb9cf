package ops

import "math"

// exp32 is float32 Exp in float32 arithmetic, within one ulp of the
// correctly rounded value; the assembly kernels (exp_amd64.s's EXP16 and
// expF32x8) do the same operations, fused multiply-adds included, so every
// machine gives the same bits. x = n·ln2 + r (n = rint(x·log2e), r in two
// parts, the first exact), e^r − 1 = r + r²·Q(r) (tanh32's fit), the
// second part's share r_lo·e^r added before 1, and the product by 2^n
// rounded once. x is clamped to [−104, 89], where e^x is 0 and +Inf in
// float32; NaN gives NaN.
func exp32(x float32) float32 {
	if x < expLo { // comparisons, not min and max: NaN passes them
		x = expLo
	}
	if x > expHi {
		x = expHi
	}
	n := float32(math.RoundToEven(float64(x * tanhLog2e)))
	r := fma32(-n, tanhLn2Hi, x)
	rl := n * expNegLn2Lo
	p := expm1Fit(r)
	u := fma32(rl, p, rl)
	return scale2(1+(p+u), n)
}

// scale2 is y·2^n rounded once, as VSCALEFPS computes it, for y near 1
// and n an integer in [−150, 129] (or NaN, with y NaN): y·2^⌊n/2⌋ is
// exact, the second product rounds (exp32; sinhCosh32, whose scales are
// exact up to +Inf).
func scale2(y, n float32) float32 {
	k := int32(n)
	k1 := k >> 1
	s1 := math.Float32frombits(uint32(k1+127) << 23)
	s2 := math.Float32frombits(uint32(k-k1+127) << 23)
	return float32(y*s1) * s2
}

// exp32's clamp and the low part of ln 2, negated (exp32_amd64.s's exp32c<>
// holds their bits with tanh32's).
const (
	expLo = float32(-104)
	expHi = float32(89)
)

var expNegLn2Lo = -tanhLn2Lo
