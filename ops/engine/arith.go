package engine

import (
	"fmt"
	"runtime"
	"slices"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// tensor's arithmetic interfaces, each one call of package ops on Array
// views of the operands: on the device when their data lives there.
var (
	_ tensor.Adder        = (*Engine)(nil)
	_ tensor.Suber        = (*Engine)(nil)
	_ tensor.Muler        = (*Engine)(nil)
	_ tensor.Diver        = (*Engine)(nil)
	_ tensor.Power        = (*Engine)(nil)
	_ tensor.MinBetweener = (*Engine)(nil)
	_ tensor.MaxBetweener = (*Engine)(nil)
	_ tensor.MatMuler     = (*Engine)(nil)
	_ tensor.Sumer        = (*Engine)(nil)
	_ tensor.Proder       = (*Engine)(nil)
	_ tensor.Maxer        = (*Engine)(nil)
	_ tensor.Miner        = (*Engine)(nil)
	_ tensor.Neger        = (*Engine)(nil)
	_ tensor.Abser        = (*Engine)(nil)
	_ tensor.Sqrter       = (*Engine)(nil)
	_ tensor.Exper        = (*Engine)(nil)
	_ tensor.Loger        = (*Engine)(nil)
	_ tensor.Tanher       = (*Engine)(nil)
	_ tensor.NonStdEngine = (*Engine)(nil)
	_ tensor.Engine       = (*Engine)(nil)
)

// NonStdAlloc marks the engine's memory as managed by the engine.
func (e *Engine) NonStdAlloc() {}

func (e *Engine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpAdd, a, b, opts)
}
func (e *Engine) Sub(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpSub, a, b, opts)
}
func (e *Engine) Mul(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpMul, a, b, opts)
}
func (e *Engine) Div(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpDiv, a, b, opts)
}
func (e *Engine) Pow(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpPow, a, b, opts)
}
func (e *Engine) MinBetween(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpMin, a, b, opts)
}
func (e *Engine) MaxBetween(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.binary(ops.OpMax, a, b, opts)
}

func (e *Engine) AddScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpAdd, a, s, leftTensor, opts)
}
func (e *Engine) SubScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpSub, a, s, leftTensor, opts)
}
func (e *Engine) MulScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpMul, a, s, leftTensor, opts)
}
func (e *Engine) DivScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpDiv, a, s, leftTensor, opts)
}
func (e *Engine) PowScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpPow, a, s, leftTensor, opts)
}
func (e *Engine) MinBetweenScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpMin, a, s, leftTensor, opts)
}
func (e *Engine) MaxBetweenScalar(a tensor.Tensor, s any, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.scalar(ops.OpMax, a, s, leftTensor, opts)
}

func (e *Engine) Neg(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.unary(ops.OpNeg, a, opts)
}
func (e *Engine) Abs(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.unary(ops.OpAbs, a, opts)
}
func (e *Engine) Sqrt(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.unary(ops.OpSqrt, a, opts)
}
func (e *Engine) Exp(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.unary(ops.OpExp, a, opts)
}
func (e *Engine) Log(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.unary(ops.OpLog, a, opts)
}
func (e *Engine) Tanh(a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.unary(ops.OpTanh, a, opts)
}

// The reductions along axes (all of them when none are given).
func (e *Engine) Sum(a tensor.Tensor, along ...int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.reduce("Sum", a, along)
}
func (e *Engine) Prod(a tensor.Tensor, along ...int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.reduce("Prod", a, along)
}
func (e *Engine) Max(a tensor.Tensor, along ...int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.reduce("Max", a, along)
}
func (e *Engine) Min(a tensor.Tensor, along ...int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.reduce("Min", a, along)
}

// MatMul stores a·b in preallocated (tensor has checked the shapes):
// float32 and float64.
func (e *Engine) MatMul(a, b, preallocated tensor.Tensor) error {
	defer e.h.leave(e.h.enter())
	_, f, err := matmulFns.of(a, "MatMul")
	if err != nil {
		return err
	}
	return f(e, a, b, preallocated)
}

var matmulFns = floats(matmulT[float32], matmulT[float64])

func matmulT[T ops.Float](e *Engine, a, b, c tensor.Tensor) error {
	vs, err := views[T](e, a, b)
	if err != nil {
		return err
	}
	cd, err := dense(c)
	if err != nil {
		return err
	}
	cv, err := outputOf[T](e.h, cd)
	if err != nil {
		return err
	}
	if err := ops.MatMul(cv, vs[0], vs[1]); err != nil {
		return err
	}
	e.h.armDense(cd)
	return nil
}

func (e *Engine) binary(op ops.BinaryOp, a, b tensor.Tensor, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	ad, f, err := binaryFns.of(a, op.String())
	if err != nil {
		return nil, err
	}
	return f(e, op, ad, b, opts)
}

var binaryFns = all(binaryT[float32], binaryT[float64], binaryT[int8], binaryT[int16], binaryT[int32], binaryT[int64], binaryT[uint8], binaryT[uint16], binaryT[uint32], binaryT[uint64])

func binaryT[T array.Elem](e *Engine, op ops.BinaryOp, a *tensor.Dense, b tensor.Tensor, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	if !a.Shape().Eq(b.Shape()) {
		return nil, fmt.Errorf("%w: %v of shapes %v and %v: the device engine does not broadcast", array.ErrLayout, op, a.Shape(), b.Shape())
	}
	vs, err := views[T](e, a, b)
	if err != nil {
		return nil, err
	}
	return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error { return ops.Binary(dst, vs[0], vs[1], op) })
}

func (e *Engine) scalar(op ops.BinaryOp, a tensor.Tensor, s any, left bool, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	ad, f, err := scalarFns.of(a, op.String())
	if err != nil {
		return nil, err
	}
	return f(e, op, ad, s, left, opts)
}

var scalarFns = all(scalarT[float32], scalarT[float64], scalarT[int8], scalarT[int16], scalarT[int32], scalarT[int64], scalarT[uint8], scalarT[uint16], scalarT[uint32], scalarT[uint64])

func scalarT[T array.Elem](e *Engine, op ops.BinaryOp, a *tensor.Dense, s any, left bool, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	x, sv, err := scalarOperand[T](e, s)
	if err != nil {
		return nil, err
	}
	av, err := input[T](e.h, a)
	if err != nil {
		return nil, err
	}
	return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error {
		switch {
		case sv != nil && left:
			return ops.Binary(dst, av, sv, op)
		case sv != nil:
			return ops.Binary(dst, sv, av, op)
		case left:
			return ops.BinaryScalar(dst, av, x, op)
		}
		return ops.ScalarBinary(dst, x, av, op)
	})
}

// scalarOperand is s as a T, or, for a scalar Dense, its 0-D Array view
// (placed on the device like any input), which ops broadcast: an engine's
// scalar stays where it lives, never read on the host.
func scalarOperand[T array.Elem](e *Engine, s any) (T, *array.Array[T], error) {
	if d, ok := s.(*tensor.Dense); ok && d.IsScalar() {
		v, err := input[T](e.h, d)
		return 0, v, err
	}
	x, err := scalarValue[T](e, s)
	return x, nil, err
}

// scalarValue is s as a T: a T, or a scalar Dense (read on the host: one
// element comes home if the device holds it newer).
func scalarValue[T array.Elem](e *Engine, s any) (T, error) {
	switch v := s.(type) {
	case T:
		return v, nil
	case *tensor.Dense:
		if v.IsScalar() {
			a, err := viewOf[T](e.h, v)
			if err != nil {
				return 0, err
			}
			h, err := a.HostReadOnly()
			if err != nil {
				return 0, err
			}
			return h.At(), nil
		}
	}
	return 0, fmt.Errorf("%w: scalar %T for a %v tensor: pass a %v", array.ErrType, s, array.TypeOf[T](), array.TypeOf[T]())
}

func (e *Engine) unary(op ops.UnaryOp, a tensor.Tensor, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	ad, f, err := unaryFns.of(a, op.String())
	if err != nil {
		return nil, err
	}
	return f(e, op, ad, opts)
}

var unaryFns = all(unaryT[float32], unaryT[float64], unaryT[int8], unaryT[int16], unaryT[int32], unaryT[int64], unaryT[uint8], unaryT[uint16], unaryT[uint32], unaryT[uint64])

func unaryT[T array.Elem](e *Engine, op ops.UnaryOp, a *tensor.Dense, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	av, err := input[T](e.h, a)
	if err != nil {
		return nil, err
	}
	return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error { return ops.Unary(dst, av, op) })
}

// views returns the Array views of ts, placed on the device (input).
func views[T array.Elem](e *Engine, ts ...tensor.Tensor) ([]*array.Array[T], error) {
	vs := make([]*array.Array[T], len(ts))
	for i, t := range ts {
		d, err := dense(t)
		if err != nil {
			return nil, err
		}
		if vs[i], err = input[T](e.h, d); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// into runs an elementwise op whose result has shape where tensor's
// options say: added to Incr, into Reuse, into a (UseUnsafe), or into a
// new Dense of the engine.
func into[T array.Elem](e *Engine, a *tensor.Dense, shape tensor.Shape, opts []tensor.FuncOpt, run func(dst *array.Array[T]) error) (tensor.Tensor, error) {
	fo := tensor.ParseFuncOpts(opts...)
	incr, reuse := fo.Incr(), fo.Reuse()
	var ret *tensor.Dense
	var err error
	switch {
	case incr != nil:
		tmp, err := e.newDense(a.Dtype(), shape)
		if err != nil {
			return nil, err
		}
		defer e.Free(tmp, int64(tmp.MemSize()))
		if _, err := into(e, a, shape, []tensor.FuncOpt{tensor.WithReuse(tmp)}, run); err != nil {
			return nil, err
		}
		vs, err := views[T](e, incr, tmp)
		if err != nil {
			return nil, err
		}
		if !incr.Shape().Eq(shape) {
			return nil, fmt.Errorf("%w: incr of shape %v for a result of shape %v", array.ErrLayout, incr.Shape(), shape)
		}
		return incr, ops.Binary(vs[0], vs[0], vs[1], ops.OpAdd)
	case reuse != nil:
		if ret, err = dense(reuse); err != nil {
			return nil, err
		}
		if !ret.Shape().Eq(shape) {
			return nil, fmt.Errorf("%w: reuse of shape %v for a result of shape %v", array.ErrLayout, ret.Shape(), shape)
		}
	case !fo.Safe():
		ret = a
	default:
		if ret, err = e.newDense(a.Dtype(), shape); err != nil {
			return nil, err
		}
	}
	dst, err := outputOf[T](e.h, ret)
	if err != nil {
		return nil, err
	}
	if err := run(dst); err != nil {
		return nil, err
	}
	e.h.armDense(ret)
	return ret, nil
}

// newDense is a Dense of the engine for an op's result, which the op
// overwrites: its memory is not cleared, and typing it gives it a device
// allocation and copies nothing. Its block is reclaimed once the Dense is
// collected.
func (e *Engine) newDense(dt tensor.Dtype, shape tensor.Shape) (d *tensor.Dense, err error) {
	n := 1
	if len(shape) > 0 {
		n = shape.TotalSize()
	}
	b, err := e.h.alloc(int64(n)*int64(dt.Size()), true)
	if err != nil {
		return nil, fmt.Errorf("engine: a %v Dense of shape %v: %w", dt, shape, err)
	}
	d = tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...), tensor.WithEngine(e), tensor.FromMemory(b.start, b.size))
	h := e.h
	runtime.AddCleanup(d, func(b *block) { h.reclaim(b) }, b)
	return d, nil
}

func (e *Engine) reduce(name string, a tensor.Tensor, along []int) (tensor.Tensor, error) {
	ad, f, err := reduceFns.of(a, name)
	if err != nil {
		return nil, err
	}
	return f(e, name, ad, along)
}

var reduceFns = all(reduceT[float32], reduceT[float64], reduceT[int8], reduceT[int16], reduceT[int32], reduceT[int64], reduceT[uint8], reduceT[uint16], reduceT[uint32], reduceT[uint64])

// reduceT reduces a along the given axes (all when none), one ops call per
// axis, outermost first; the last writes the result Dense. A 0-D result
// is copied home too (see the end).
func reduceT[T array.Elem](e *Engine, name string, a *tensor.Dense, along []int) (tensor.Tensor, error) {
	var fn func(dst, a *array.Array[T], ax array.Axis) error
	switch name {
	case "Sum":
		fn = ops.Sum[T]
	case "Prod":
		fn = ops.Prod[T]
	case "Max":
		fn = ops.Max[T]
	default:
		fn = ops.Min[T]
	}
	rank := a.Dims()
	if a.IsScalar() {
		rank = 0
	}
	axes := slices.Clone(along)
	if len(axes) == 0 {
		for k := range rank {
			axes = append(axes, k)
		}
	}
	slices.Sort(axes)
	for i, ax := range axes {
		if ax < 0 || ax >= rank || i > 0 && axes[i-1] == ax {
			return nil, fmt.Errorf("%w: %s along %v of a %d-D tensor: axes must be distinct, 0 … %d", array.ErrLayout, name, along, rank, rank-1)
		}
	}
	var shape tensor.Shape
	for k, n := range a.Shape() {
		if !slices.Contains(axes, k) && rank > 0 {
			shape = append(shape, n)
		}
	}
	cur, err := input[T](e.h, a)
	if err != nil {
		return nil, err
	}
	ret, err := e.newDense(a.Dtype(), shape)
	if err != nil {
		return nil, err
	}
	out, err := outputOf[T](e.h, ret)
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 { // a scalar: nothing to reduce
		if err := ops.Copy(out, cur); err != nil {
			return nil, err
		}
		return ret, out.CopyToHost()
	}
	for i := len(axes) - 1; i >= 0; i-- { // outermost axis first: the others keep their numbers
		dim := cur.Rank() - 1 - axes[i]
		dst := out
		if i > 0 {
			ext := slices.Delete(cur.Extents(), dim, dim+1)
			dst = array.New[T](ext...)
		}
		err := fn(dst, cur, array.Axis(-1-dim))
		if i < len(axes)-1 {
			e.drop(cur) // a temporary of the previous axis
		}
		if err != nil {
			return nil, err
		}
		cur = dst
	}
	if len(shape) == 0 {
		// A scalar result comes home at once (one element, explicit, so
		// allowed under the transfer guard): tensor and gorgonia read a
		// scalar's value straight from host memory (Dense.ScalarValue,
		// Data), which the engine never sees.
		e.h.noteScalar(ret)
		return ret, out.CopyToHost()
	}
	return ret, nil
}
