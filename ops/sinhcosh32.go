package ops

import "math"

// Float32 Sinh and Cosh in float32 lanes (sixteen a step on AVX-512, eight
// on AVX2: twice the float64 lanes' width), within one ulp of the
// correctly rounded value; every float32 below 90.5 (go test ./ops -run
// SinhCoshAccuracy -hyp.step=1) gives 99.76% of Cosh's and 99.87% of
// Sinh's correctly rounded. With a =
// |x| = n·ln2 + r (r's first part exact, as in exp32), e^a = 2^n·E:
//
//	E = (1 + r) + (t + u),  t = r²·Q(r) (tanh32's fit), u = r_lo·e^r
//
// with 1 + r split into its float32 sum and exact residual (e_h + e_l),
// so that only t and u round below E's ulp. Then
//
//	cosh a = 2^(n−1)·(E + 2^(−2n)/E),  sinh a = 2^(n−1)·(E − 2^(−2n)/E)
//
// the last sum rounding once and the scale exact (or +Inf). Near 0 the
// differences lose digits, so a < ln2/2 (n = 0) takes Cosh's series 1 +
// a²·C(a²), and n ≤ 1 (a < 1.04) Sinh's a + a³·S(a²) (Taylor to a¹¹:
// truncation below 3e-10). a is clamped to 90 (past 89.42 both are
// +Inf); 2^(−2n) takes n ≤ 24 (beyond, the term is below 2^−48 of E).
// NaN gives NaN. The kernels (sinhcosh_amd64.s) do these operations,
// fused multiply-adds included, so every machine gives the same bits
// (TestHypKernels).

const (
	hypHi   = float32(90)
	hypTerm = float32(24)
)

var (
	sinhS = [5]float32{1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800}
	coshC = [4]float32{1.0 / 2, 1.0 / 24, 1.0 / 720, 1.0 / 40320}
)

// sinhCosh32 is sinh|x| (odd) or cosh x of one float32 as the kernels
// compute them; Sinh's sign is the caller's.
func sinhCosh32(x float32, odd bool) float32 {
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	if a > hypHi { // a comparison: NaN passes
		a = hypHi
	}
	n := float32(math.RoundToEven(float64(a * tanhLog2e)))
	if odd && n <= 1 || !odd && n == 0 {
		z := a * a
		if odd {
			return fma32(a*z, hornerF32(z, sinhS[:]), a)
		}
		return fma32(z, hornerF32(z, coshC[:]), 1)
	}
	r := fma32(-n, tanhLn2Hi, a)
	rl := n * expNegLn2Lo
	t := float32(r*r) * hornerF32(r, tanhQ[:])
	u := fma32(rl, r+t, rl)
	eh := 1 + r
	el := (1 - eh) + r // eh + el = 1 + r exactly
	el += t + u
	m := n
	if m > hypTerm {
		m = hypTerm
	}
	s := (1 / (eh + el)) * math.Float32frombits(uint32(127-2*int32(m))<<23)
	if odd {
		s = -s
	}
	return scale2(eh+(el+s), n-1)
}

// sinh32 is Sinh of one float32 as sinhF32 computes it.
func sinh32(x float32) float32 { return withSign32(sinhCosh32(x, true), x) }

// cosh32 is Cosh of one float32 as coshF32 computes it.
func cosh32(x float32) float32 { return sinhCosh32(x, false) }
