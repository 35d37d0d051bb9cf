package engine

import (
	"fmt"
	"slices"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

var _ tensor.Repeater = (*Engine)(nil)

// Repeat repeats t's elements along axis as tensor.Repeat (NumPy's
// repeat) does: one count for every element, or one per element along
// axis; tensor.AllAxes flattens first. It runs on the device: a copy of t
// there, then one broadcasting ops.Copy into the result (one per element
// along axis when the counts differ). gorgonia's graphs use it to
// broadcast gradients (Sum's, Mean's).
func (e *Engine) Repeat(t tensor.Tensor, axis int, repeats ...int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	return e.repeat(t, nil, axis, repeats)
}

// RepeatReuse is Repeat into reuse, which must have the result's shape
// and t's type.
func (e *Engine) RepeatReuse(t, reuse tensor.Tensor, axis int, repeats ...int) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	if reuse == nil {
		return nil, fmt.Errorf("%w: RepeatReuse with a nil reuse", array.ErrLayout)
	}
	return e.repeat(t, reuse, axis, repeats)
}

func (e *Engine) repeat(t, reuse tensor.Tensor, axis int, repeats []int) (tensor.Tensor, error) {
	d, f, err := repeatFns.of(t, "Repeat")
	if err != nil {
		return nil, err
	}
	return f(e, d, reuse, axis, repeats)
}

var repeatFns = all(repeatT[float32], repeatT[float64], repeatT[int8], repeatT[int16], repeatT[int32], repeatT[int64], repeatT[uint8], repeatT[uint16], repeatT[uint32], repeatT[uint64])

func repeatT[T array.Elem](e *Engine, d *tensor.Dense, reuse tensor.Tensor, axis int, repeats []int) (tensor.Tensor, error) {
	newShape, reps, size, err := d.Shape().Repeat(axis, repeats...)
	if err != nil {
		return nil, fmt.Errorf("%w: Repeat of shape %v along %d by %v: %v", array.ErrLayout, d.Shape(), axis, repeats, err)
	}
	if axis == tensor.AllAxes {
		axis = 0
	}
	var ret *tensor.Dense
	if reuse != nil {
		if ret, err = dense(reuse); err != nil {
			return nil, err
		}
		if !ret.Shape().Eq(newShape) || ret.Dtype() != d.Dtype() {
			return nil, fmt.Errorf("%w: reuse is a %v Dense of shape %v, the result %v of %v", array.ErrLayout, ret.Dtype(), ret.Shape(), d.Dtype(), newShape)
		}
	} else if ret, err = e.newDense(d.Dtype(), newShape); err != nil {
		return nil, err
	}
	src, err := input[T](e.h, d) // before dst: reuse may share its memory
	if err != nil {
		return nil, err
	}
	dst, err := outputOf[T](e.h, ret)
	if err != nil {
		return nil, err
	}
	if ret.DataSize() == 0 && !ret.IsScalar() {
		return ret, nil
	}
	if src.HostOnly() && src.Len() == 1 {
		// One element of Go memory (gorgonia's scalars, as Reshape
		// makes them a Dense over a *F32): a fill on the device, its value
		// an argument, nothing uploaded.
		h, err := src.HostReadOnly()
		if err != nil {
			return nil, err
		}
		var x T
		for _, v := range h.Data() {
			x = v
		}
		return ret, fill(dst, x)
	}
	// t's elements in row-major order, contiguous on the device: they
	// then have any shape of as many elements, here t's shape with axis
	// at size (tensor's vector and scalar cases give it one more axis).
	// src is so already when it is a whole row-major Dense on the device
	// (gorgonia's gradients) apart from ret; else a copy is.
	tmp := src
	if src.HostOnly() || src.Device() == nil || !rowMajorArray(src) || overlap(d, ret) {
		if tmp, err = deviceTemp[T](e, src.Extents()); err != nil {
			return nil, err
		}
		defer e.drop(tmp)
		if err := ops.Copy(tmp, src); err != nil {
			return nil, err
		}
	}
	outer, inner := newShape[:axis], newShape[axis+1:]
	shapeOf := func(mid ...int) []int { return slices.Concat(outer, mid, inner) }
	if uniform(reps) { // [outer, size, 1, inner] broadcast into [outer, size, r, inner]
		dv, err := dst.View(0, rowMajor(shapeOf(size, reps[0])))
		if err != nil {
			return nil, err
		}
		sv, err := tmp.View(0, rowMajor(shapeOf(size, 1)))
		if err != nil {
			return nil, err
		}
		return ret, ops.Copy(dv, sv)
	}
	full := rowMajor(shapeOf(newShape[axis])) // the result's own strides
	srcStrides := rowMajor(shapeOf(size))
	axDim := len(inner) // axis as an Array dimension
	at := 0
	for j, r := range reps {
		if r == 0 {
			continue
		}
		dims := slices.Clone(full)
		dims[axDim].Extent = r
		dv, err := dst.View(at*full[axDim].Stride, dims)
		if err != nil {
			return nil, err
		}
		sd := slices.Clone(srcStrides)
		sd[axDim].Extent = 1
		sv, err := tmp.View(j*srcStrides[axDim].Stride, sd)
		if err != nil {
			return nil, err
		}
		if err := ops.Copy(dv, sv); err != nil {
			return nil, err
		}
		at += r
	}
	return ret, nil
}

// rowMajorArray reports whether a's elements are contiguous in row-major
// order: its dims (innermost first) strided 1, then each the product of
// the extents inside it.
func rowMajorArray[T array.Elem](a *array.Array[T]) bool {
	want := 1
	for _, d := range a.Dims() {
		if d.Extent != 1 && d.Stride != want {
			return false
		}
		want *= d.Extent
	}
	return true
}

// overlap reports whether a's and b's memory overlap.
func overlap(a, b *tensor.Dense) bool {
	return a.Uintptr() < b.Uintptr()+b.MemSize() && b.Uintptr() < a.Uintptr()+a.MemSize()
}

func uniform(reps []int) bool {
	for _, r := range reps {
		if r != reps[0] {
			return false
		}
	}
	return len(reps) > 0
}

// rowMajor is the Array dims (reversed) of a contiguous row-major shape.
func rowMajor(shape []int) []array.Dim {
	dims := make([]array.Dim, len(shape))
	stride := 1
	for k := len(shape) - 1; k >= 0; k-- {
		dims[len(shape)-1-k] = array.Dim{Extent: shape[k], Stride: stride}
		stride *= max(shape[k], 1)
	}
	return dims
}
