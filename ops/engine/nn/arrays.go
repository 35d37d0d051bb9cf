package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops/engine"
)

// engineOf is the engine of d, nil for any other (tensor's standard one).
func engineOf(d *tensor.Dense) *engine.Engine {
	e, _ := d.Engine().(*engine.Engine)
	return e
}

// arrayOf is the Array over d's memory in NumPy's order (shape as d's):
// the engine's device-aware view, or a host view of another engine's
// memory (without a copy).
func arrayOf[T array.Elem](e *engine.Engine, d *tensor.Dense) (*array.Array[T], error) {
	if e != nil {
		return engine.Array[T](e, d)
	}
	data, ok := d.Data().([]T)
	if !ok {
		return nil, fmt.Errorf("nn: a %v Dense, want %v", d.Dtype(), array.TypeOf[T]())
	}
	s, st := d.Shape(), d.Strides()
	dims := make([]array.Dim, len(s))
	for i := range s {
		dims[len(s)-1-i] = array.Dim{Extent: s[i], Stride: st[i]}
	}
	return array.Wrap(data, dims)
}

// dense is v as a *tensor.Dense of float32 or float64.
func dense(op string, v gorgonia.Value) (*tensor.Dense, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("nn.%s: a %T, want a *tensor.Dense", op, v)
	}
	if dt := d.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn.%s: a %v Dense, want float32 or float64", op, dt)
	}
	return d, nil
}

// result is the Dense an op writes: prealloc (taken over by e when the
// inputs are e's, as e does for gorgonia's SoftMax), or a new one on in's
// engine.
func result(e *engine.Engine, in *tensor.Dense, prealloc gorgonia.Value, shape tensor.Shape) (*tensor.Dense, error) {
	if prealloc != nil {
		p, ok := prealloc.(*tensor.Dense)
		if !ok || !p.Shape().Eq(shape) || p.Dtype() != in.Dtype() {
			return nil, fmt.Errorf("nn: preallocated %v, want a %v Dense of shape %v", prealloc, in.Dtype(), shape)
		}
		if e != nil && p.Engine() != tensor.Engine(e) {
			tensor.WithEngine(e)(p)
		}
		return p, nil
	}
	if e != nil {
		return tensor.New(tensor.Of(in.Dtype()), tensor.WithShape(shape.Clone()...), tensor.WithEngine(e)), nil
	}
	return tensor.New(tensor.Of(in.Dtype()), tensor.WithShape(shape.Clone()...)), nil
}
