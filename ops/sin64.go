package ops

import (
	"math"
	"unsafe"
)

// Float64 Sin and Cos in float64 lanes (eight a step on AVX-512, four on
// AVX2), in place of package math's one element at a time (0.09x NumPy's
// speed at 2^16): package math's own algorithm for |x| < 2^29 (Cody and
// Waite's reduction by π/4 in three parts, Cephes' polynomials), each
// product and sum rounded as math's source writes them, so the results
// are package math's bits as built without fused multiply-adds (the
// default GOAMD64=v1; TestSinCosF64). Cos is Sin two octants on. Past
// 2^29, NaN and ±Inf take package math (the kernels stop before such a
// step of eight).

// The π/4 parts and polynomials of package math's sin.go (sin64_amd64.s's
// table holds their bits).
const (
	pio4A = 7.85398125648498535156e-1
	pio4B = 3.77489470793079817668e-8
	pio4C = 2.69515142907905952645e-15
)

var (
	sin64P = [6]float64{1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
		-1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1}
	cos64P = [6]float64{-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
		2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2}
)

// sinCos64 is Sin (Cos with cos) of one float64 as sinCosF64 computes it;
// the explicit conversions keep the compiler from fusing a product into
// a sum (GOAMD64=v3 would), so every build gives the kernels' bits.
func sinCos64(x float64, cos bool) float64 {
	ax := math.Abs(x)
	if !(ax < 1<<29) {
		if cos {
			return math.Cos(x)
		}
		return math.Sin(x)
	}
	j, z := reduce64(ax)
	if cos {
		j += 2
	}
	zz := float64(z * z)
	var r float64
	if j&2 != 0 {
		r = float64(1-float64(0.5*zz)) + float64(float64(zz*zz)*poly64(zz, &cos64P))
	} else {
		r = z + float64(float64(z*zz)*poly64(zz, &sin64P))
	}
	if j&4 != 0 {
		r = -r
	}
	if !cos && math.Signbit(x) {
		r = -r
	}
	return r
}

// reduce64 is package math's reduction of ax (in [0, 2^29)) by π/4: j =
// ⌊ax·4/π⌋ made even, and z = ax − j·π/4 in three parts.
func reduce64(ax float64) (j uint64, z float64) {
	j = uint64(float64(ax * (4 / math.Pi)))
	j += j & 1
	y := float64(j)
	return j, float64(float64(ax-float64(y*pio4A))-float64(y*pio4B)) - float64(y*pio4C)
}

// poly64 is package math's ((((c0·zz + c1)·zz + c2)·zz + c3)·zz + c4)·zz
// + c5, each product rounded.
func poly64(zz float64, c *[6]float64) float64 {
	p := float64(c[0] * zz)
	for _, v := range c[1:5] {
		p = float64(float64(p+v) * zz)
	}
	return p + c[5]
}

// Float64 Tan is package math's too (its reduction, as Sin's, and
// Cephes' rational form), each product rounded: tan64, tanF64's kernels.
var (
	tan64P = [3]float64{-1.30936939181383777646e4, 1.15351664838587416140e6, -1.79565251976484877988e7}
	tan64Q = [4]float64{1.36812963470692954678e4, -1.32089234440210967447e6, 2.50083801823357915839e7, -5.38695755929454629881e7}
)

// tan64 is Tan of one float64 as tanF64 computes it.
func tan64(x float64) float64 {
	ax := math.Abs(x)
	if !(ax < 1<<29) {
		return math.Tan(x)
	}
	j, z := reduce64(ax)
	zz := float64(z * z)
	r := z
	if zz > 1e-14 {
		p := float64(float64(float64(tan64P[0]*zz)+tan64P[1])*zz) + tan64P[2]
		q := zz + tan64Q[0]
		for _, c := range tan64Q[1:] {
			q = float64(q*zz) + c
		}
		r = z + float64(z*float64(float64(zz*p)/q))
	}
	if j&2 == 2 {
		r = -1 / r
	}
	if math.Signbit(x) {
		r = -r
	}
	return r
}

func sin64(x float64) float64 { return sinCos64(x, false) }
func cos64(x float64) float64 { return sinCos64(x, true) }

// sinCosLanes64 stores Sin (Cos with cos) of a in d (lanesUntil).
func sinCosLanes64(cos bool, d, a []float64) {
	k, q, smask, one := avx512Or(sinCosF64AVX512, sinCosF64), int32(0), uint64(1<<63), sin64
	if cos {
		q, smask, one = 2, 0, cos64
	}
	lanesUntil(d, a, func(d, a unsafe.Pointer, n int) int { return k(d, a, n, q, smask) }, one)
}
