package ops

import "math"

// Float64 Atan, Asin and Acos as package math computes them (Cephes'
// satan and xatan; Asin over satan; Acos as π/2 − Asin), the same
// operations in the same order, unfused, eight lanes a step on AVX-512,
// four on AVX2 (atan64_amd64.s), in place of package math's one element
// at a time (0.1-0.17x NumPy's speed here). Each lane does the same work:
// one quotient gives satan's reduced argument (a/1, 1/a or (a−1)/(a+1)),
// and masks pick the constants added after xatan. Package math's bits
// where the compiler does not fuse (GOAMD64 below v3): TestAtan64.

var (
	atanP64 = [...]float64{-8.750608600031904122785e-01, -1.615753718733365076637e+01, -7.500855792314704667340e+01,
		-1.228866684490136173410e+02, -6.485021904942025371773e+01}
	atanQ64 = [...]float64{2.485846490142306297962e+01, 1.650270098316988542046e+02, 4.328810604912902668951e+02,
		4.853903996359136964868e+02, 1.945506571482613964425e+02}
)

const (
	atanMore = 6.123233995736765886130e-17 // π/2 = float64(π/2) + atanMore
	tan3pio8 = 2.41421356237309504880
)

// xatan64 is package math's xatan, each product rounded.
func xatan64(x float64) float64 {
	z := float64(x * x)
	p, q := atanP64[0], z+atanQ64[0]
	for i := 1; i < 5; i++ {
		p = float64(p*z) + atanP64[i]
		q = float64(q*z) + atanQ64[i]
	}
	z = float64(z*p) / q
	return float64(x*z) + x
}

// satan64 is package math's satan: atan of a ≥ 0.
func satan64(a float64) float64 {
	if a <= 0.66 {
		return xatan64(a)
	}
	if a > tan3pio8 {
		return math.Pi/2 - xatan64(1/a) + atanMore
	}
	return math.Pi/4 + xatan64((a-1)/(a+1)) + 0.5*atanMore
}

// atanF64one is float64 Atan of one element as the kernels compute it.
func atanF64one(x float64) float64 { return withSign64(satan64(math.Abs(x)), x) }

// asinF64one is float64 Asin of one element as the kernels compute it.
func asinF64one(x float64) float64 {
	a := math.Abs(x)
	q := math.Sqrt(1 - float64(a*a))
	if a > 0.7 {
		return withSign64(math.Pi/2-satan64(q/a), x)
	}
	return withSign64(satan64(a/q), x)
}

// acosF64one is float64 Acos of one element as the kernels compute it.
func acosF64one(x float64) float64 { return math.Pi/2 - asinF64one(x) }
