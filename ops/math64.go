package ops

import (
	"math"
	"unsafe"
)

// The float64 kernels: Exp (exp64.go), Sin and Cos (sin64.go) and Log,
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
	default:
		return false
	}
	return true
}

// logLanes64 stores Log of a in d (lanes64Until): package math's archLog
// in the kernels (log64_amd64.s), package math for the steps they leave.
func logLanes64(d, a []float64) {
	k := logF64
	if useAVX512 {
		k = logF64AVX512
	}
	lanes64Until(d, a, k, math.Log)
}

// lanes64Until runs k over eight-element steps of a, which stops before a
// step with a lane it leaves to one (and reports the elements done); the
// Go loop takes that step, and the tail.
func lanes64Until(d, a []float64, k func(d, a unsafe.Pointer, n int) int, one func(float64) float64) {
	a = a[:len(d)]
	i := 0
	for useAsm && len(d)-i >= 8 {
		kernelRuns.Add(1)
		i += k(unsafe.Pointer(&d[i]), unsafe.Pointer(&a[i]), (len(d)-i)&^7)
		if len(d)-i >= 8 {
			for j := i; j < i+8; j++ {
				d[j] = one(a[j])
			}
			i += 8
		}
	}
	for ; i < len(d); i++ {
		d[i] = one(a[i])
	}
}
