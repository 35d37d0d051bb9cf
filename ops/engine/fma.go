package engine

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// FMA stores a·x + y in y on the device, one fused kernel (ops.Eval of
// an ops.Expr): tensor.FMA's engine form, a solver's update in one pass.
// The three Denses have one shape (no broadcasting).
func (e *Engine) FMA(a, x, y tensor.Tensor) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	ad, f, err := fmaFns.of(a, "FMA")
	if err != nil {
		return nil, err
	}
	return f(e, ad, x, y)
}

// FMAScalar stores a·x + y in y with x a scalar (a Go value of a's element
// type, or a scalar Dense), as FMA does.
func (e *Engine) FMAScalar(a tensor.Tensor, x any, y tensor.Tensor) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	ad, f, err := fmaFns.of(a, "FMAScalar")
	if err != nil {
		return nil, err
	}
	return f(e, ad, x, y)
}

var _ tensor.FMAer = (*Engine)(nil)

var fmaFns = all(fmaT[float32], fmaT[float64], fmaT[int8], fmaT[int16], fmaT[int32], fmaT[int64], fmaT[uint8], fmaT[uint16], fmaT[uint32], fmaT[uint64])

// fmaT is FMA (x a Tensor) and FMAScalar (x a value or a scalar Dense).
func fmaT[T array.Elem](e *Engine, a *tensor.Dense, x any, y tensor.Tensor) (tensor.Tensor, error) {
	if !a.Shape().Eq(y.Shape()) {
		return nil, fmt.Errorf("%w: FMA of shapes %v and %v: the device engine does not broadcast", array.ErrLayout, a.Shape(), y.Shape())
	}
	vs, err := views[T](e, a, y)
	if err != nil {
		return nil, err
	}
	var xe ops.Expr[T]
	if xt, ok := x.(tensor.Tensor); ok && !xt.IsScalar() {
		if !xt.Shape().Eq(a.Shape()) {
			return nil, fmt.Errorf("%w: FMA of shapes %v and %v: the device engine does not broadcast", array.ErrLayout, a.Shape(), xt.Shape())
		}
		xv, err := views[T](e, xt)
		if err != nil {
			return nil, err
		}
		xe = ops.In(xv[0])
	} else {
		// a Go value (a kernel argument) or a scalar Dense (read where it lives)
		s, sv, err := scalarOperand[T](e, x)
		if err != nil {
			return nil, err
		}
		xe = ops.Const(s)
		if sv != nil {
			xe = ops.In(sv)
		}
	}
	return y, ops.Eval(vs[1], ops.In(vs[0]).Binary(ops.OpMul, xe).Binary(ops.OpAdd, ops.In(vs[1])))
}
