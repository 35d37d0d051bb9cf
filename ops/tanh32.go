package ops

import "math"

// tanh32 is float32 Tanh in float32 arithmetic, within one ulp of the
// correctly rounded value (an exhaustive check over every float32 below 10
// found 99.8% exact, the rest one ulp off); the assembly kernels
// (tanh_amd64.s) do the same operations, fused multiply-adds included, so
// every machine gives the same bits. |x| < 0.6: x + x³·P(x²), P a degree-4
// fit. Else tanh|x| = m/(m+2) with m = e^2|x| − 1 = 2^n(1+p) − 1, p =
// e^r − 1 (r = 2|x| − n·ln2, |r| ≤ ln2/2, a degree-7 fit), the sum m+2
// and the quotient both corrected by their exact residuals (the
// correction's 1/(m+2) from a bit-pattern guess and one Newton step).
// |x| ≥ 9.1 gives ±1; NaN gives x.
func tanh32(x float32) float32 {
	a := float32(math.Abs(float64(x)))
	var t float32
	switch {
	case a < tanhSmall:
		z := a * a
		t = fma32(a*z, hornerF32(z, tanhP[:]), a)
	case a < tanhBig:
		y := a + a
		n := float32(math.RoundToEven(float64(y * tanhLog2e)))
		r := fma32(-n, tanhLn2Hi, y)
		r = fma32(-n, tanhLn2Lo, r)
		p := expm1Fit(r)
		s := float32(math.Ldexp(1, int(n)))
		m := fma32(s, p, s-1)
		d := m + 2
		dd := (m - d) + 2 // d + dd = m + 2 exactly (m ≥ 2)
		t = m / d
		res := fma32(-t, d, m)
		res = fma32(-t, dd, res)
		rc := math.Float32frombits(tanhMagic - math.Float32bits(d)) // 1/d within 12%
		rc = fma32(rc, fma32(-d, rc, 1), rc)
		t = fma32(res, rc, t)
	case a != a:
		return x
	default:
		t = 1
	}
	return float32(math.Copysign(float64(t), float64(x)))
}

// expm1Fit is e^r − 1 for |r| ≤ ln2/2: r + r²·Q(r), tanhQ's fit, Horner
// in fused multiply-adds (exp32 and tanh32; their kernels do the same).
func expm1Fit(r float32) float32 {
	return fma32(r*r, hornerF32(r, tanhQ[:]), r)
}

// hornerF32 is c[0] + z·(c[1] + z·(…)) in fused multiply-adds (fma32), as
// the float32 kernels evaluate their fits.
func hornerF32(z float32, c []float32) float32 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = fma32(p, z, c[i])
	}
	return p
}

// tanh32's constants (the assembly kernels' table, tanhc<>, holds their
// bits).
const (
	tanhSmall = float32(0.6)
	tanhBig   = float32(9.1)
	tanhLog2e = float32(math.Log2E)
	tanhLn2Hi = float32(math.Ln2)
	tanhMagic = 0x7ef311c3
)

var (
	tanhLn2Lo = float32(math.Ln2 - float64(tanhLn2Hi))
	tanhP     = [5]float32{-0.33333306474472113, 0.13332148650232506, -0.05380289294585797, 0.020860600847279687, -0.0059711659929794205}
	tanhQ     = [6]float32{0.5000000019776527, 0.1666666549933029, 0.04166643480495506, 0.008333606215292732, 0.001393564107696127, 0.0001971910480388639}
)

// fma32 is a·b + c rounded once to float32, as VFMADD…PS computes it:
// the product is exact in float64; the sum is rounded there to odd (its
// last bit set when inexact), which then rounds to float32 as the exact
// sum would (Boldo and Melquiond's round-to-odd).
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	bb := s - p
	e := (p - (s - bb)) + (cc - bb) // s + e = p + cc exactly
	if u := math.Float64bits(s); e != 0 && u&1 == 0 && !math.IsInf(s, 0) {
		if (e > 0) == (s > 0) {
			u++
		} else {
			u--
		}
		s = math.Float64frombits(u)
	}
	return float32(s)
}
