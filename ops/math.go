package ops

import (
	"math"

	"github.com/resident-go/resident/array"
)

// unMath computes the unary ops from Exp on: float64 (and float32 where
// math32.go has no kernel of its own) through package math in float64,
// integers by their definitions in unary.go.
func unMath[T array.Elem](op UnaryOp, d, a []T) {
	a = a[:len(d)]
	if kindOf[T]() != kFloat {
		unInt(op, d, a)
		return
	}
	var f func(float64) float64
	switch op {
	case OpExp:
		f = math.Exp
	case OpLog:
		f = math.Log
	case OpTanh:
		f = math.Tanh
	case OpSin:
		f = math.Sin
	case OpCos:
		f = math.Cos
	case OpTan:
		f = math.Tan
	case OpAsin:
		f = math.Asin
	case OpAcos:
		f = math.Acos
	case OpAtan:
		f = math.Atan
	case OpSinh:
		f = math.Sinh
	case OpCosh:
		f = math.Cosh
	case OpSigmoid:
		f = sigmoid64
	case OpSoftplus:
		f = softplus64
	case OpRelu:
		f = relu64
	case OpFloor:
		f = math.Floor
	case OpCeil:
		f = math.Ceil
	case OpRound:
		f = math.RoundToEven
	case OpTrunc:
		f = math.Trunc
	case OpSign:
		f = sign64
	default:
		panic("ops: unMath of " + op.String())
	}
	for i, x := range a {
		d[i] = T(f(float64(x)))
	}
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// softplus64 is log(1+e^x) without overflow: max(x,0) + log1p(e^−|x|).
func softplus64(x float64) float64 { return max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

func relu64(x float64) float64 {
	if x > 0 || x != x {
		return x
	}
	return 0
}

// sign64 is NumPy's sign: ±1, 0 for ±0, NaN for NaN.
func sign64(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// unInt computes the ops that integers define: Relu, Sign and the
// rounding ops (the identity).
func unInt[T array.Elem](op UnaryOp, d, a []T) {
	signed := kindOf[T]() == kSigned
	switch op {
	case OpRelu:
		if !signed {
			copy(d, a)
			return
		}
		for i, x := range a {
			d[i] = max(x, 0)
		}
	case OpSign:
		var one T = 1
		for i, x := range a {
			switch {
			case x > 0:
				d[i] = one
			case x < 0: // signed only
				d[i] = -one
			default:
				d[i] = 0
			}
		}
	case OpFloor, OpCeil, OpRound, OpTrunc:
		copy(d, a)
	default:
		panic("ops: unInt of " + op.String())
	}
}
