package ops

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/npshape"
)

// Allocating forms. Every op is dst-first; these few helpers take the op
// itself and make its dst, so each op has a form that returns its result
// without a second function per op:
//
//	c, err := ops.New2Op(ops.Binary, a, b, ops.OpAdd) // np.add(a, b)
//	s, err := ops.NewReduce(ops.Sum, a, -1)           // a.sum(axis=-1)
//	m, err := ops.New2Op(ops.Compare, a, b, ops.LT)   // a < b
//
// The result is a new dense, device-aware Array with mins 0, shaped as
// the op's dst must be: an elementwise op's broadcast shape, a
// reduction's input without the reduced axis, MatMul's (N, M[, B]). It is
// made with no device allocation and handed to the op, so the placement
// rule (package array's "Where work runs") puts it where the op runs: on
// the inputs' device when they are current or newest there, on the host
// otherwise, as it would put a caller's fresh dst. On an error the result
// is closed and nil. Close results when done, or drop them: their host
// memory is recycled once nothing reaches it (package array's "Recycled
// host storage"). The result's elements start unspecified (array.Empty),
// so the op must write every element of dst, as every op these forms
// name does; NewMatMul and Arange start from zeros.

// New1 returns op(a) for the one-input ops with dst of a's shape: Abs,
// Neg, Sqrt, Exp, Log, Tanh, Copy, CastWrap and CastSaturate (name the
// result type: ops.New1(ops.CastWrap[float64, float32], a)). A transpose
// is ops.New1(ops.Copy, a.Transpose(d0, d1)).
func New1[D, T array.Elem](op func(dst *array.Array[D], a *array.Array[T]) error, a *array.Array[T]) (*array.Array[D], error) {
	return new1("New1", op, a)
}

// new1 is New1; name is the calling form, for its errors.
func new1[D, T array.Elem](name string, op func(dst *array.Array[D], a *array.Array[T]) error, a *array.Array[T]) (*array.Array[D], error) {
	if err := closedOperand(name, nil, rawOf(a)); err != nil {
		return nil, err
	}
	return run(newResult[D](a.Extents()), func(d *array.Array[D]) error { return op(d, a) })
}

// New1Op is New1 for the ops that take an op code: Unary(dst, a, op).
func New1Op[D, T array.Elem, P any](op func(dst *array.Array[D], a *array.Array[T], p P) error, a *array.Array[T], p P) (*array.Array[D], error) {
	return new1("New1Op", func(d *array.Array[D], x *array.Array[T]) error { return op(d, x, p) }, a)
}

// New2 returns op(a, b) for the elementwise two-input ops, shaped by
// broadcasting a and b (ops' rule, NumPy's mirrored to dimension 0
// innermost): Add, Sub, Mul, Div, Minimum, Maximum, Pow. Shapes that do
// not broadcast panic with array.ErrShape, printed in NumPy's order.
func New2[D, T array.Elem](op func(dst *array.Array[D], a, b *array.Array[T]) error, a, b *array.Array[T]) (*array.Array[D], error) {
	return new2("New2", op, a, b)
}

// new2 is New2; name is the calling form, for its errors.
func new2[D, T array.Elem](name string, op func(dst *array.Array[D], a, b *array.Array[T]) error, a, b *array.Array[T]) (*array.Array[D], error) {
	if err := closedOperand(name, nil, rawOf(a), rawOf(b)); err != nil {
		return nil, err
	}
	ext := broadcastExtents(name, a.Extents(), b.Extents())
	return run(newResult[D](ext), func(d *array.Array[D]) error { return op(d, a, b) })
}

// New2Op is New2 for the ops that take an op code: Binary and Compare,
// as ops.New2Op(ops.Compare, a, b, ops.LT).
func New2Op[D, T array.Elem, P any](op func(dst *array.Array[D], a, b *array.Array[T], p P) error, a, b *array.Array[T], p P) (*array.Array[D], error) {
	return new2("New2Op", func(d *array.Array[D], x, y *array.Array[T]) error { return op(d, x, y, p) }, a, b)
}

// NewScalarOp returns op(a, s, p) for the ops with a Go value second and
// an op code: BinaryScalar and CompareScalar, as
// ops.NewScalarOp(ops.BinaryScalar, a, 2, ops.OpMul) (a·2) and
// ops.NewScalarOp(ops.CompareScalar, a, 0.5, ops.GT). dst has a's shape.
func NewScalarOp[D, T array.Elem, P any](op func(dst *array.Array[D], a *array.Array[T], s T, p P) error, a *array.Array[T], s T, p P) (*array.Array[D], error) {
	return new1("NewScalarOp", func(d *array.Array[D], x *array.Array[T]) error { return op(d, x, s, p) }, a)
}

// NewWhere returns Where(cond, a, b), shaped by broadcasting all three.
func NewWhere[T array.Elem](cond *array.Array[uint8], a, b *array.Array[T]) (*array.Array[T], error) {
	if err := closedOperand("NewWhere", nil, rawOf(cond), rawOf(a), rawOf(b)); err != nil {
		return nil, err
	}
	ext := broadcastExtents("NewWhere", cond.Extents(), a.Extents(), b.Extents())
	return run(newResult[T](ext), func(d *array.Array[T]) error { return Where(d, cond, a, b) })
}

// NewReduce returns op(a) along axis ax in NumPy's order (-1 is dimension
// 0), the axis removed, for Sum, Prod, Min, Max, Mean, ArgMin and ArgMax:
// ops.NewReduce(ops.Sum, a, -1) is a.sum(axis=-1). An axis outside the
// Array panics with array.ErrShape; Min, Max, ArgMin and ArgMax along an
// empty axis return an error wrapping it.
func NewReduce[D, T array.Elem](op func(dst *array.Array[D], a *array.Array[T], ax array.Axis) error, a *array.Array[T], ax array.Axis) (*array.Array[D], error) {
	if err := closedOperand("NewReduce", nil, rawOf(a)); err != nil {
		return nil, err
	}
	dim := a.DimOf(ax)
	ext := a.Extents()
	ext = append(ext[:dim], ext[dim+1:]...)
	out, err := run(newResult[D](ext), func(d *array.Array[D]) error { return op(d, a, ax) })
	if e := (*emptyReduction)(nil); errors.As(err, &e) {
		// The op's error speaks its dim; this call's caller gave an axis.
		return nil, fmt.Errorf("%w: ops.NewReduce of ops.%s along axis %d of shape %s: the axis is empty, and the reduction is undefined there (NumPy raises ValueError)", array.ErrShape, e.op, ax, pyShape(a.Shape()))
	}
	return out, err
}

// NewReduceOp is NewReduce for the reductions with a parameter after the axis:
// ops.NewReduceOp(ops.Std, a, -1, 1) is np.std(a, axis=-1, ddof=1), as
// are Var's and Norm's (ops.NewReduceOp(ops.Norm, a, 0, ops.NormL2)).
func NewReduceOp[D, T array.Elem, P any](op func(dst *array.Array[D], a *array.Array[T], ax array.Axis, p P) error, a *array.Array[T], ax array.Axis, p P) (*array.Array[D], error) {
	return NewReduce(func(d *array.Array[D], x *array.Array[T], ax array.Axis) error { return op(d, x, ax, p) }, a, ax)
}

// NewMatMul returns MatMul(a, b): a (K, M[, B]) times b (N, K[, B]) is
// (N, M[, B]) in the library's order, NumPy's a @ b for shapes (M, K) and
// (K, N), or ([B, ]M, K) and ([B, ]K, N). Ranks other than 2 or 3, inner
// extents that differ and batch extents that are neither equal nor 1 panic
// with array.ErrShape, the shapes printed in NumPy's order (MatMul's
// checks, which speak of its dst, then cannot fail).
func NewMatMul[T Float](a, b *array.Array[T]) (*array.Array[T], error) {
	if err := closedOperand("NewMatMul", nil, rawOf(a), rawOf(b)); err != nil {
		return nil, err
	}
	bad := func(why string, args ...any) {
		panic(fmt.Errorf("%w: ops.NewMatMul: a %s @ b %s: %s", array.ErrShape, pyShape(a.Shape()), pyShape(b.Shape()), fmt.Sprintf(why, args...)))
	}
	for _, x := range [2]*array.Array[T]{a, b} {
		if r := x.Rank(); r < 2 || r > 3 {
			bad("want 2-D (M, K) @ (K, N) or 3-D (B, M, K) @ (B, K, N) operands")
		}
	}
	if k, kb := a.Dim(0).Extent, b.Dim(1).Extent; k != kb {
		bad("a's last axis (%d) must equal b's second-to-last (%d)", k, kb)
	}
	ext := []int{b.Dim(0).Extent, a.Dim(1).Extent}
	if a.Rank() == 3 || b.Rank() == 3 {
		batch := 1
		for _, x := range [2]*array.Array[T]{a, b} {
			if x.Rank() == 3 && x.Dim(2).Extent != 1 {
				if batch != 1 && batch != x.Dim(2).Extent {
					bad("the batch axes (axis 0) have %d and %d: they must match, or one be 1", batch, x.Dim(2).Extent)
				}
				batch = x.Dim(2).Extent
			}
		}
		ext = append(ext, batch)
	}
	return run(array.New[T](ext...), func(d *array.Array[T]) error { return MatMul(d, a, b) })
}

// Arange returns 0, 1, …, n-1 (np.arange(n)), computed on the host;
// empty for n ≤ 0, as NumPy's.
func Arange[T array.Elem](n int) (*array.Array[T], error) {
	return run(array.New[T](max(n, 0)), func(d *array.Array[T]) error { return Iota(d, -1) })
}

// pyShape prints shape (NumPy's order) as NumPy does: (2, 3), (3,), ().
// Errors of the NumPy-order calls print shapes with it.
func pyShape(shape []int) string { return npshape.String(shape) }

// pyExtents is pyShape of extents (dimension 0 first).
func pyExtents(ext []int) string { return pyShape(reversed(ext)) }

// newResult is an allocating form's dst: a new dense, device-aware Array
// of extents ext whose elements start unspecified (array.Empty: recycled
// host storage, not cleared), for the forms whose ops write every element
// of dst.
func newResult[D array.Elem](ext []int) *array.Array[D] {
	shape := make([]int, len(ext))
	for i, e := range ext {
		shape[len(ext)-1-i] = e
	}
	return array.Empty[D](shape...)
}

// run hands dst to op and closes it when op fails or panics.
func run[D array.Elem](dst *array.Array[D], op func(*array.Array[D]) error) (_ *array.Array[D], err error) {
	ok := false
	defer func() {
		if !ok {
			dst.Close()
		}
	}()
	if err := op(dst); err != nil {
		return nil, err
	}
	ok = true
	return dst, nil
}

// broadcastExtents is the shape ops broadcast inputs to: per dimension
// (dimension 0 with dimension 0) the common extent, where extent 1 and
// missing outer dimensions repeat. It panics with array.ErrShape, in
// NumPy's words: only the allocating forms, NumPy-order calls, use it.
func broadcastExtents(op string, exts ...[]int) []int {
	rank := 0
	for _, e := range exts {
		rank = max(rank, len(e))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
		for _, e := range exts {
			if i >= len(e) || e[i] == 1 {
				continue
			}
			if out[i] != 1 && out[i] != e[i] {
				shapes := make([]string, len(exts))
				for k, x := range exts {
					shapes[k] = pyExtents(x)
				}
				panic(fmt.Errorf("%w: ops.%s: shapes %s do not broadcast: axis %d has extents %d and %d (they must match, or one be 1)", array.ErrShape, op, strings.Join(shapes, " and "), -1-i, out[i], e[i]))
			}
			out[i] = e[i]
		}
	}
	return out
}
