package ops

import (
	"math"
	"unsafe"
)

// The float64 kernels: Abs and Neg (sign-bit masks, unary_amd64.s), Sqrt
// (VSQRTPD), Floor, Ceil, Round and Trunc (VROUNDPD, round_amd64.s), Exp
// (exp64.go), Sin and Cos (sin64.go) and Log,
// which repeats package math's amd64 archLog operation for operation
// over positive normal numbers (log64_amd64.s), so it gives package
// math's bits (TestLogF64).

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
