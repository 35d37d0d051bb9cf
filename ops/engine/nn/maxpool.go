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

// maxPoolOp is gorgonia's maxPoolOp computed by ops.MaxPool2D. It keeps
// the argmax of its last Do (mask, int32, on the input's device) for
// its gradient, maxPoolDiffOp, as gorgonia's keeps its mask.
type maxPoolOp struct {
	g    ops.Pool2D
	mask *array.Array[int32]
}

func (op *maxPoolOp) Arity() int { return 1 }

func (op *maxPoolOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}

func (op *maxPoolOp) InferShape(shapes ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(shapes) != 1 {
		return nil, fmt.Errorf("nn.MaxPool2D: %d inputs, want 1", len(shapes))
	}
	s, ok := shapes[0].(tensor.Shape)
	if !ok || len(s) != 4 {
		return nil, fmt.Errorf("nn.MaxPool2D: input shape %v, want (N, C, H, W)", shapes[0])
	}
	oh, ow := op.g.Out(s[2], s[3])
	return tensor.Shape{s[0], s[1], oh, ow}, nil
}

func (op *maxPoolOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return op.UsePreallocDo(nil, inputs...)
}

func (op *maxPoolOp) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.MaxPool2D: %d inputs, want 1", len(inputs))
	}
	x, err := dense("MaxPool2D", inputs[0])
	if err != nil {
		return nil, err
	}
	s, err := op.InferShape(x.Shape())
	if err != nil {
		return nil, err
	}
	e := engineOf(x)
	out, err := result(e, x, prealloc, s)
	if err != nil {
		return nil, err
	}
	if err := op.maskFor(e, s); err != nil {
		return nil, err
	}
	if x.Dtype() == tensor.Float32 {
		err = maxPool[float32](op, e, out, x)
	} else {
		err = maxPool[float64](op, e, out, x)
	}
	return out, err
}

// maskFor makes the mask of shape s on e's device (on the host without
// an engine), once: a later Do of the same shape overwrites it there.
func (op *maxPoolOp) maskFor(e *engine.Engine, s tensor.Shape) error {
	if op.mask != nil {
		if ms := op.mask.Shape(); len(ms) == 4 && ms[0] == s[0] && ms[1] == s[1] && ms[2] == s[2] && ms[3] == s[3] && (e == nil) == (op.mask.Device() == nil) {
			return nil
		}
		op.mask.Close()
	}
	op.mask = array.Zeros[int32](s...)
	if e != nil {
		return ops.On(e.Device(), op.mask)
	}
	return nil
}

func maxPool[T ops.Float](op *maxPoolOp, e *engine.Engine, out, x *tensor.Dense) error {
	ao, ax, err := two[T](e, out, x)
	if err != nil {
		return err
	}
	return ops.MaxPool2D(ao, op.mask, ax, op.g)
}

func (op *maxPoolOp) ReturnsPtr() bool      { return false }
func (op *maxPoolOp) CallsExtern() bool     { return false }
func (op *maxPoolOp) OverwritesInput() int  { return -1 }
func (op *maxPoolOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "nn.MaxPool2D%v", op.g) }
func (op *maxPoolOp) Hashcode() uint32      { return hashOf(op) }
func (op *maxPoolOp) String() string {
	return fmt.Sprintf("nn.MaxPool2D<k%v p%v s%v>", op.g.Kernel, op.g.Pad, op.g.Stride)
}

func (op *maxPoolOp) DiffWRT(int) []bool { return []bool{true} }

// SymDiff is gorgonia's: the gradient op takes the input, the output and
// the output's gradient (it reads only the last and the forward's mask).
func (op *maxPoolOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.MaxPool2D: %d inputs, want 1", len(inputs))
	}
	d, err := gorgonia.ApplyOp(&maxPoolDiffOp{op}, inputs[0], output, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{d}, nil
}

// maxPoolDiffOp is MaxPool2D's gradient, ops.MaxPool2DBackward over the
// forward op's mask.
type maxPoolDiffOp struct{ fwd *maxPoolOp }

func (op *maxPoolDiffOp) Arity() int { return 3 }

func (op *maxPoolDiffOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t, t, t)
}

func (op *maxPoolDiffOp) InferShape(shapes ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := shapes[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("nn.MaxPool2DDiff: input shape %v, want (N, C, H, W)", shapes[0])
	}
	return s.Clone(), nil
}

func (op *maxPoolDiffOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return op.UsePreallocDo(nil, inputs...)
}

func (op *maxPoolDiffOp) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("nn.MaxPool2DDiff: %d inputs, want 3", len(inputs))
	}
	x, err := dense("MaxPool2DDiff", inputs[0])
	if err != nil {
		return nil, err
	}
	dy, err := dense("MaxPool2DDiff", inputs[2])
	if err != nil {
		return nil, err
	}
	if op.fwd.mask == nil {
		return nil, fmt.Errorf("nn.MaxPool2DDiff: the forward MaxPool2D has not run")
	}
	e := engineOf(dy)
	out, err := result(e, dy, prealloc, x.Shape())
	if err != nil {
		return nil, err
	}
	if dy.Dtype() == tensor.Float32 {
		err = maxPoolBack[float32](op.fwd, e, out, dy)
	} else {
		err = maxPoolBack[float64](op.fwd, e, out, dy)
	}
	return out, err
}

func maxPoolBack[T ops.Float](fwd *maxPoolOp, e *engine.Engine, out, dy *tensor.Dense) error {
	ao, ay, err := two[T](e, out, dy)
	if err != nil {
		return err
	}
	return ops.MaxPool2DBackward(ao, ay, fwd.mask, fwd.g)
}

func (op *maxPoolDiffOp) ReturnsPtr() bool      { return false }
func (op *maxPoolDiffOp) CallsExtern() bool     { return false }
func (op *maxPoolDiffOp) OverwritesInput() int  { return -1 }
func (op *maxPoolDiffOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "nn.MaxPool2DDiff%v", op.fwd.g) }
func (op *maxPoolDiffOp) Hashcode() uint32      { return hashOf(op) }
func (op *maxPoolDiffOp) String() string {
	return fmt.Sprintf("nn.MaxPool2DDiff<k%v p%v s%v>", op.fwd.g.Kernel, op.fwd.g.Pad, op.fwd.g.Stride)
}
