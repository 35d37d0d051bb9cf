package engine

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
)

// Dot is tensor's Dot (tensor.Dot, and tensor.Contract, which gorgonia's
// BarzilaiBorwein solver uses for its scalar products, through
// Dense.TensorMul) for the shapes the standard engine handles without
// TensorMul: two vectors ((n), (1, n) or (n, 1), of one length) give
// their inner product, a 0-D Dense; two matrices their MatMul (reuse and
// incr as for MatMul); a 0-D operand multiplies the other. Other shapes are
// an error wrapping array.ErrLayout that names the fix. A result of one
// element comes home at once, explicitly (allowed under the transfer
// guard, counted), as reductions to a scalar do: tensor and gorgonia read
// it straight from host memory (Contract's caller reads Data()[0]).
func (e *Engine) Dot(x, y tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	a, err := dense(x)
	if err != nil {
		return nil, err
	}
	b, err := dense(y)
	if err != nil {
		return nil, err
	}
	as, bs := a.Shape(), b.Shape()
	var r tensor.Tensor
	switch {
	case as.IsScalar() || bs.IsScalar():
		r, err = e.Mul(a, b, opts...)
	case as.IsVector() && bs.IsVector():
		if a.DataSize() != b.DataSize() {
			return nil, fmt.Errorf("%w: Dot of vectors of shapes %v and %v: pass vectors of one length", array.ErrShape, as, bs)
		}
		// The standard engine returns a new scalar here, whatever reuse
		// and incr say; so does this.
		var av, bv *tensor.Dense
		if av, err = flatView(a); err == nil {
			if bv, err = flatView(b); err == nil {
				var p tensor.Tensor
				if p, err = e.Mul(av, bv); err == nil {
					r, err = e.Sum(p)
				}
			}
		}
	case as.IsMatrix() && bs.IsMatrix():
		r, err = a.MatMul(b, opts...)
	default:
		return nil, fmt.Errorf("%w: Dot of shapes %v and %v on the device engine: it does Dot of two vectors or two matrices; reshape the operands (a vector to (n, 1)) and call MatMul", array.ErrLayout, as, bs)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: Dot of shapes %v and %v: %w", as, bs, err)
	}
	if rd, ok := r.(*tensor.Dense); ok && rd.DataSize() == 1 {
		e.h.noteScalar(rd)
		if err := e.homeNow(rd); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// flatView is a 1-D Dense over d's elements, sharing its memory: d itself
// when it is 1-D.
func flatView(d *tensor.Dense) (*tensor.Dense, error) {
	if d.Dims() == 1 {
		return d, nil
	}
	v := d.ShallowClone()
	if err := v.Reshape(d.DataSize()); err != nil {
		return nil, fmt.Errorf("%w: a vector of shape %v, strides %v, as 1-D: %v; Materialize it first", array.ErrLayout, d.Shape(), d.Strides(), err)
	}
	return v, nil
}

var _ tensor.Dotter = (*Engine)(nil)
