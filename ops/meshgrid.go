package ops

import (
	"fmt"

	"github.com/resident-go/resident/array"
)

// Meshgrid returns coordinate Arrays from the 1-D Arrays xs, as
// np.meshgrid(*xs) with NumPy's default indexing='xy': for x of length
// nx and y of length ny, both results have shape (ny, nx), the first
// repeating x along axis 0 and the second y along axis 1; with more
// inputs the shape is (n1, n0, n2, …) (the first two swapped).
// MeshgridIJ is indexing='ij'. Inputs that are not 1-D panic with
// array.ErrShape (Reshape(x, -1) flattens one).
//
// Each result is a writable copy of a broadcast view of its input
// (BroadcastTo): made where the placement rule puts Copy of that input,
// on its device when it is current or newest there, with no transfer.
// Close the results when done.
func Meshgrid[T array.Elem](xs ...*array.Array[T]) ([]*array.Array[T], error) {
	return meshgrid("Meshgrid", true, xs)
}

// MeshgridIJ is Meshgrid with matrix indexing, np.meshgrid(*xs,
// indexing='ij'): the result's shape is (n0, n1, …), and result k repeats
// xs[k] along every axis but axis k.
func MeshgridIJ[T array.Elem](xs ...*array.Array[T]) ([]*array.Array[T], error) {
	return meshgrid("MeshgridIJ", false, xs)
}

func meshgrid[T array.Elem](op string, xy bool, xs []*array.Array[T]) ([]*array.Array[T], error) {
	if err := closedAll(op, xs); err != nil {
		return nil, err
	}
	shape := make([]int, len(xs))
	for k, x := range xs {
		if x.Rank() != 1 {
			panic(fmt.Errorf("%w: ops.%s: input %d has shape %s: pass 1-D Arrays (ops.Reshape(x, -1) flattens one)", array.ErrShape, op, k, pyShape(x.Shape())))
		}
		shape[k] = x.Len()
	}
	axis := func(k int) int { return k }
	if xy && len(xs) >= 2 {
		shape[0], shape[1] = shape[1], shape[0]
		axis = func(k int) int {
			switch k {
			case 0:
				return 1
			case 1:
				return 0
			}
			return k
		}
	}
	out := make([]*array.Array[T], 0, len(xs))
	fail := func(err error) ([]*array.Array[T], error) {
		for _, o := range out {
			o.Close()
		}
		return nil, err
	}
	for k, x := range xs {
		// x as shape (1, …, n, …, 1) with n at its axis: a view.
		s := make([]int, len(xs))
		for i := range s {
			s[i] = 1
		}
		s[axis(k)] = x.Len()
		v, err := x.Reshape(s...)
		if err != nil {
			return fail(err)
		}
		b, err := BroadcastTo(v, shape...)
		if err != nil {
			return fail(err)
		}
		out = append(out, b)
	}
	return out, nil
}
