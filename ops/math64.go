package ops

import (
	"math"
	"unsafe"
)

// The float64 kernels: Abs and Neg (sign-bit masks, unary_amd64.s), Sqrt
// (VSQRTPD), Floor, Ceil, Round and Trunc (VROUNDPD, round_amd64.s), Exp
// (exp64.go), Sin and Cos (sin64.go), Log,
// which repeats package math's amd64 archLog operation for operation
// over positive normal numbers (log64_amd64.s), so it gives package
// math's bits (TestLogF64), Tanh and Sigmoid on Exp's (exp64.go, and
// here).

// unVec64 computes the unary ops it has float64 kernels for over float64
// slices, and reports whether op is one (unFloat does the others).
func unVec64(op UnaryOp, d, a []float64) bool {
	switch op {
	case OpExp:
		expLanes64(d, a)
	case OpSin, OpCos:
		sinCosLanes64(op == OpCos, d, a)
	case OpTan:
		lanesUntil(d, a, avx512Or(tanF64AVX512, tanF64), tan64)
	case OpLog:
		lanesUntil(d, a, avx512Or(logF64AVX512, logF64), math.Log) // archLog's operations, its bits
	case OpSoftplus:
		if !useAsm {
			return false
		}
		softplusLanes64(d, a)
	case OpLog1p:
		lanesUntil(d, a, avx512Or(log1pF64AVX512, log1pF64), log1p64)
	case OpSigmoid:
		lanes4or8(d, a, sigmoidF64AVX512, sigmoidF64, sigmoidF64one)
	case OpTanh:
		lanes4or8(d, a, tanhF64AVX512, tanhF64, tanhF64one)
	case OpSinh:
		lanes4or8(d, a, sinhF64AVX512, sinhF64, sinhF64one)
	case OpCosh:
		lanes4or8(d, a, coshF64AVX512, coshF64, coshF64one)
	case OpExpm1:
		lanes4or8(d, a, expm1F64AVX512, expm1F64, expm1F64one)
	case OpAtan:
		lanes4or8(d, a, atanF64AVX512, atanF64, atanF64one)
	case OpAsin:
		lanes4or8(d, a, asinF64AVX512, asinF64, asinF64one)
	case OpAcos:
		lanes4or8(d, a, acosF64AVX512, acosF64, acosF64one)
	case OpAbs, OpNeg, OpSqrt, OpRelu, OpSign, OpFloor, OpCeil, OpRound, OpTrunc:
		if !useAsm || len(d) == 0 {
			return false
		}
		kernelRuns.Add(1)
		p, q := unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0])
		switch op {
		case OpAbs:
			bitsF64(p, q, len(d), 1<<63-1, 0)
		case OpNeg:
			bitsF64(p, q, len(d), 1<<64-1, 1<<63)
		case OpSqrt:
			sqrtF64(p, q, len(d))
		case OpRelu:
			reluF64(p, q, len(d))
		case OpSign:
			signF64(p, q, len(d))
		default:
			roundF64(p, q, len(d), roundMode[op-OpFloor])
		}
	default:
		return false
	}
	return true
}

// Float64 Log1p on Log's kernels: with u = 1 + x, log u + (x − (u −
// 1))/u (the second term puts back what u's rounding lost) with x's
// sign, so ±0 stay ±0; within two ulps (TestLog1pF64). Where u is not a
// positive normal number (x ≤ −1, +Inf, NaN) package math's Log1p.

// log1p64 is Log1p of one float64 as the kernels compute it.
func log1p64(x float64) float64 {
	u := 1 + x
	if b := math.Float64bits(u); b < 1<<52 || b >= 0x7ff<<52 {
		return math.Log1p(x)
	}
	return withSign64(math.Log(u)+(x-(u-1))/u, x)
}

// Float64 Sigmoid: with e = e^−|x| (Exp's operations), 1/(1 + e) for x
// ≥ 0 and e/(1 + e) where x's sign bit is set, which keeps the subnormal
// results past −709 that 1/(1 + e^−x) (sigmoid64) loses to overflow;
// within two ulps (TestSigmoidF64). The kernels are exp64_amd64.s's
// SIGD8 and SIGD4.

// sigmoidF64one is one element as the kernels compute it: the numerator
// picked by x's sign bit (as VPMOVQ2M and VBLENDVPD do).
func sigmoidF64one(x float64) float64 {
	e := expF64one(math.Float64frombits(math.Float64bits(x) | 1<<63))
	n := 1.0
	if math.Signbit(x) {
		n = e
	}
	return n / (1 + e)
}

// softplusLanes64 stores softplus64 of a in d in pieces: e^−|x| (a sign
// mask, then Exp's kernels), log1p of it (Log1p's), then max(x, 0) added;
// the pieces are unStream's pooled buffer.
func softplusLanes64(d, a []float64) {
	bp := streamBufs.Get().(*[streamPiece]float32) // a stack array would escape, as in unStream
	defer streamBufs.Put(bp)
	buf := unsafe.Slice((*float64)(unsafe.Pointer(bp)), streamPiece/2)
	for i := 0; i < len(d); i += len(buf) {
		t := buf[:min(len(buf), len(d)-i)]
		x := a[i : i+len(t)]
		bitsF64(unsafe.Pointer(&t[0]), unsafe.Pointer(&x[0]), len(t), 1<<63-1, 1<<63)
		expLanes64(t, t)
		lanesUntil(t, t, avx512Or(log1pF64AVX512, log1pF64), log1p64)
		for j, v := range x {
			d[i+j] = max(v, 0) + t[j]
		}
	}
}
