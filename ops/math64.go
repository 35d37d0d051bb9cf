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
// math's bits (TestLogF64), Tanh on Exp's (exp64.go) and Sigmoid through
// them (here).

// unVec64 computes the unary ops it has float64 kernels for over float64
// slices, and reports whether op is one (unFloat does the others).
func unVec64(op UnaryOp, d, a []float64) bool {
	switch op {
	case OpExp:
		expLanes64(d, a)
	case OpSin, OpCos:
		sinCosLanes64(op == OpCos, d, a)
	case OpLog:
		logLanes64(d, a)
	case OpSigmoid:
		sigmoidLanes64(d, a)
	case OpTanh:
		tanhLanes64(d, a)
	case OpAbs, OpNeg, OpSqrt, OpFloor, OpCeil, OpRound, OpTrunc:
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
		default:
			roundF64(p, q, len(d), roundMode[op-OpFloor])
		}
	default:
		return false
	}
	return true
}

// logLanes64 stores Log of a in d (lanesUntil): package math's archLog
// in the kernels (log64_amd64.s), package math for the steps they leave.
func logLanes64(d, a []float64) {
	k := logF64
	if useAVX512 {
		k = logF64AVX512
	}
	lanesUntil(d, a, k, math.Log)
}

// sigmoidLanes64 stores Sigmoid of a in d: with e = e^−|x| from Exp's
// kernels (expLanes64, over pieces of stack buffers), 1/(1 + e) for
// x ≥ 0 and e/(1 + e) below, which keeps the subnormal results past
// −709 that 1/(1 + e^−x) (sigmoid64) loses to overflow; the quotients in
// divF64's lanes where there are kernels. d may be a.
func sigmoidLanes64(d, a []float64) {
	var num, den [256]float64
	for i := 0; i < len(d); i += len(num) {
		n, x := num[:min(len(num), len(d)-i)], a[i:]
		for j := range n {
			n[j] = -math.Abs(x[j])
		}
		expLanes64(n, n)
		for j, e := range n {
			n[j], den[j] = sigmoidNum(x[j], e), 1+e
		}
		if useAsm {
			divF64(unsafe.Pointer(&d[i]), unsafe.Pointer(&n[0]), unsafe.Pointer(&den[0]), len(n), false)
			continue
		}
		for j := range n {
			d[i+j] = n[j] / den[j]
		}
	}
}

// sigmoidNum is e where x's sign bit is set, else 1, picked by a mask (a
// branch on random signs mispredicts half the time).
func sigmoidNum(x, e float64) float64 {
	m := uint64(int64(math.Float64bits(x)) >> 63)
	return math.Float64frombits(math.Float64bits(e)&m | math.Float64bits(1)&^m)
}

// sigmoidF64one is one element as sigmoidLanes64 computes it.
func sigmoidF64one(x float64) float64 {
	e := expF64one(-math.Abs(x))
	return sigmoidNum(x, e) / (1 + e)
}
