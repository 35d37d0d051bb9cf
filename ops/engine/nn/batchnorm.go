package nn

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

// BatchNorm is gorgonia.BatchNorm for an (N, C, H, W) x on the device:
// x normalized per channel (by the batch's mean and biased variance while
// training, by the running statistics otherwise), times scale, plus bias
// (gorgonia's BroadcastHadamardProd and BroadcastAdd, as gorgonia's does;
// scale and bias must be given, with x's shape). The running mean and
// variance (unbiased) move by momentum each training step, as gorgonia's.
// The op is returned for SetTraining.
func BatchNorm(x, scale, bias *gorgonia.Node, momentum, epsilon float64) (retVal, γ, β *gorgonia.Node, op *BatchNormOp, err error) {
	if x.Shape().Dims() != 4 {
		return nil, nil, nil, nil, fmt.Errorf("nn.BatchNorm: x %v, want 4-D (N, C, H, W)", x.Shape())
	}
	if scale == nil || bias == nil {
		return nil, nil, nil, nil, fmt.Errorf("nn.BatchNorm: give scale and bias (x's shape): gorgonia's default initializers read the clock")
	}
	op = &BatchNormOp{momentum: momentum, epsilon: epsilon, training: true}
	if retVal, err = gorgonia.ApplyOp(op, x); err != nil {
		return nil, nil, nil, nil, err
	}
	if retVal, err = gorgonia.Auto(gorgonia.BroadcastHadamardProd, scale, retVal); err != nil {
		return nil, nil, nil, nil, err
	}
	retVal, err = gorgonia.Auto(gorgonia.BroadcastAdd, retVal, bias)
	return retVal, scale, bias, op, err
}

// BatchNormOp is BatchNorm's normalization. Its statistics live on the
// input's device (on the host without an engine).
type BatchNormOp struct {
	momentum, epsilon float64
	training          bool
	st                any // *bnState[T]
}

// SetTraining chooses the batch's statistics (true, the default) or the
// running ones.
func (op *BatchNormOp) SetTraining(training bool) { op.training = training }

// bnState is the per-channel statistics, shape (1, C, 1, 1), and scratch.
type bnState[T ops.Float] struct {
	shape           [4]int
	mean, invstd    *array.Array[T] // of the last forward
	runMean, runVar *array.Array[T]
	s1, s2, c1, c2  *array.Array[T] // (N, C, H, 1), (N, C, 1, 1), (1, C, 1, 1) ×2
	full1, full2    *array.Array[T] // x's shape
}

func stateFor[T ops.Float](op *BatchNormOp, e *engine.Engine, s tensor.Shape) (*bnState[T], error) {
	if st, ok := op.st.(*bnState[T]); ok && st.shape == [4]int{s[0], s[1], s[2], s[3]} {
		return st, nil
	}
	st := &bnState[T]{shape: [4]int{s[0], s[1], s[2], s[3]}}
	n, c, h, w := s[0], s[1], s[2], s[3]
	st.mean, st.invstd, st.runMean, st.c1, st.c2 = array.Zeros[T](1, c, 1, 1), array.Zeros[T](1, c, 1, 1), array.Zeros[T](1, c, 1, 1), array.Zeros[T](1, c, 1, 1), array.Zeros[T](1, c, 1, 1)
	st.runVar = array.Zeros[T](1, c, 1, 1)
	st.s1, st.s2 = array.Zeros[T](n, c, h, 1), array.Zeros[T](n, c, 1, 1)
	st.full1, st.full2 = array.Zeros[T](n, c, h, w), array.Zeros[T](n, c, h, w)
	if e != nil {
		if err := ops.On(e.Device(), st.mean, st.invstd, st.runMean, st.runVar, st.c1, st.c2, st.s1, st.s2, st.full1, st.full2); err != nil {
			return nil, err
		}
	}
	op.st = st
	return st, nil
}

// chanSum stores in dst (1, C, 1, 1) the sum of a (N, C, H, W) per channel.
func (st *bnState[T]) chanSum(dst, a *array.Array[T]) error {
	if err := ops.Sum(st.s1, a, -1); err != nil { // W
		return err
	}
	if err := ops.Sum(st.s2, st.s1, -2); err != nil { // H
		return err
	}
	return ops.Sum(dst, st.s2, -4) // N
}

func bnForward[T ops.Float](op *BatchNormOp, e *engine.Engine, out, x *tensor.Dense) error {
	st, err := stateFor[T](op, e, x.Shape())
	if err != nil {
		return err
	}
	ao, ax, err := two[T](e, out, x)
	if err != nil {
		return err
	}
	s := x.Shape()
	m := T(s[0] * s[2] * s[3])
	eps := T(op.epsilon)
	if !op.training {
		if err := ops.BinaryScalar(st.c1, st.runVar, eps, ops.OpAdd); err != nil {
			return err
		}
		if err := ops.BinaryScalar(st.invstd, st.c1, -0.5, ops.OpPow); err != nil {
			return err
		}
		if err := ops.Binary(ao, ax, st.runMean, ops.OpSub); err != nil {
			return err
		}
		return ops.Binary(ao, ao, st.invstd, ops.OpMul)
	}
	mom := T(op.momentum)
	steps := []func() error{
		func() error { return st.chanSum(st.mean, ax) },
		func() error { return ops.BinaryScalar(st.mean, st.mean, 1/m, ops.OpMul) },
		func() error { return ops.Binary(st.full1, ax, st.mean, ops.OpSub) },
		func() error { return ops.Binary(st.full2, st.full1, st.full1, ops.OpMul) },
		func() error { return st.chanSum(st.c1, st.full2) }, // Σ (x − mean)²
		func() error { return ops.BinaryScalar(st.c2, st.c1, 1/m, ops.OpMul) },
		func() error { return ops.BinaryScalar(st.c2, st.c2, eps, ops.OpAdd) },
		func() error { return ops.BinaryScalar(st.invstd, st.c2, -0.5, ops.OpPow) },
		func() error { return ops.Binary(ao, st.full1, st.invstd, ops.OpMul) },
		// running statistics: r = mom·batch + (1 − mom)·r, the variance unbiased
		func() error { return ops.BinaryScalar(st.runMean, st.runMean, 1-mom, ops.OpMul) },
		func() error { return ops.BinaryScalar(st.c2, st.mean, mom, ops.OpMul) },
		func() error { return ops.Binary(st.runMean, st.runMean, st.c2, ops.OpAdd) },
		func() error { return ops.BinaryScalar(st.runVar, st.runVar, 1-mom, ops.OpMul) },
		func() error { return ops.BinaryScalar(st.c2, st.c1, mom/(m-1), ops.OpMul) },
		func() error { return ops.Binary(st.runVar, st.runVar, st.c2, ops.OpAdd) },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// bnBackward is gorgonia's batchnormDiffOp: while training
// dx = (dy − Σdy/m − (x − mean)·k)·invstd, k = Σ((x − mean)·dy)·invstd²/m;
// otherwise dx = dy·invstd.
func bnBackward[T ops.Float](op *BatchNormOp, e *engine.Engine, dx, x, dy *tensor.Dense) error {
	st, ok := op.st.(*bnState[T])
	if !ok {
		return fmt.Errorf("nn.BatchNormDiff: the forward BatchNorm has not run")
	}
	adx, ax, err := two[T](e, dx, x)
	if err != nil {
		return err
	}
	ady, err := arrayOf[T](e, dy)
	if err != nil {
		return err
	}
	if !op.training {
		return ops.Binary(adx, ady, st.invstd, ops.OpMul)
	}
	s := x.Shape()
	m := T(s[0] * s[2] * s[3])
	steps := []func() error{
		func() error { return ops.Binary(st.full1, ax, st.mean, ops.OpSub) },
		func() error { return ops.Binary(st.full2, st.full1, ady, ops.OpMul) },
		func() error { return st.chanSum(st.c1, st.full2) }, // dot
		func() error { return ops.Binary(st.c1, st.c1, st.invstd, ops.OpMul) },
		func() error { return ops.Binary(st.c1, st.c1, st.invstd, ops.OpMul) },
		func() error { return ops.BinaryScalar(st.c1, st.c1, 1/m, ops.OpMul) }, // k
		func() error { return st.chanSum(st.c2, ady) },
		func() error { return ops.BinaryScalar(st.c2, st.c2, 1/m, ops.OpMul) }, // grad mean
		func() error { return ops.Binary(st.full1, st.full1, st.c1, ops.OpMul) },
		func() error { return ops.Binary(adx, ady, st.c2, ops.OpSub) },
		func() error { return ops.Binary(adx, adx, st.full1, ops.OpSub) },
		func() error { return ops.Binary(adx, adx, st.invstd, ops.OpMul) },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

func (op *BatchNormOp) Arity() int { return 1 }

func (op *BatchNormOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}

func (op *BatchNormOp) InferShape(shapes ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := shapes[0].(tensor.Shape)
	if !ok || len(s) != 4 {
		return nil, fmt.Errorf("nn.BatchNorm: input shape %v, want (N, C, H, W)", shapes[0])
	}
	return s.Clone(), nil
}

func (op *BatchNormOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return op.UsePreallocDo(nil, inputs...)
}

func (op *BatchNormOp) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.BatchNorm: %d inputs, want 1", len(inputs))
	}
	x, err := dense("BatchNorm", inputs[0])
	if err != nil {
		return nil, err
	}
	e := engineOf(x)
	out, err := result(e, x, prealloc, x.Shape())
	if err != nil {
		return nil, err
	}
	if x.Dtype() == tensor.Float32 {
		err = bnForward[float32](op, e, out, x)
	} else {
		err = bnForward[float64](op, e, out, x)
	}
	return out, err
}

func (op *BatchNormOp) ReturnsPtr() bool     { return false }
func (op *BatchNormOp) CallsExtern() bool    { return false }
func (op *BatchNormOp) OverwritesInput() int { return -1 }
func (op *BatchNormOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "nn.BatchNorm%v-%v", op.momentum, op.epsilon)
}
func (op *BatchNormOp) Hashcode() uint32 { return hashOf(op) }
func (op *BatchNormOp) String() string {
	return fmt.Sprintf("nn.BatchNorm<%v, %v>", op.momentum, op.epsilon)
}

func (op *BatchNormOp) DiffWRT(int) []bool { return []bool{true} }

func (op *BatchNormOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.BatchNorm: %d inputs, want 1", len(inputs))
	}
	d, err := gorgonia.ApplyOp(&bnDiffOp{op}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{d}, nil
}

// bnDiffOp is BatchNorm's gradient w.r.t. x (inputs: x, dy).
type bnDiffOp struct{ fwd *BatchNormOp }

func (op *bnDiffOp) Arity() int { return 2 }

func (op *bnDiffOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t, t)
}

func (op *bnDiffOp) InferShape(shapes ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := shapes[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("nn.BatchNormDiff: input shape %v, want (N, C, H, W)", shapes[0])
	}
	return s.Clone(), nil
}

func (op *bnDiffOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return op.UsePreallocDo(nil, inputs...)
}

func (op *bnDiffOp) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("nn.BatchNormDiff: %d inputs, want 2", len(inputs))
	}
	x, err := dense("BatchNormDiff", inputs[0])
	if err != nil {
		return nil, err
	}
	dy, err := dense("BatchNormDiff", inputs[1])
	if err != nil {
		return nil, err
	}
	e := engineOf(dy)
	out, err := result(e, dy, prealloc, x.Shape())
	if err != nil {
		return nil, err
	}
	if x.Dtype() == tensor.Float32 {
		err = bnBackward[float32](op.fwd, e, out, x, dy)
	} else {
		err = bnBackward[float64](op.fwd, e, out, x, dy)
	}
	return out, err
}

func (op *bnDiffOp) ReturnsPtr() bool     { return false }
func (op *bnDiffOp) CallsExtern() bool    { return false }
func (op *bnDiffOp) OverwritesInput() int { return -1 }
func (op *bnDiffOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "nn.BatchNormDiff%v-%v", op.fwd.momentum, op.fwd.epsilon)
}
func (op *bnDiffOp) Hashcode() uint32 { return hashOf(op) }
func (op *bnDiffOp) String() string   { return "nn.BatchNormDiff" }
