package engine

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

var _ tensor.Transposer = (*Engine)(nil)

// Transpose moves the data of t, a Dense whose lazy transpose (t.T) is
// pending, into the layout expStrides describes for t's shape, as
// Dense.Transpose asks: on the device, through a scratch copy there (two
// ops.Copy), nothing moving to the host.
func (e *Engine) Transpose(t tensor.Tensor, expStrides []int) error {
	defer e.h.leave(e.h.enter())
	d, f, err := transposeFns.of(t, "Transpose")
	if err != nil {
		return err
	}
	return f(e, d, expStrides)
}

var transposeFns = all(transposeT[float32], transposeT[float64], transposeT[int8], transposeT[int16], transposeT[int32], transposeT[int64], transposeT[uint8], transposeT[uint16], transposeT[uint32], transposeT[uint64])

func transposeT[T array.Elem](e *Engine, d *tensor.Dense, expStrides []int) error {
	shape := d.Shape()
	if d.IsScalar() {
		return nil
	}
	if len(expStrides) != len(shape) {
		return fmt.Errorf("%w: Transpose of shape %v to strides %v", array.ErrLayout, shape, expStrides)
	}
	src, err := input[T](e.h, d)
	if err != nil {
		return err
	}
	dims := make([]array.Dim, len(shape))
	for k := range shape {
		dims[len(shape)-1-k] = array.Dim{Extent: shape[k], Stride: expStrides[k]}
	}
	dst, err := viewDims[T](e.h, d, dims, true)
	if err != nil {
		return err
	}
	tmp, err := deviceTemp[T](e, src.Extents())
	if err != nil {
		return err
	}
	defer e.drop(tmp)
	if err := ops.Copy(tmp, src); err != nil {
		return err
	}
	return ops.Copy(dst, tmp)
}
