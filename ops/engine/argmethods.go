package engine

import (
	"fmt"
	"strconv"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

var (
	_ tensor.Argmaxer = (*Engine)(nil)
	_ tensor.Argminer = (*Engine)(nil)
)

// Argmax returns the indices of the first maximum along axis (tensor's
// row-major numbering) as an Int Dense of the engine, on the device (ops.ArgMax);
// a NaN counts as the maximum. With axis tensor.AllAxes it returns, as the
// standard engine does, a host scalar Int: the row-major position of the
// first maximum of the whole Dense (read back from the device: one
// element, a blocking read).
func (e *Engine) Argmax(t tensor.Tensor, axis int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.arg(true, t, axis)
}

// Argmin is Argmax for the first minimum (a NaN counts as the minimum).
func (e *Engine) Argmin(t tensor.Tensor, axis int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.arg(false, t, axis)
}

func (e *Engine) arg(isMax bool, t tensor.Tensor, axis int) (tensor.Tensor, error) {
	name := map[bool]string{true: "Argmax", false: "Argmin"}[isMax]
	if strconv.IntSize != 64 {
		return nil, fmt.Errorf("%w: %s on the device engine needs a 64-bit int", array.ErrType, name)
	}
	d, f, err := argFns.of(t, name)
	if err != nil {
		return nil, err
	}
	return f(e, isMax, d, axis)
}

var argFns = all(argT[float32], argT[float64], argT[int8], argT[int16], argT[int32], argT[int64], argT[uint8], argT[uint16], argT[uint32], argT[uint64])

func argT[T array.Elem](e *Engine, isMax bool, d *tensor.Dense, axis int) (tensor.Tensor, error) {
	av, err := input[T](e.h, d)
	if err != nil {
		return nil, err
	}
	shape := d.Shape()
	rank := len(shape)
	if d.IsScalar() {
		rank = 0
	}
	if axis == tensor.AllAxes {
		var at []int
		if isMax {
			at, err = ops.ArgMaxAll(av)
		} else {
			at, err = ops.ArgMinAll(av)
		}
		if err != nil {
			return nil, err
		}
		idx := 0
		for k := range rank { // at is dimension 0 (the last axis) first
			idx = idx*shape[k] + at[rank-1-k]
		}
		return tensor.New(tensor.FromScalar(idx)), nil
	}
	if axis < 0 || axis >= rank {
		return nil, fmt.Errorf("%w: axis %d of a %d-D tensor: want 0 … %d or tensor.AllAxes", array.ErrLayout, axis, rank, rank-1)
	}
	var out tensor.Shape
	for k, n := range shape {
		if k != axis {
			out = append(out, n)
		}
	}
	ret, err := e.newDense(tensor.Int, out)
	if err != nil {
		return nil, err
	}
	dst, err := outputOf[int64](e.h, ret)
	if err != nil {
		return nil, err
	}
	if isMax {
		return ret, ops.ArgMax(dst, av, array.Axis(axis))
	}
	return ret, ops.ArgMin(dst, av, array.Axis(axis))
}
