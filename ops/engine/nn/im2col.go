package nn

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

// im2colOp is gorgonia's im2colOp computed by ops.Im2Col: (N, C, H, W)
// to (N, OH, OW, C·KH·KW). Its gradient is col2imOp.
type im2colOp struct{ g ops.Conv2D }

func (op im2colOp) Arity() int { return 1 }

func (op im2colOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}

func (op im2colOp) InferShape(shapes ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(shapes) != 1 {
		return nil, fmt.Errorf("nn.im2col: %d inputs, want 1", len(shapes))
	}
	s, ok := shapes[0].(tensor.Shape)
	if !ok || len(s) != 4 {
		return nil, fmt.Errorf("nn.im2col: input shape %v, want (N, C, H, W)", shapes[0])
	}
	oh, ow := op.g.Out(s[2], s[3])
	return tensor.Shape{s[0], oh, ow, s[1] * op.g.Kernel[0] * op.g.Kernel[1]}, nil
}

func (op im2colOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return op.UsePreallocDo(nil, inputs...)
}

func (op im2colOp) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.im2col: %d inputs, want 1", len(inputs))
	}
	x, err := dense("im2col", inputs[0])
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
	if x.Dtype() == tensor.Float32 {
		err = im2col[float32](op.g, e, out, x)
	} else {
		err = im2col[float64](op.g, e, out, x)
	}
	return out, err
}

func im2col[T ops.Float](g ops.Conv2D, e *engine.Engine, out, x *tensor.Dense) error {
	ao, ax, err := two[T](e, out, x)
	if err != nil {
		return err
	}
	return ops.Im2Col(ao, ax, g)
}

func (op im2colOp) ReturnsPtr() bool      { return false }
func (op im2colOp) CallsExtern() bool     { return false }
func (op im2colOp) OverwritesInput() int  { return -1 }
func (op im2colOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "nn.im2col%v", op.g) }
func (op im2colOp) Hashcode() uint32      { return hashOf(op) }
func (op im2colOp) String() string {
	return fmt.Sprintf("nn.im2col<k%v p%v s%v d%v>", op.g.Kernel, op.g.Pad, op.g.Stride, op.g.Dilation)
}

func (op im2colOp) DiffWRT(int) []bool { return []bool{true} }

func (op im2colOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.im2col: %d inputs, want 1", len(inputs))
	}
	s := inputs[0].Shape()
	d, err := gorgonia.ApplyOp(col2imOp{g: op.g, shape: [4]int{s[0], s[1], s[2], s[3]}}, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{d}, nil
}

// col2imOp is im2col's gradient, ops.Col2Im: (N, OH, OW, C·KH·KW) to the
// image shape (N, C, H, W).
type col2imOp struct {
	g     ops.Conv2D
	shape [4]int
}

func (op col2imOp) Arity() int { return 1 }

func (op col2imOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}

func (op col2imOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.Shape(op.shape[:]).Clone(), nil
}

func (op col2imOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return op.UsePreallocDo(nil, inputs...)
}

func (op col2imOp) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("nn.col2im: %d inputs, want 1", len(inputs))
	}
	col, err := dense("col2im", inputs[0])
	if err != nil {
		return nil, err
	}
	e := engineOf(col)
	out, err := result(e, col, prealloc, tensor.Shape(op.shape[:]))
	if err != nil {
		return nil, err
	}
	if col.Dtype() == tensor.Float32 {
		err = col2im[float32](op.g, e, out, col)
	} else {
		err = col2im[float64](op.g, e, out, col)
	}
	return out, err
}

func col2im[T ops.Float](g ops.Conv2D, e *engine.Engine, out, col *tensor.Dense) error {
	ao, ac, err := two[T](e, out, col)
	if err != nil {
		return err
	}
	return ops.Col2Im(ao, ac, g)
}

func (op col2imOp) ReturnsPtr() bool      { return false }
func (op col2imOp) CallsExtern() bool     { return false }
func (op col2imOp) OverwritesInput() int  { return -1 }
func (op col2imOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "nn.col2im%v%v", op.g, op.shape) }
func (op col2imOp) Hashcode() uint32      { return hashOf(op) }
func (op col2imOp) String() string {
	return fmt.Sprintf("nn.col2im<k%v p%v s%v d%v>%v", op.g.Kernel, op.g.Pad, op.g.Stride, op.g.Dilation, op.shape)
}

func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// two is the Arrays of a result and an input.
func two[T array.Elem](e *engine.Engine, out, in *tensor.Dense) (*array.Array[T], *array.Array[T], error) {
	ao, err := arrayOf[T](e, out)
	if err != nil {
		return nil, nil, err
	}
	ai, err := arrayOf[T](e, in)
	return ao, ai, err
}
