package engine

import (
	"fmt"
	"math"
	"slices"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// tensor's SoftMaxer and the unary interfaces gorgonia asks for before
// falling back to tensor's Map (which takes a Go function, so cannot run
// on the device): each is a few broadcasting ops on the device.
var (
	_ tensor.SoftMaxer = (*Engine)(nil)
	_ tensor.Squarer   = (*Engine)(nil)
	_ tensor.Cuber     = (*Engine)(nil)
	_ tensor.Inver     = (*Engine)(nil)
	_ tensor.InvSqrter = (*Engine)(nil)
	_ tensor.Log2er    = (*Engine)(nil)
	_ tensor.Signer    = (*Engine)(nil)
)

// SoftMax is exp(x − max) / Σ exp(x − max) along axis (negative counts
// from the last), float32 and float64, on the device.
func (e *Engine) SoftMax(x tensor.Tensor, axis int, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.softmax(false, x, axis, opts)
}

// LogSoftMax is (x − max) − log Σ exp(x − max) along axis.
func (e *Engine) LogSoftMax(x tensor.Tensor, axis int, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.softmax(true, x, axis, opts)
}

// SoftMaxB is SoftMax's gradient: y ⊙ (g − Σ y⊙g) along axis, for the
// output y and the output's gradient g.
func (e *Engine) SoftMaxB(output, grad tensor.Tensor, axis int, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.softmaxB(false, output, grad, axis, opts)
}

// LogSoftMaxB is LogSoftMax's gradient: g − exp(y)·Σ g along axis.
func (e *Engine) LogSoftMaxB(output, grad tensor.Tensor, axis int, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.softmaxB(true, output, grad, axis, opts)
}

func (e *Engine) softmax(log bool, x tensor.Tensor, axis int, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	d, f, err := softmaxFns.of(x, "SoftMax")
	if err != nil {
		return nil, err
	}
	e.takeReuse(opts, d)
	return f(e, log, d, nil, axis, opts)
}

// takeReuse makes a reuse Dense of the standard engine (Go memory) the
// engine's when every operand is a Dense of the engine: gorgonia's
// softmax ops allocate their result with tensor.New on the standard
// engine and pass it WithReuse, then give it the machine's engine after
// the op; as it is, the op would run on the host (package ops' rule: the
// destination is host-only), bringing the operands home each step. Taken
// over, the memory is adopted as gorgonia's registers are (pinned, a
// device copy of its own, no transfer: the op overwrites it), the op runs
// on the device and the result stays there; read it with Host(d).
func (e *Engine) takeReuse(opts []tensor.FuncOpt, operands ...*tensor.Dense) {
	r, ok := tensor.ParseFuncOpts(opts...).Reuse().(*tensor.Dense)
	if !ok || r == nil || !r.IsNativelyAccessible() || r.IsManuallyManaged() {
		return
	}
	if _, std := r.Engine().(tensor.StdEng); !std {
		return
	}
	for _, d := range operands {
		if oe, ok := d.Engine().(*Engine); !ok || oe != e {
			return
		}
	}
	tensor.WithEngine(e)(r)
}

func (e *Engine) softmaxB(log bool, output, grad tensor.Tensor, axis int, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	y, err := dense(output)
	if err != nil {
		return nil, err
	}
	g, err := dense(grad)
	if err != nil {
		return nil, err
	}
	if !y.Shape().Eq(g.Shape()) || y.Dtype() != g.Dtype() {
		return nil, fmt.Errorf("%w: SoftMaxB of a %v output %v and a %v gradient %v: want one shape and type", array.ErrLayout, y.Dtype(), y.Shape(), g.Dtype(), g.Shape())
	}
	f, err := softmaxFns.get(y.Dtype().Type, "SoftMaxB")
	if err != nil {
		return nil, err
	}
	e.takeReuse(opts, y, g)
	return f(e, log, y, g, axis, opts)
}

var softmaxFns = floats(softmaxT[float32], softmaxT[float64])

// softmaxT is the forward pass (g nil) or the backward pass of y = d.
func softmaxT[T ops.Float](e *Engine, log bool, d, g *tensor.Dense, axis int, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	rank := d.Dims()
	if d.IsScalar() || rank == 0 {
		return nil, fmt.Errorf("%w: SoftMax of a scalar", array.ErrLayout)
	}
	if axis = axis % rank; axis < 0 {
		axis += rank
	}
	dim := rank - 1 - axis
	xv, err := input[T](e.h, d)
	if err != nil {
		return nil, err
	}
	var gv *array.Array[T]
	if g != nil {
		if gv, err = input[T](e.h, g); err != nil {
			return nil, err
		}
	}
	return into(e, d, d.Shape(), opts, func(dst *array.Array[T]) error {
		tmp, err := deviceTemp[T](e, xv.Extents())
		if err != nil {
			return err
		}
		defer e.drop(tmp)
		switch {
		case g == nil: // forward
			m, mv, err := keep(e, xv, dim, ops.Max[T])
			if err != nil {
				return err
			}
			defer e.drop(m)
			if err := ops.Binary(tmp, xv, mv, ops.OpSub); err != nil {
				return err
			}
			if err := ops.Unary(dst, tmp, ops.OpExp); err != nil {
				return err
			}
			s, sv, err := keep(e, dst, dim, ops.Sum[T])
			if err != nil {
				return err
			}
			defer e.drop(s)
			if !log {
				return ops.Binary(dst, dst, sv, ops.OpDiv)
			}
			if err := ops.Unary(s, s, ops.OpLog); err != nil {
				return err
			}
			return ops.Binary(dst, tmp, sv, ops.OpSub)
		case log: // g − exp(y)·Σg
			s, sv, err := keep(e, gv, dim, ops.Sum[T])
			if err != nil {
				return err
			}
			defer e.drop(s)
			if err := ops.Unary(tmp, xv, ops.OpExp); err != nil {
				return err
			}
			if err := ops.Binary(tmp, tmp, sv, ops.OpMul); err != nil {
				return err
			}
			return ops.Binary(dst, gv, tmp, ops.OpSub)
		default: // y ⊙ (g − Σ y⊙g)
			if err := ops.Binary(tmp, xv, gv, ops.OpMul); err != nil {
				return err
			}
			s, sv, err := keep(e, tmp, dim, ops.Sum[T])
			if err != nil {
				return err
			}
			defer e.drop(s)
			if err := ops.Binary(tmp, gv, sv, ops.OpSub); err != nil {
				return err
			}
			return ops.Binary(dst, xv, tmp, ops.OpMul)
		}
	})
}

// keep reduces a along dim into a device temporary and returns it with a
// view of it that keeps dim at extent 1, which ops broadcast against a.
func keep[T array.Elem](e *Engine, a *array.Array[T], dim int, fn func(dst, a *array.Array[T], ax array.Axis) error) (t, view *array.Array[T], err error) {
	t, err = deviceTemp[T](e, slices.Delete(slices.Clone(a.Extents()), dim, dim+1))
	if err != nil {
		return nil, nil, err
	}
	if err = fn(t, a, array.Axis(-1-dim)); err == nil {
		view, err = t.View(0, slices.Insert(t.Dims(), dim, array.Dim{Extent: 1, Stride: 1}))
	}
	if err != nil {
		t.Close()
		return nil, nil, err
	}
	return t, view, nil
}

// Square is a·a, Cube a·a·a, Inv 1/a, InvSqrt 1/√a, Log2 log₂ a and
// Sign −1, 0 or 1, each on the device with tensor's options.
func (e *Engine) Square(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.composite("Square", a, opts)
}
func (e *Engine) Cube(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.composite("Cube", a, opts)
}
func (e *Engine) Inv(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.composite("Inv", a, opts)
}
func (e *Engine) InvSqrt(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.composite("InvSqrt", a, opts)
}
func (e *Engine) Log2(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.composite("Log2", a, opts)
}
func (e *Engine) Sign(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.composite("Sign", a, opts)
}

func (e *Engine) composite(name string, a tensor.Tensor, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	d, f, err := compositeFns.of(a, name)
	if err != nil {
		return nil, err
	}
	return f(e, name, d, opts)
}

var compositeFns = floats(compositeT[float32], compositeT[float64])

func compositeT[T ops.Float](e *Engine, name string, a *tensor.Dense, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	av, err := input[T](e.h, a)
	if err != nil {
		return nil, err
	}
	return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error {
		switch name {
		case "Square":
			return ops.Binary(dst, av, av, ops.OpMul)
		case "Inv":
			return ops.ScalarBinary(dst, 1, av, ops.OpDiv)
		case "InvSqrt":
			if err := ops.Unary(dst, av, ops.OpSqrt); err != nil {
				return err
			}
			return ops.ScalarBinary(dst, 1, dst, ops.OpDiv)
		case "Log2":
			if err := ops.Unary(dst, av, ops.OpLog); err != nil {
				return err
			}
			return ops.BinaryScalar(dst, dst, T(math.Ln2), ops.OpDiv)
		}
		tmp, err := deviceTemp[T](e, av.Extents())
		if err != nil {
			return err
		}
		defer e.drop(tmp)
		if name == "Cube" {
			if err := ops.Binary(tmp, av, av, ops.OpMul); err != nil {
				return err
			}
			return ops.Binary(dst, tmp, av, ops.OpMul)
		}
		// Sign: (a > 0) − (a < 0)
		mask, err := e.temp8(av.Extents())
		if err != nil {
			return err
		}
		defer e.drop(mask)
		if err := ops.CompareScalar(mask, av, 0, ops.GT); err != nil {
			return err
		}
		if err := ops.CastWrap(tmp, mask); err != nil {
			return err
		}
		if err := ops.CompareScalar(mask, av, 0, ops.LT); err != nil {
			return err
		}
		if err := ops.CastWrap(dst, mask); err != nil {
			return err
		}
		return ops.Binary(dst, tmp, dst, ops.OpSub)
	})
}
