package engine

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// tensor's MatVecMuler (Dense.MatVecMul, tensor.MatVecMul, gorgonia's
// Mul of a matrix and a vector): ops.MatMul with the vector as an n×1
// matrix, on the device where the operands live.
var _ tensor.MatVecMuler = (*Engine)(nil)

// MatVecMul stores a·b in preallocated: a an m×n matrix, b a vector of n
// (shape (n), (n, 1) or (1, n), any stride), preallocated a vector of m
// (tensor has checked the shapes); float32 and float64.
func (e *Engine) MatVecMul(a, b, preallocated tensor.Tensor) error {
	defer e.h.leave(e.h.enter())
	_, f, err := matvecFns.of(a, "MatVecMul")
	if err != nil {
		return err
	}
	return f(e, a, b, preallocated)
}

var matvecFns = floats(matvecT[float32], matvecT[float64])

func matvecT[T ops.Float](e *Engine, a, b, c tensor.Tensor) error {
	ad, bd, cd, err := dense3(a, b, c)
	if err != nil {
		return err
	}
	if ad.Dims() != 2 {
		return fmt.Errorf("%w: MatVecMul of a %v matrix: want 2-D", array.ErrLayout, ad.Shape())
	}
	m, n := ad.Shape()[0], ad.Shape()[1]
	bs, ok := vectorStride(bd, n)
	if !ok {
		return fmt.Errorf("%w: MatVecMul of a %v matrix and a %v vector: want a vector of %d", array.ErrLayout, ad.Shape(), bd.Shape(), n)
	}
	cs, ok := vectorStride(cd, m)
	if !ok {
		return fmt.Errorf("%w: MatVecMul into a %v Dense: want a vector of %d", array.ErrLayout, cd.Shape(), m)
	}
	av, err := input[T](e.h, ad)
	if err != nil {
		return err
	}
	// The vectors as one-column matrices: extents (1, n) and (1, m).
	bv, err := viewDims[T](e.h, bd, []array.Dim{{Extent: 1, Stride: 1}, {Extent: n, Stride: bs}}, false)
	if err != nil {
		return err
	}
	if err := place(e.h, bv); err != nil {
		return err
	}
	cv, err := viewDims[T](e.h, cd, []array.Dim{{Extent: 1, Stride: 1}, {Extent: m, Stride: cs}}, true)
	if err != nil {
		return err
	}
	if err := ops.MatMul(cv, av, bv); err != nil {
		return err
	}
	e.h.armDense(cd)
	return nil
}

// dense3 is dense of each of a product's three operands.
func dense3(a, b, c tensor.Tensor) (ad, bd, cd *tensor.Dense, err error) {
	if ad, err = dense(a); err != nil {
		return
	}
	if bd, err = dense(b); err != nil {
		return
	}
	cd, err = dense(c)
	return
}

// vectorStride is the element stride of d as a vector of n elements
// (shape (n), or a row or column of n), and whether it is one.
func vectorStride(d *tensor.Dense, n int) (int, bool) {
	if d.DataSize() != n && !(d.IsScalar() && n == 1) {
		return 0, false
	}
	shape, strides := d.Shape(), d.Strides()
	for k, x := range shape {
		if x == n && n != 1 && k < len(strides) {
			return strides[k], true
		}
	}
	if n == 1 {
		return 1, true
	}
	return 0, false
}

// tensor's OuterProder (gorgonia's Mul of two vectors, the gradient of
// a matrix-vector product): ops.MatMul of an m×1 by a 1×n matrix.
var _ tensor.OuterProder = (*Engine)(nil)

// Outer stores the outer product a⊗b (vectors of m and n) in the m×n
// preallocated; float32 and float64.
func (e *Engine) Outer(a, b, preallocated tensor.Tensor) error {
	defer e.h.leave(e.h.enter())
	_, f, err := outerFns.of(a, "Outer")
	if err != nil {
		return err
	}
	return f(e, a, b, preallocated)
}

var outerFns = floats(outerT[float32], outerT[float64])

func outerT[T ops.Float](e *Engine, a, b, c tensor.Tensor) error {
	ad, bd, cd, err := dense3(a, b, c)
	if err != nil {
		return err
	}
	m, n := ad.DataSize(), bd.DataSize()
	as, aok := vectorStride(ad, m)
	bs, bok := vectorStride(bd, n)
	if !aok || !bok || cd.Dims() != 2 || cd.Shape()[0] != m || cd.Shape()[1] != n {
		return fmt.Errorf("%w: Outer of %v and %v into %v: want two vectors and an m×n matrix", array.ErrLayout, ad.Shape(), bd.Shape(), cd.Shape())
	}
	// a as an m×1 matrix, extents (1, m); b as 1×n, extents (n, 1).
	av, err := viewDims[T](e.h, ad, []array.Dim{{Extent: 1, Stride: 1}, {Extent: m, Stride: as}}, false)
	if err != nil {
		return err
	}
	if err := place(e.h, av); err != nil {
		return err
	}
	bv, err := viewDims[T](e.h, bd, []array.Dim{{Extent: n, Stride: bs}, {Extent: 1, Stride: 1}}, false)
	if err != nil {
		return err
	}
	if err := place(e.h, bv); err != nil {
		return err
	}
	cv, err := outputOf[T](e.h, cd)
	if err != nil {
		return err
	}
	if err := ops.MatMul(cv, av, bv); err != nil {
		return err
	}
	e.h.armDense(cd)
	return nil
}
