package ops

import "math"

// Float32 Asin, Acos and Atan in float64 lanes. The kernels (asin_amd64.s)
// do the same operations, fused multiply-adds included, so they give the
// Go loops' bits (TestAsinKernels); the float32 results are the correctly
// rounded values nearly always, within one ulp always
// (TestMath32Accuracy, TestSinhCoshAccuracy for Atan). The polynomials
// are least-squares fits on Chebyshev nodes, Asin's error below 4e-12
// relative.
//
// Asin: t = |x|; for t ≤ ½, asin t = t + t·z·P(z) with z = t²; for
// t > ½, asin t = π/2 − 2·asin s with s = √z, z = (1−t)/2 (≤ ¼ both
// ways). Acos takes the same asin of t or s: π/2 ∓ asin t, 2·asin s, or
// π − 2·asin s. |x| > 1 takes √ of a negative: NaN.
//
// Atan: t = |x| is turned into u in [−tan π/8, tan π/8] by one division:
// u = t, (t−1)/(t+1) or −1/t, adding 0, π/4 or π/2, and atan u = u +
// u·z·R(z), z = u², R of degree 4 (error below 7e-10 relative, under a
// hundredth of float32's ulp; degree 6, 8e-13, cost two more fused
// multiply-adds a step).

var (
	asinP = [...]float64{0.029414628589904127, 0.005347900256315749, 0.019338841647537023, 0.022126925199081618,
		0.030398113279395983, 0.04464233871145494, 0.07500000629343552, 0.16666666665419558}
	atanR = [...]float64{-0x1.f1ed80f1f50cep-5, 0x1.b1ec2e564a631p-4, -0x1.23b522b8b39abp-3, 0x1.99919618bf076p-3,
		-0x1.5555492814eaap-2}
)

// asinCore returns asin t for t ≤ ½ or asin √((1−t)/2) for t > ½ (big).
func asinCore(t float64) (a float64, big bool) {
	z, s := t*t, t
	if big = t > 0.5; big {
		z = (1 - t) * 0.5
		s = math.Sqrt(z)
	}
	return math.FMA(s*z, horner(z, asinP[:]), s), big
}

// asin32 is Asin of one float32 as asinF32 computes it.
func asin32(x float32) float32 {
	a, big := asinCore(math.Abs(float64(x)))
	if big {
		a = math.FMA(-2, a, math.Pi/2)
	}
	return withSign32(float32(a), x)
}

// acos32 is Acos of one float32 as acosF32 computes it: a·c1 + c0 with
// c1 = ∓1 or ±2 by x's sign, and c0 = π/2, 0 or π.
func acos32(x float32) float32 {
	a, big := asinCore(math.Abs(float64(x)))
	neg := math.Signbit(float64(x))
	c1, c0 := -1.0, math.Pi/2
	if big {
		c1, c0 = 2, 0
		if neg {
			c0 = math.Pi
		}
	}
	if neg {
		c1 = -c1
	}
	return float32(math.FMA(c1, a, c0))
}

// atan32 is Atan of one float32 as atanF32 computes it.
func atan32(x float32) float32 {
	t := math.Abs(float64(x))
	num, den, base := t, 1.0, 0.0
	if t > math.Sqrt2-1 {
		num, den, base = t-1, t+1, math.Pi/4
	}
	if t > math.Sqrt2+1 {
		num, den, base = -1, t, math.Pi/2
	}
	u := num / den
	z := u * u
	return withSign32(float32(base+math.FMA(u*z, horner(z, atanR[:]), u)), x)
}
