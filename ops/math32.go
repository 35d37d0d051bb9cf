package ops

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// kernelRuns counts the calls of unVec32's assembly kernels (one per
// call that ran any), for tests to see that Unary reaches them.
var kernelRuns atomic.Int64

// roundMode is VROUNDPS's mode of OpFloor, OpCeil, OpRound and OpTrunc.
var roundMode = [4]int{1, 2, 0, 3}

// float32 kernels of the transcendental ops (Exp, Sin, Cos, Tan, Sigmoid,
// Pow here; Log and Log1p in log32.go, Expm1 in hyp32.go, Sinh and Cosh
// in sinhcosh32.go, Asin, Acos and Atan in asin32.go), also used by
// Float16 and BFloat16,
// which compute in float32. They compute in float64 with short series
// whose truncation error (below 1e-9 relative) is far under float32's half
// ulp (6e-8), so results are the correctly rounded float32 value or its
// neighbour; package math's float64 functions take what the fast paths
// do not cover (huge arguments, NaN, Inf, Pow's special cases). Tanh,
// Sinh and Cosh compute in float32 (tanh32.go, sinhcosh32.go), within one
// ulp; Pow (pow32.go) takes tables too.

// unVec32 computes the unary ops it has float32 kernels for over float32
// slices, and reports whether op is one (unFloat does the others).
func unVec32(op UnaryOp, d, a []float32) bool {
	a = a[:len(d)]
	switch op {
	case OpTanh:
		lanes32(d, a, tanhF32AVX512, tanhF32, tanh32)
	case OpExp:
		lanes32(d, a, exp32F32AVX512, exp32F32, exp32)
	case OpSigmoid: // in float64 lanes
		lanes32(d, a, sigmoidF32AVX512, sigmoidF32, sigmoid32)
	case OpSin, OpCos:
		if useAsm {
			sincos32(op, d, a)
			return true
		}
		sinCos32(op == OpCos, d, a)
	case OpTan:
		lanesUntil(d, a, avx512Or(tanF32AVX512, tanF32), tan32)
	case OpLog:
		logLanes(d, a)
	case OpLog1p:
		log1pLanes(d, a)
	case OpExpm1:
		lanes32(d, a, expm1F32AVX512, expm1F32, expm1_32)
	case OpSinh:
		lanes32(d, a, sinhF32AVX512, sinhF32, sinh32)
	case OpCosh:
		lanes32(d, a, coshF32AVX512, coshF32, cosh32)
	case OpSoftplus:
		lanes32(d, a, softplusF32AVX512, softplusF32, softplus32)
	case OpAsin:
		lanes32(d, a, asinF32AVX512, asinF32, asin32)
	case OpAcos:
		lanes32(d, a, acosF32AVX512, acosF32, acos32)
	case OpAtan:
		lanes32(d, a, atanF32AVX512, atanF32, atan32)
	case OpAbs, OpNeg, OpSqrt, OpRelu, OpSign:
		if !useAsm || len(d) == 0 {
			return false
		}
		p, q := unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0])
		kernelRuns.Add(1)
		switch op {
		case OpAbs:
			bitsF32(d, a, 1<<31-1, 0)
		case OpNeg:
			bitsF32(d, a, 1<<32-1, 1<<31)
		case OpSqrt:
			sqrtF32(p, q, len(d))
		case OpSign:
			signF32(p, q, len(d))
		default:
			reluF32(p, q, len(d))
		}
	case OpRound, OpFloor, OpCeil, OpTrunc:
		if useAsm && len(d) > 0 {
			kernelRuns.Add(1)
			roundF32(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), len(d), roundMode[op-OpFloor], false)
			return true
		}
		unFloat(op, d, a)
	default:
		return false
	}
	return true
}

// bitsF32 stores a&and ^ xor of each float32's bits in d: bitsF64 over
// pairs, the masks doubled, and a last odd element here.
func bitsF32(d, a []float32, and, xor uint32) {
	n := len(d)
	if n >= 2 {
		bitsF64(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), n/2, uint64(and)<<32|uint64(and), uint64(xor)<<32|uint64(xor))
	}
	if n%2 == 1 {
		d[n-1] = math.Float32frombits(math.Float32bits(a[n-1])&and ^ xor)
	}
}

// horner is c[0]·z^(n−1) + … + c[n−1], in fused multiply-adds.
func horner(z float64, c []float64) float64 {
	p := c[0]
	for _, v := range c[1:] {
		p = math.FMA(p, z, v)
	}
	return p
}

// exp64 is e^x for the range of float32 results: x is clamped to
// [−110, 709], where e^x is 0 in float32 or near float64's largest value
// (so 1/(1+e^x) is still 0 in float32) past the ends. It
// reduces x = k·ln2 + r, |r| ≤ ln2/2, and sums the Taylor series of e^r
// to r⁸ (error below 3e-10 relative). NaN gives NaN.
func exp64(x float64) float64 {
	if x < -110 { // comparisons, not min and max: NaN passes them and stays NaN
		x = -110
	}
	if x > 709 {
		x = 709
	}
	const (
		log2e = 1.4426950408889634
		ln2hi = 6.93147180369123816490e-01 // ln2's high 32 bits: k·ln2hi is exact
		ln2lo = 1.90821492927058770002e-10
		round = 0x1.8p52 // adding and subtracting it rounds to an integer
	)
	k := x*log2e + round - round
	r := x - k*ln2hi - k*ln2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040+r*(1.0/40320))))))))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}

// tan32 is Tan of one float32 as tanF32 computes it: x = q·π/2 + r
// with |r| ≤ π/4 (π/2 in three parts, fdlibm's, so r is exact to 1e-20
// for |x| < 2^20), then polynomials for sin r (to r⁷) and cos r (to r⁸)
// in fused multiply-adds, and s/c or −c/s by q's parity (the low bit
// of q's magic-number form). |x| ≥ 2^20, NaN and Inf take math.
func tan32(x32 float32) float32 {
	const (
		twoOverPi = 6.36619772367581382433e-01
		round     = 0x1.8p52
	)
	x := float64(x32)
	if !(math.Abs(x) < 1<<20) {
		return float32(math.Tan(x))
	}
	kk := math.FMA(x, twoOverPi, round)
	q := kk - round
	r := math.FMA(-q, pio2a, x)
	r = math.FMA(-q, pio2b, r)
	r = math.FMA(-q, pio2c, r)
	r2 := r * r
	s := r * horner(r2, tanSin[:]) // keeps −0
	c := horner(r2, tanCos[:])
	if math.Float64bits(kk)&1 != 0 {
		s, c = -c, s
	}
	return float32(s / c)
}

// sin r / r and cos r in z = r², highest first (tan_amd64.s's table,
// tanv<>, holds their bits): fits with the least worst relative error
// over |r| ≤ π/4 (3.8e-9 and 6.4e-11, below float32's 6e-8 half ulp;
// Taylor's series need a term more each for as little).
var (
	tanSin = [...]float64{-0x1.9943e03bca900p-13, 0x1.11073afacc45bp-7, -0x1.5555452683e18p-3, 1}
	tanCos = [...]float64{0x1.99169f073f400p-16, -0x1.6c07f165f2d20p-10, 0x1.55553c7890a87p-5, -0x1.ffffffcb82d19p-2, 1}
)

// π/2 in three parts (fdlibm's): the first two of 33 bits, so m·part is
// exact for |m| < 2^20.
const (
	pio2a = 1.57079632673412561417e+00
	pio2b = 6.07710050630396597660e-11
	pio2c = 2.02226624879595063154e-21
)

// sinCos32 computes Sin (Cos with cos) in float64 with one odd polynomial:
// m = 2k (cos: 2k+1) with k = rint(x/π) (cos: rint(x/π − ½)), r = x − m·π/2
// in [−π/2, π/2] (π/2 in three parts), sin r = r·(1 + r²·P(r²)) with P of
// degree 4 (relative error 2^−35 on [0, π/2]), and the result negated
// when k (cos: k+1) is odd: the sign from the low bit of k's magic-number
// form. The assembly kernels (sin_amd64.s) do the same operations, fused
// multiply-adds included. |x| ≥ 2^20, NaN and Inf take math.
func sinCos32(cos bool, d, a []float32) {
	half, c, odd := 0.0, 0.0, uint64(0)
	if cos {
		half, c, odd = 0.5, 1, 1
	}
	for i, x32 := range a {
		x := float64(x32)
		if !(math.Abs(x) < 1<<20) {
			if cos {
				d[i] = float32(math.Cos(x))
			} else {
				d[i] = float32(math.Sin(x))
			}
			continue
		}
		kk := (float64(x*sinInvPi) - half) + sinMagic // k in the low bits
		m := math.FMA(kk-sinMagic, 2, c)
		r := math.FMA(-m, pio2a, x)
		r = math.FMA(-m, pio2b, r)
		r = math.FMA(-m, pio2c, r)
		z := r * r
		p := sinP[4]
		for j := 3; j >= 0; j-- {
			p = math.FMA(p, z, sinP[j])
		}
		s := r * math.FMA(z, p, 1) // keeps −0
		d[i] = float32(math.Float64frombits(math.Float64bits(s) ^ (math.Float64bits(kk)+odd)<<63))
	}
}

// sinCos32's constants (sin_amd64.s's table, sinv<>, holds their bits).
const (
	sinInvPi = 1 / math.Pi
	sinMagic = 0x1.8p52
)

var sinP = [5]float64{-0.16666666626155172, 0.008333331108791364, -0.0001984086823032115, 2.75253853175084e-06, -2.388892293096051e-08}

// lanes32 computes d from a with a float32 op's kernels: the AVX-512 one
// (if any) over the first multiple of 16, the AVX2 one over the rest of
// the first multiple of 8, and its Go function over the last lanes (all of them
// without the kernels).
func lanes32(d, a []float32, k512, k2 func(d, a unsafe.Pointer, n int), one func(float32) float32) {
	i := 0
	if useAsm {
		w, m := lanes512(len(d), 8)
		if k512 == nil {
			w = 0
		}
		if w > 0 {
			k512(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), w)
		}
		if m > w {
			k2(unsafe.Pointer(&d[w]), unsafe.Pointer(&a[w]), m-w)
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

// sigmoid32 is float32 Sigmoid through exp64, as sigmoidF32 computes it.
func sigmoid32(x float32) float32 { return float32(1 / (1 + exp64(-float64(x)))) }

// lanes512 splits n lanes among the assembly kernels: the first w (a
// multiple of 16; none without AVX-512) to the AVX-512 one, the rest of
// the first m (a multiple of unit, a power of two) to the AVX2 one.
func lanes512(n, unit int) (w, m int) {
	if useAVX512 {
		w = n &^ 15
	}
	return w, n &^ (unit - 1)
}

// sincos32 is sinCos32 with the assembly kernels, which leave the lanes
// they do not cover (|x| ≥ 2^20, NaN, Inf) holding x and say so: only
// then are they found and redone by sinCos32, as is the last n mod 4. d
// is a or does not overlap it.
func sincos32(op UnaryOp, d, a []float32) {
	cos := 0
	if op == OpCos {
		cos = 1
	}
	w, m := lanes512(len(d), 4)
	kernelRuns.Add(1)
	slow := 0
	if w > 0 {
		slow = sinF32AVX512(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), w, cos)
	}
	if m > w {
		slow |= sinF32(unsafe.Pointer(&d[w]), unsafe.Pointer(&a[w]), m-w, cos)
	}
	if slow != 0 {
		for i, v := range a[:m] { // a slow lane's a[i] is x, in place too
			if !(math.Abs(float64(v)) < 1<<20) {
				sinCos32(cos == 1, d[i:i+1], a[i:i+1])
			}
		}
	}
	sinCos32(cos == 1, d[m:], a[m:])
}
