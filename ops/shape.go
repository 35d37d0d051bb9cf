package ops

import (
	"errors"
	"fmt"
	"slices"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/checked"
)

// The copying shape operations, in NumPy's order (array.Axis, array.Sel).
// The view forms are package array's (Reshape, Index, Squeeze,
// ExpandDims, Split, BroadcastTo); these make new Arrays where a view
// cannot be had, or (BroadcastTo) where a writable result is needed.
// Each copies with Copy, so it runs where the placement rule puts
// Copy(piece of the result, input): on the inputs' device when they are
// current or newest there, with no transfer, else on the host; copies
// between host and device that the rule implies are counted in the
// device's Stats and refused under the transfer guard. Results are new
// dense, device-aware Arrays with mins 0; close them when done. On an
// error the partial result is closed.

// Reshape returns a with the given shape in NumPy's order (one extent may
// be -1): a.Reshape's view when a's layout allows one, else a copy into a
// new dense Array (NumPy's reshape, which copies when it must). A shape
// whose element count differs panics with array.ErrShape.
func Reshape[T array.Elem](a *array.Array[T], shape ...int) (*array.Array[T], error) {
	if err := closedOperand("Reshape", nil, rawOf(a)); err != nil {
		return nil, err
	}
	v, err := a.Reshape(shape...)
	if err == nil || !errors.Is(err, array.ErrNotView) {
		return v, err
	}
	out := array.Zeros[T](resolveShape(a.Len(), shape)...)
	return run(out, func(d *array.Array[T]) error {
		dv, err := d.Reshape(a.Shape()...) // dense: always a view
		if err != nil {
			return err
		}
		return Copy(dv, a)
	})
}

// resolveShape is shape with its -1 inferred for n elements; a.Reshape
// has already checked it (it returns ErrNotView only for a valid shape).
func resolveShape(n int, shape []int) []int {
	out := slices.Clone(shape)
	known, at := 1, -1
	for i, e := range out {
		if e == -1 {
			at = i
		} else {
			known *= e
		}
	}
	if at >= 0 {
		out[at] = n / known
	}
	return out
}

// Concatenate returns xs joined along axis ax, as np.concatenate(xs,
// axis=ax): every other extent must agree and the ranks must match, or
// it panics with array.ErrShape, as for no Arrays or 0-D ones and for a
// summed extent that overflows int.
func Concatenate[T array.Elem](ax array.Axis, xs ...*array.Array[T]) (*array.Array[T], error) {
	if err := closedAll("Concatenate", xs); err != nil {
		return nil, err
	}
	if len(xs) == 0 || xs[0].Rank() == 0 {
		panic(fmt.Errorf("%w: ops.Concatenate: pass one or more Arrays of rank ≥ 1", array.ErrShape))
	}
	dim := xs[0].DimOf(ax)
	ext := xs[0].Extents()
	ext[dim] = 0
	for _, x := range xs {
		e := x.Extents()
		if len(e) != len(ext) {
			panic(fmt.Errorf("%w: ops.Concatenate: shapes %s and %s differ in rank", array.ErrShape, pyShape(xs[0].Shape()), pyShape(x.Shape())))
		}
		for i := range e {
			if i != dim && e[i] != ext[i] {
				panic(fmt.Errorf("%w: ops.Concatenate along axis %d: shapes %s and %s differ off that axis", array.ErrShape, ax, pyShape(xs[0].Shape()), pyShape(x.Shape())))
			}
		}
		// Broadcast views have extents with no storage behind them: the
		// sum can overflow, whatever the other extents.
		sum, ok := checked.Add(ext[dim], e[dim])
		if !ok {
			panic(fmt.Errorf("%w: ops.Concatenate along axis %d: the summed extent overflows int (%d + %d, of shape %s): concatenate fewer or smaller Arrays", array.ErrShape, ax, ext[dim], e[dim], pyShape(x.Shape())))
		}
		ext[dim] = sum
	}
	return run(array.New[T](ext...), func(d *array.Array[T]) error {
		off := 0
		for _, x := range xs {
			n := x.Dim(dim).Extent
			if err := Copy(d.Crop(dim, off, n), x); err != nil {
				return err
			}
			off += n
		}
		return nil
	})
}

// Stack returns xs joined along a new axis ax of the result, as
// np.stack(xs, axis=ax): every shape must be the same, or it panics with
// array.ErrShape, as for no Arrays.
func Stack[T array.Elem](ax array.Axis, xs ...*array.Array[T]) (*array.Array[T], error) {
	if err := closedAll("Stack", xs); err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		panic(fmt.Errorf("%w: ops.Stack: pass one or more Arrays", array.ErrShape))
	}
	ext := xs[0].Extents()
	for _, x := range xs {
		if !slices.Equal(x.Extents(), ext) {
			panic(fmt.Errorf("%w: ops.Stack: shapes %s and %s differ: stack Arrays of one shape", array.ErrShape, pyShape(xs[0].Shape()), pyShape(x.Shape())))
		}
	}
	xs[0].ExpandDims(ax) // checks ax against the result's rank
	dim := len(ext) - axisPos(ax, len(ext)+1)
	ext = slices.Insert(ext, dim, len(xs))
	return run(array.New[T](ext...), func(d *array.Array[T]) error {
		for i, x := range xs {
			if err := Copy(d.Slice(dim, i), x); err != nil {
				return err
			}
		}
		return nil
	})
}

// axisPos is ax as a position from the outermost axis of a rank-n Array
// (ax already checked).
func axisPos(ax array.Axis, n int) int {
	if ax < 0 {
		return int(ax) + n
	}
	return int(ax)
}

// Index returns a copy of a[sel...] in NumPy's order with any steps,
// NumPy's basic indexing a[::2, 1, ::-1] (array.Index is the view form,
// step 1 only). On a device it is one Copy launch per position selected
// along each axis whose step is not 1, plus one.
func Index[T array.Elem](a *array.Array[T], sel ...array.Sel) (*array.Array[T], error) {
	if err := closedOperand("Index", nil, rawOf(a)); err != nil {
		return nil, err
	}
	shape := a.Shape()
	if len(sel) > len(shape) {
		panic(fmt.Errorf("%w: ops.Index: %d selections for a %d-D Array: pass at most one per axis", array.ErrShape, len(sel), len(shape)))
	}
	// The unit-step box around the selection, as a view; then the steps.
	box := make([]array.Sel, len(sel))
	type stepped struct{ axis, step, count int }
	var steps []stepped
	kept := 0
	for k, s := range sel {
		first, step, count, index := s.Positions(shape[k])
		switch {
		case index:
			box[k] = array.I(first)
			continue
		case count == 0:
			box[k] = array.R(0, 0)
		case step > 0:
			box[k] = array.R(first, first+(count-1)*step+1)
		default:
			box[k] = array.R(first+(count-1)*step, first+1)
		}
		if count > 1 && step != 1 {
			steps = append(steps, stepped{kept, step, count})
		}
		kept++
	}
	cur := boxView(a, box)
	if len(steps) == 0 {
		return New1(Copy, cur)
	}
	var tmp *array.Array[T]
	for _, s := range steps {
		dim := cur.DimOf(array.Axis(s.axis))
		ext := cur.Extents()
		ext[dim] = s.count
		next, err := run(array.New[T](ext...), func(d *array.Array[T]) error {
			for i := range s.count {
				p := i * s.step
				if s.step < 0 {
					p = (s.count - 1 - i) * -s.step
				}
				if err := Copy(d.Slice(dim, i), cur.Slice(dim, cur.Dim(dim).Min+p)); err != nil {
					return err
				}
			}
			return nil
		})
		if tmp != nil {
			tmp.Close()
		}
		if err != nil {
			return nil, err
		}
		tmp, cur = next, next
	}
	return tmp, nil
}

// boxView is a.Index(box...) through Crop and Slice, which a.Index
// refuses where the crop is no box of the root (a crop of a reshaped
// view): read only, as here, such a view is safe.
func boxView[T array.Elem](a *array.Array[T], box []array.Sel) *array.Array[T] {
	rank := a.Rank()
	v := a
	for k, s := range box {
		dim := rank - 1 - k
		first, _, count, index := s.Positions(v.Dim(dim).Extent)
		if !index {
			v = v.Crop(dim, v.Dim(dim).Min+min(first, v.Dim(dim).Extent), count)
		}
	}
	for k := range box { // outermost first: the dimensions below keep their numbers
		if first, _, _, index := box[k].Positions(v.Dim(rank - 1 - k).Extent); index {
			v = v.Slice(rank-1-k, v.Dim(rank-1-k).Min+first)
		}
	}
	return v.SetMin(make([]int, v.Rank())...)
}

// Flip returns a copy of a with the order of elements along the given
// axes reversed (every axis when none are given), as np.flip. It is not a
// view: Arrays' strides are never negative (see array's shape
// operations). On a device it is one Copy launch per position along each
// flipped axis.
func Flip[T array.Elem](a *array.Array[T], axes ...array.Axis) (*array.Array[T], error) {
	if err := closedOperand("Flip", nil, rawOf(a)); err != nil {
		return nil, err
	}
	n := a.Rank()
	sel := make([]array.Sel, n)
	for k := range sel {
		sel[k] = array.All
		if len(axes) == 0 {
			sel[k] = array.All.Step(-1)
		}
	}
	for _, ax := range axes {
		sel[n-1-a.DimOf(ax)] = array.All.Step(-1)
	}
	return Index(a, sel...)
}

// BroadcastTo returns a writable copy of a broadcast to shape (NumPy's
// order): New1(Copy, v) of v, a.BroadcastTo(shape...), the read-only
// view that shares a's memory (np.broadcast_to is that view; use it where
// reading is enough). The copy runs where the placement rule puts Copy of
// v, which reads only a's elements: on a's device when a is current or
// newest there. A shape a does not broadcast to panics with an error
// wrapping array.ErrShape.
func BroadcastTo[T array.Elem](a *array.Array[T], shape ...int) (*array.Array[T], error) {
	if err := closedOperand("BroadcastTo", nil, rawOf(a)); err != nil {
		return nil, err
	}
	v, err := a.BroadcastTo(shape...) // a bad shape panics
	if err != nil {
		return nil, fmt.Errorf("ops.BroadcastTo: %w", err)
	}
	return New1(Copy, v)
}

func closedAll[T array.Elem](op string, xs []*array.Array[T]) error {
	for _, x := range xs {
		if err := closedOperand(op, nil, rawOf(x)); err != nil {
			return err
		}
	}
	return nil
}
