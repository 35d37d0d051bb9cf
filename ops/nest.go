package ops

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/npshape"
)

// maxDims bounds the rank an op handles; extent-1 dimensions and dimensions
// that merge with their neighbour do not count.
const maxDims = 16

// maxOps is the most operands one kernel touches (dst first): 8 for a
// fused expression (Eval), 4 for any other op.
const maxOps = 8

// shaped is what ops read of an operand's layout; every *array.Array has it.
type shaped interface {
	Rank() int
	Dim(i int) array.Dim
}

// nest is a loop nest over the destination's shape: extents and, per
// operand, strides in elements (0 where the operand broadcasts). Dimension
// 0 is innermost after ordering.
type nest struct {
	rank int
	nops int
	ext  [maxDims]int
	str  [maxOps][maxDims]int
	base [maxOps]unsafe.Pointer
}

// shapeOf formats an operand's shape for error messages in NumPy's
// order, as NumPy prints it, (2, 3): every message of the module prints
// shapes so (package array, "One axis order").
func shapeOf(a shaped) string {
	s := make([]int, a.Rank())
	for i := range s {
		s[i] = a.Dim(len(s) - 1 - i).Extent
	}
	return npshape.String(s)
}

// npOrder prints extents (the library's order) as NumPy's shape.
func npOrder(ext []int) string {
	s := slices.Clone(ext)
	slices.Reverse(s)
	return npshape.String(s)
}

// dimName names dimension dim (the library's order, a call's own dim
// argument) of a rank-D operand for messages, with the NumPy axis it is.
func dimName(dim, rank int) string {
	if dim < 0 || dim >= rank {
		return fmt.Sprintf("dimension %d", dim)
	}
	return fmt.Sprintf("dimension %d (axis %d)", dim, rank-1-dim)
}

func shapePanic(op string, dst, a shaped, format string, args ...any) {
	panic(fmt.Errorf("%w: ops.%s: operand shape %s does not broadcast to destination shape %s: %s",
		append([]any{array.ErrShape, op, shapeOf(a), shapeOf(dst)}, fmt.Sprintf(format, args...))...))
}

// init sets the nest to dst's shape with dst as operand 0.
func (n *nest) init(op string, dst shaped) {
	r := dst.Rank()
	if r > maxDims {
		panic(fmt.Errorf("%w: ops.%s: destination has %d dimensions, ops handle at most %d", array.ErrShape, op, r, maxDims))
	}
	n.rank, n.nops = r, 1
	for i := 0; i < r; i++ {
		d := dst.Dim(i)
		n.ext[i], n.str[0][i] = d.Extent, d.Stride
	}
}

// add appends an input that broadcasts to the destination shape: it is
// aligned with dst dimension by dimension (dim 0 with dim 0); its missing
// outer dimensions and its extent-1 dimensions repeat.
func (n *nest) add(op string, dst, a shaped) {
	k := n.nops
	n.nops++
	r := a.Rank()
	for i := 0; i < r; i++ {
		d := a.Dim(i)
		if i >= n.rank {
			if d.Extent != 1 {
				shapePanic(op, dst, a, "it has more axes and axis %d has extent %d (only extent-1 extra axes are allowed)", -1-i, d.Extent)
			}
			continue
		}
		switch d.Extent {
		case n.ext[i]:
			n.str[k][i] = d.Stride
		case 1:
			n.str[k][i] = 0
		default:
			shapePanic(op, dst, a, "axis %d has extent %d, destination %d (extents must match or be 1)", -1-i, d.Extent, n.ext[i])
		}
	}
	for i := r; i < n.rank; i++ {
		n.str[k][i] = 0
	}
}

// addScalar appends an operand that is the same element everywhere.
func (n *nest) addScalar() {
	k := n.nops
	n.nops++
	for i := 0; i < n.rank; i++ {
		n.str[k][i] = 0
	}
}

// total is the number of points in the nest.
func (n *nest) total() int {
	t := 1
	for i := 0; i < n.rank; i++ {
		t *= n.ext[i]
	}
	return t
}

// simplify drops extent-1 dimensions, orders the rest by the destination's
// strides (smallest innermost, so writes stream) and merges neighbours that
// are contiguous in every operand. Elementwise ops may reorder freely.
func (n *nest) simplify() {
	n.squeeze()
	// insertion sort by dst stride, then by first input stride
	for i := 1; i < n.rank; i++ {
		for j := i; j > 0 && n.less(j, j-1); j-- {
			n.swap(j, j-1)
		}
	}
	n.merge()
}

func (n *nest) less(i, j int) bool {
	if n.str[0][i] != n.str[0][j] {
		return n.str[0][i] < n.str[0][j]
	}
	return n.nops > 1 && n.str[1][i] < n.str[1][j]
}

func (n *nest) swap(i, j int) {
	n.ext[i], n.ext[j] = n.ext[j], n.ext[i]
	for k := 0; k < n.nops; k++ {
		n.str[k][i], n.str[k][j] = n.str[k][j], n.str[k][i]
	}
}

// squeeze drops extent-1 dimensions; an empty nest keeps one dimension.
func (n *nest) squeeze() {
	w := 0
	for i := 0; i < n.rank; i++ {
		if n.ext[i] == 1 {
			continue
		}
		n.ext[w] = n.ext[i]
		for k := 0; k < n.nops; k++ {
			n.str[k][w] = n.str[k][i]
		}
		w++
	}
	n.rank = w
	if w == 0 {
		n.rank, n.ext[0] = 1, 1
		for k := 0; k < n.nops; k++ {
			n.str[k][0] = 0
		}
	}
}

// merge folds dimension i+1 into i where every operand steps contiguously.
func (n *nest) merge() {
	w := 0
	for i := 1; i < n.rank; i++ {
		ok := true
		for k := 0; k < n.nops; k++ {
			if n.str[k][i] != n.str[k][w]*n.ext[w] {
				ok = false
				break
			}
		}
		if ok {
			n.ext[w] *= n.ext[i]
			continue
		}
		w++
		n.ext[w] = n.ext[i]
		for k := 0; k < n.nops; k++ {
			n.str[k][w] = n.str[k][i]
		}
	}
	n.rank = w + 1
}

// offsetOf returns operand 0's element offset at flat point i of the
// nest (dimension 0 fastest).
func (n *nest) offsetOf(i int) int {
	off := 0
	for d := 0; d < n.rank; d++ {
		off += i % n.ext[d] * n.str[0][d]
		i /= n.ext[d]
	}
	return off
}

// rowFunc processes n points along dimension 0 starting at the element
// offsets off (one per operand).
type rowFunc func(j *job, n int, off *[maxOps]int)

// rows runs j.row over the flat points [lo, hi) of the nest, row by row.
func rows(j *job, chunk, lo, hi int) {
	forRows(&j.nest, lo, hi, &j.offs[chunk], func(n int, off *[maxOps]int) { j.row(j, n, off) })
}

// forRows calls fn for each run of points along dimension 0 within the
// flat points [lo, hi) of the nest, with the element offset of each
// operand at the run's start, in *off (scratch memory of the job, so
// that nothing escapes per call).
func forRows(n *nest, lo, hi int, off *[maxOps]int, fn func(m int, off *[maxOps]int)) {
	if lo >= hi {
		return
	}
	inner := n.ext[0]
	var c [maxDims]int
	var roff [maxOps]int
	rem := lo / inner
	c0 := lo % inner
	for d := 1; d < n.rank; d++ {
		c[d] = rem % n.ext[d]
		rem /= n.ext[d]
		for k := 0; k < n.nops; k++ {
			roff[k] += c[d] * n.str[k][d]
		}
	}
	pos := lo
	for pos < hi {
		m := min(inner-c0, hi-pos)
		for k := 0; k < n.nops; k++ {
			off[k] = roff[k] + c0*n.str[k][0]
		}
		fn(m, off)
		pos += m
		c0 = 0
		for d := 1; d < n.rank; d++ {
			c[d]++
			for k := 0; k < n.nops; k++ {
				roff[k] += n.str[k][d]
			}
			if c[d] < n.ext[d] {
				break
			}
			for k := 0; k < n.nops; k++ {
				roff[k] -= n.ext[d] * n.str[k][d]
			}
			c[d] = 0
		}
	}
}

// ptr returns a pointer to element off of base, for element type T.
func ptr[T any](base unsafe.Pointer, off int) *T {
	var z T
	return (*T)(unsafe.Add(base, uintptr(off)*unsafe.Sizeof(z)))
}

// span returns the n elements at base+off, stride apart, as a slice that
// covers them ((n-1)*stride+1 elements).
func span[T any](base unsafe.Pointer, off, n, stride int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice(ptr[T](base, off), (n-1)*stride+1)
}

// lineHostPtrs readies an op along a dimension on the host: a's host copy
// for reading, then dst's for writing (in that order, as for an op in
// place), and returns their base addresses.
func lineHostPtrs[D, T array.Elem](dst *array.Array[D], a *array.Array[T]) (db, ab unsafe.Pointer, err error) {
	av, err := a.HostReadOnly()
	if err != nil {
		return nil, nil, err
	}
	dv, err := outHost(dst)
	if err != nil {
		return nil, nil, err
	}
	return dataPtr(dv), hostPtr(av), nil
}

// hostPtr is the address of a host view's first element, nil for an empty
// view, whose Data the host kernels never read (and which may not be
// sliceable: an empty crop of an empty root keeps a non-zero offset).
func hostPtr[T array.Elem](v array.ReadView[T]) unsafe.Pointer {
	if v.Array().Len() == 0 {
		return nil
	}
	return dataPtr(v.Data())
}

// dataPtr is the address of a view's first element, nil when empty.
func dataPtr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(s))
}
