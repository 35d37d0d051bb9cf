package engine

import (
	"fmt"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// tensor's comparison interfaces and Clamp, each on the device through
// ops.Compare, ops.CompareScalar (and ops.CastWrap for AsSameType) or
// ops.BinaryScalar.
var (
	_ tensor.Lter    = (*Engine)(nil)
	_ tensor.Lteer   = (*Engine)(nil)
	_ tensor.Gter    = (*Engine)(nil)
	_ tensor.Gteer   = (*Engine)(nil)
	_ tensor.ElEqer  = (*Engine)(nil)
	_ tensor.Clamper = (*Engine)(nil)
)

// The comparisons return, as tensor's standard engine does, a Bool Dense
// of the engine (true where a op b holds) or, with tensor.AsSameType() or
// tensor.UseUnsafe(), a Dense of a's type holding 1 and 0 (written into a
// for UseUnsafe); tensor.WithReuse(r) writes r, which must be Bool or of
// a's type accordingly. Shapes must match (no broadcasting). The Scalar
// forms compare with a Go value of a's element type or a scalar Dense:
// a op s when leftTensor, else s op a. Comparisons with NaN are false
// except ElNe / NeScalar.
func (e *Engine) Lt(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.LT, a, b, nil, true, opts)
}
func (e *Engine) Lte(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.LE, a, b, nil, true, opts)
}
func (e *Engine) Gt(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.GT, a, b, nil, true, opts)
}
func (e *Engine) Gte(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.GE, a, b, nil, true, opts)
}
func (e *Engine) ElEq(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.EQ, a, b, nil, true, opts)
}
func (e *Engine) ElNe(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.NE, a, b, nil, true, opts)
}

func (e *Engine) LtScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.LT, a, nil, s, leftTensor, opts)
}
func (e *Engine) LteScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.LE, a, nil, s, leftTensor, opts)
}
func (e *Engine) GtScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.GT, a, nil, s, leftTensor, opts)
}
func (e *Engine) GteScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.GE, a, nil, s, leftTensor, opts)
}
func (e *Engine) EqScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.EQ, a, nil, s, leftTensor, opts)
}
func (e *Engine) NeScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.cmp(ops.NE, a, nil, s, leftTensor, opts)
}

// cmp is a op b, or with b nil, a op s (s op a unless left).
func (e *Engine) cmp(op ops.CmpOp, a, b tensor.Tensor, s any, left bool, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	ad, f, err := cmpFns.of(a, op.String())
	if err != nil {
		return nil, err
	}
	return f(e, op, ad, b, s, left, opts)
}

var cmpFns = all(cmpT[float32], cmpT[float64], cmpT[int8], cmpT[int16], cmpT[int32], cmpT[int64], cmpT[uint8], cmpT[uint16], cmpT[uint32], cmpT[uint64])

// flipped is op with its operands exchanged: s op a is a flipped(op) s.
var flipped = map[ops.CmpOp]ops.CmpOp{ops.EQ: ops.EQ, ops.NE: ops.NE, ops.LT: ops.GT, ops.LE: ops.GE, ops.GT: ops.LT, ops.GE: ops.LE}

func cmpT[T array.Elem](e *Engine, op ops.CmpOp, a *tensor.Dense, b tensor.Tensor, s any, left bool, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	av, err := input[T](e.h, a)
	if err != nil {
		return nil, err
	}
	var run func(mask *array.Array[uint8]) error
	if b != nil {
		if !a.Shape().Eq(b.Shape()) {
			return nil, fmt.Errorf("%w: %v of shapes %v and %v: the device engine does not broadcast", array.ErrLayout, op, a.Shape(), b.Shape())
		}
		bd, err := dense(b)
		if err != nil {
			return nil, err
		}
		bv, err := input[T](e.h, bd)
		if err != nil {
			return nil, err
		}
		run = func(mask *array.Array[uint8]) error { return ops.Compare(mask, av, bv, op) }
	} else {
		x, sv, err := scalarOperand[T](e, s)
		if err != nil {
			return nil, err
		}
		if !left {
			op = flipped[op]
		}
		run = func(mask *array.Array[uint8]) error {
			if sv != nil {
				return ops.Compare(mask, av, sv, op)
			}
			return ops.CompareScalar(mask, av, x, op)
		}
	}
	fo := tensor.ParseFuncOpts(opts...)
	var ret *tensor.Dense
	switch {
	case fo.Reuse() != nil:
		if ret, err = dense(fo.Reuse()); err != nil {
			return nil, err
		}
		if !ret.Shape().Eq(a.Shape()) {
			return nil, fmt.Errorf("%w: reuse of shape %v for a result of shape %v", array.ErrLayout, ret.Shape(), a.Shape())
		}
	case !fo.Safe():
		ret = a
	case fo.Same():
		ret, err = e.newDense(a.Dtype(), a.Shape())
	default:
		ret, err = e.newDense(tensor.Bool, a.Shape())
	}
	if err != nil {
		return nil, err
	}
	switch ret.Dtype() {
	case tensor.Bool:
		mask, err := outputOf[uint8](e.h, ret)
		if err != nil {
			return nil, err
		}
		return ret, run(mask)
	case a.Dtype():
		dst, err := outputOf[T](e.h, ret)
		if err != nil {
			return nil, err
		}
		mask, err := e.temp8(dst.Extents())
		if err != nil {
			return nil, err
		}
		defer e.drop(mask)
		if err := run(mask); err != nil {
			return nil, err
		}
		return ret, ops.CastWrap(dst, mask)
	}
	return nil, fmt.Errorf("%w: %v into a %v Dense: the result is Bool, or %v with AsSameType", array.ErrType, op, ret.Dtype(), a.Dtype())
}

// temp8 is a uint8 Array with an allocation on the engine's device and
// nothing to upload: scratch that an op writes there.
func (e *Engine) temp8(ext []int) (*array.Array[uint8], error) {
	return deviceTemp[uint8](e, ext)
}

func deviceTemp[T array.Elem](e *Engine, ext []int) (*array.Array[T], error) {
	n := 1
	for _, x := range ext {
		n *= x
	}
	if n == 0 {
		return array.New[T](ext...), nil
	}
	// Its host side is never read: memory mapped lazily, from the pool.
	hb, err := e.h.scratch(n * int(unsafe.Sizeof(*new(T))))
	if err != nil {
		return nil, fmt.Errorf("engine: scratch on the host: %w", err)
	}
	t, err := array.NewOver[T](hb, ext...)
	if err != nil {
		hb.Free()
		return nil, fmt.Errorf("engine: scratch: %w", err)
	}
	if err := t.DeviceMalloc(e.dev); err != nil {
		t.Close()
		return nil, fmt.Errorf("engine: scratch on the device: %w", err)
	}
	t.SetHostDirty(false)
	return t, nil
}

// Clamp limits a's elements to [min, max] (Go values of a's element type,
// or scalar Denses) on the device: max(a, min), then min(·, max); a NaN
// element stays NaN as in the standard engine where ops.Binary with OpMax keeps it.
// It honours tensor's reuse, unsafe and incr options.
func (e *Engine) Clamp(a tensor.Tensor, min, max any, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	ad, f, err := clampFns.of(a, "Clamp")
	if err != nil {
		return nil, err
	}
	return f(e, ad, min, max, opts)
}

var clampFns = all(clampT[float32], clampT[float64], clampT[int8], clampT[int16], clampT[int32], clampT[int64], clampT[uint8], clampT[uint16], clampT[uint32], clampT[uint64])

func clampT[T array.Elem](e *Engine, a *tensor.Dense, lo, hi any, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	l, lv, err := scalarOperand[T](e, lo)
	if err != nil {
		return nil, err
	}
	h, hv, err := scalarOperand[T](e, hi)
	if err != nil {
		return nil, err
	}
	av, err := input[T](e.h, a)
	if err != nil {
		return nil, err
	}
	return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error {
		var err error
		if lv != nil {
			err = ops.Binary(dst, av, lv, ops.OpMax)
		} else {
			err = ops.BinaryScalar(dst, av, l, ops.OpMax)
		}
		if err != nil {
			return err
		}
		if hv != nil {
			return ops.Binary(dst, dst, hv, ops.OpMin)
		}
		return ops.BinaryScalar(dst, dst, h, ops.OpMin)
	})
}
