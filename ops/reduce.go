package ops

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

type reduceOp uint8

const (
	redSum reduceOp = iota
	redProd
	redMin
	redMax
	redMean
	redArgMin
	redArgMax
)

var reduceNames = [...]string{"Sum", "Prod", "Min", "Max", "Mean", "ArgMin", "ArgMax"}

// reduceAllNames name the reductions over every element in messages.
var reduceAllNames = [...]string{"Sum over AllDims", "Prod over AllDims", "Min over AllDims", "Max over AllDims", "Mean over AllDims", "ArgMinAll", "ArgMaxAll"}

// Sum stores in dst the sum of a along axis ax. dst has a's shape
// without ax (or with it of extent 1). Float sums are pairwise in
// float64 (see the package documentation for the tolerance); integer sums
// wrap in T.
func Sum[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return reduce(redSum, dst, a, axisDim(a, ax))
}

// Prod stores in dst the product of a along axis ax (float64
// accumulation for floats; wrapping for integers).
func Prod[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return reduce(redProd, dst, a, axisDim(a, ax))
}

// Min stores in dst the minimum of a along axis ax; NaN wins. Over
// an empty dimension it is undefined: an error wrapping array.ErrShape
// (as for Max, ArgMin and ArgMax), returned before anything runs.
func Min[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return reduce(redMin, dst, a, axisDim(a, ax))
}

// Max stores in dst the maximum of a along axis ax; NaN wins.
func Max[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return reduce(redMax, dst, a, axisDim(a, ax))
}

// Mean stores in dst the mean of a along axis ax: the float64 sum
// divided by the extent, converted to T (integers truncate toward zero).
func Mean[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return reduce(redMean, dst, a, axisDim(a, ax))
}

// ArgMin stores in dst the coordinate along ax (Min included) of the first
// minimum of a along axis ax; a NaN counts as the minimum.
func ArgMin[T array.Elem](dst *array.Array[int64], a *array.Array[T], ax array.Axis) error {
	return reduce(redArgMin, dst, a, axisDim(a, ax))
}

// ArgMax is ArgMin for the first maximum; a NaN counts as the maximum.
func ArgMax[T array.Elem](dst *array.Array[int64], a *array.Array[T], ax array.Axis) error {
	return reduce(redArgMax, dst, a, axisDim(a, ax))
}

// ArgMinAll returns the coordinates of a minimum of a (a NaN if any), the
// first in memory order.
func ArgMinAll[T array.Elem](a *array.Array[T]) ([]int, error) { return reduceAllArg(redArgMin, a) }

// ArgMaxAll returns the coordinates of a maximum of a (a NaN if any), the
// first in memory order.
func ArgMaxAll[T array.Elem](a *array.Array[T]) ([]int, error) { return reduceAllArg(redArgMax, a) }

// acc is a reduction's running value: f for float sums, products and
// extremes (float64 holds every float32, Float16 and BFloat16 exactly), u
// for integer ones (T's bits, sign-extended), idx for arguments.
type acc struct {
	f    float64
	u    uint64
	idx  int
	pair pairAcc
}

// pairAcc sums a stream pairwise: level i holds the sum of 2^i inputs,
// like a binary counter, so the error grows with log2 of the count.
type pairAcc struct {
	s [64]float64
	n uint64
}

func (p *pairAcc) add(x float64) {
	i := 0
	for n := p.n; n&1 == 1; n >>= 1 {
		x += p.s[i]
		i++
	}
	p.s[i] = x
	p.n++
}

func (p *pairAcc) sum() float64 {
	r := 0.0
	for i, n := 0, p.n; n != 0; i, n = i+1, n>>1 {
		if n&1 == 1 {
			r += p.s[i]
		}
	}
	return r
}

// sumLeaf is how many elements a leaf of the pairwise sum adds in 8 (Go)
// or 32 (assembly) float64 lanes before the leaf's sum joins the pairwise
// tree: 512 float64s (at most 64 sequential adds per lane), or 4096
// narrower floats, whose float64 lanes lose nothing a float32 result could
// show.
func sumLeaf[T array.Elem]() int {
	if sizeOf[T]() == 8 {
		return 512
	}
	return 4096
}

// sumFloat is the pairwise float64 sum of n float elements of T.
func sumFloat[T array.Elem](base unsafe.Pointer, off, stride, n int) float64 {
	var p pairAcc
	leaf := sumLeaf[T]()
	for i := 0; i < n; i += leaf {
		p.add(blockSum[T](base, off+i*stride, stride, min(leaf, n-i)))
	}
	return p.sum()
}

// blockSum adds m ≤ sumLeaf elements in 8 float64 lanes (32 in assembly).
func blockSum[T array.Elem](base unsafe.Pointer, off, stride, m int) float64 {
	var z T
	if stride == 1 && useAsm {
		switch any(z).(type) {
		case float32:
			return sumF32(unsafe.Pointer(ptr[T](base, off)), m)
		case float64:
			return sumF64(unsafe.Pointer(ptr[T](base, off)), m)
		}
	}
	var l [8]float64
	s := span[T](base, off, m, stride)
	half := kindOf[T]() == kHalf
	i := 0
	for ; i+8 <= m; i += 8 {
		for q := range l {
			x := s[(i+q)*stride]
			if half {
				l[q] += float64(toF32(x))
			} else {
				l[q] += float64(x)
			}
		}
	}
	for ; i < m; i++ {
		if half {
			l[i&7] += float64(toF32(s[i*stride]))
		} else {
			l[i&7] += float64(s[i*stride])
		}
	}
	return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
}

// better reports whether x replaces the running extreme y (NaN wins, the
// first one kept).
func better[T array.Elem](op reduceOp, k kind, x, y T) bool {
	if k == kHalf {
		fx, fy := toF32(x), toF32(y)
		if fy != fy {
			return false
		}
		if fx != fx {
			return true
		}
		if op == redMin || op == redArgMin {
			return fx < fy
		}
		return fx > fy
	}
	if y != y {
		return false
	}
	if x != x {
		return true
	}
	if op == redMin || op == redArgMin {
		return x < y
	}
	return x > y
}

// reduceRun folds n elements at base+off, stride apart, into r (first is
// true when r holds nothing yet). Arguments are recorded as pos0 + i·step
// for the i-th element.
func reduceRun[T array.Elem](op reduceOp, k kind, r *acc, first bool, base unsafe.Pointer, off, stride, n, pos0, step int) {
	switch op {
	case redSum, redMean:
		if k == kFloat || k == kHalf {
			r.pair.add(sumFloat[T](base, off, stride, n))
			return
		}
		s := span[T](base, off, n, stride)
		var u uint64
		for i := 0; i < n; i++ {
			u += uint64(s[i*stride])
		}
		r.u += u
	case redProd:
		s := span[T](base, off, n, stride)
		if first {
			r.f, r.u = 1, 1
		}
		switch k {
		case kFloat:
			for i := 0; i < n; i++ {
				r.f *= float64(s[i*stride])
			}
		case kHalf:
			for i := 0; i < n; i++ {
				r.f *= float64(toF32(s[i*stride]))
			}
		default:
			for i := 0; i < n; i++ {
				r.u *= uint64(s[i*stride])
			}
		}
	default:
		if n == 0 {
			return
		}
		s := span[T](base, off, n, stride)
		bi, bv, start := 0, s[0], 1
		if !first {
			bv, bi, start = fromAcc[T](k, r), -1, 0
		}
		for i := start; i < n; i++ {
			if x := s[i*stride]; better(op, k, x, bv) {
				bv, bi = x, i
			}
		}
		if bi >= 0 {
			toAcc(k, r, bv)
			r.idx = pos0 + bi*step
		}
	}
}

// toAcc and fromAcc move an element value in and out of an acc.
func toAcc[T array.Elem](k kind, r *acc, v T) {
	switch k {
	case kFloat:
		r.f = float64(v)
	case kHalf:
		r.f = float64(toF32(v))
	case kSigned:
		r.u = uint64(int64(v))
	default:
		r.u = uint64(v)
	}
}

func fromAcc[T array.Elem](k kind, r *acc) T {
	switch k {
	case kFloat:
		return T(r.f)
	case kHalf:
		return fromF32[T](float32(r.f))
	}
	return T(r.u)
}

// result turns an accumulator over count elements into T.
func result[T array.Elem](op reduceOp, k kind, r *acc, count int) T {
	switch op {
	case redSum, redMean:
		if k == kFloat || k == kHalf {
			s := r.pair.sum()
			if op == redMean {
				s /= float64(count)
			}
			if k == kHalf {
				return fromF32[T](float32(s))
			}
			return T(s)
		}
		if op == redSum {
			return T(r.u)
		}
		if count == 0 {
			return 0
		}
		if k == kSigned {
			return T(math.Trunc(float64(int64(r.u)) / float64(count)))
		}
		return T(math.Trunc(float64(r.u) / float64(count)))
	}
	return fromAcc[T](k, r)
}

// reduceEmpty is the error of op over no elements of a: Min, Max,
// ArgMin and ArgMax are undefined there (NumPy raises ValueError), an
// error wrapping array.ErrShape since emptiness is often data-dependent;
// Sum, Prod and Mean are defined (nil).
func reduceEmpty(op reduceOp, name string, a shaped) error {
	if op != redSum && op != redProd && op != redMean {
		return &emptyReduction{op: name, shape: shapeOf(a)}
	}
	return nil
}

// emptyReduction is reduceEmpty's error: NewReduce, which speaks NumPy's
// order, rewords it.
type emptyReduction struct{ op, shape string }

func (e *emptyReduction) Error() string {
	return fmt.Sprintf("%v: ops.%s over no elements (shape %s): the reduction is undefined", array.ErrShape, e.op, e.shape)
}

func (e *emptyReduction) Unwrap() error { return array.ErrShape }

// emptyFirst is the check of a reduction of a along dim (dim < 0: every
// element) before it asks placement: over no elements, a closed operand's
// error, then reduceEmpty's, so an undefined reduction neither runs nor
// moves anything.
func emptyFirst[D, T array.Elem](op reduceOp, name string, dst *array.Array[D], a *array.Array[T], dim int) error {
	if op == redSum || op == redProd || op == redMean {
		return nil
	}
	if dim < 0 {
		if a.Len() != 0 {
			return nil
		}
	} else if dim >= a.Rank() || a.Dim(dim).Extent != 0 {
		return nil // a dim out of range panics later, with its message
	}
	if err := closedOperand(name, rawOf(dst), rawOf(a)); err != nil {
		return err
	}
	return reduceEmpty(op, name, a)
}

// reduce runs a reduction along dim; D is T, or int64 for the arguments.
func reduce[D, T array.Elem](op reduceOp, dst *array.Array[D], a *array.Array[T], dim int) error {
	if dim == AllDims {
		return reduceWhole(op, dst, a)
	}
	if err := emptyFirst(op, reduceNames[op], dst, a, dim); err != nil {
		return err
	}
	if ok, err := deviceReduce(op, dst, a, dim); ok {
		return err
	}
	name := reduceNames[op]
	j := getJob()
	defer putJob(j)
	ra := a.Rank()
	if dim < 0 || dim >= ra {
		panic(errOutOfRange(name, dim, a))
	}
	keep := dst.Rank() == ra
	if (!keep && dst.Rank() != ra-1) || (keep && dst.Dim(dim).Extent != 1) {
		panic(fmt.Errorf("%w: ops.%s along %s: destination shape %s does not match source shape %s without that axis", array.ErrShape, name, dimName(dim, ra), shapeOf(dst), shapeOf(a)))
	}
	j.rank, j.nops = 0, 2
	for i := 0; i < ra; i++ {
		if i == dim {
			continue
		}
		di := i
		if !keep && i > dim {
			di = i - 1
		}
		ad, dd := a.Dim(i), dst.Dim(di)
		if ad.Extent != dd.Extent {
			panic(fmt.Errorf("%w: ops.%s along %s: destination shape %s does not match source shape %s without that axis", array.ErrShape, name, dimName(dim, ra), shapeOf(dst), shapeOf(a)))
		}
		if j.rank == maxDims {
			panic(fmt.Errorf("%w: ops.%s: more than %d dimensions", array.ErrShape, name, maxDims))
		}
		j.ext[j.rank], j.str[0][j.rank], j.str[1][j.rank] = ad.Extent, dd.Stride, ad.Stride
		j.rank++
	}
	rd := a.Dim(dim)
	j.rext, j.rstr, j.op = rd.Extent, rd.Stride, int(op)
	j.scal[0] = uint64(rd.Min)
	if rd.Extent == 0 {
		if err := reduceEmpty(op, name, a); err != nil {
			return err
		}
	}
	j.simplify()
	if j.total() == 0 {
		return nil // an empty dst: nothing to compute, no input to bring home
	}
	av, err := a.HostReadOnly()
	if err != nil {
		return err
	}
	j.base[1] = hostPtr(av)
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.row = cachedRow[D, T](kReduce, func() rowFunc { return reduceRow[D, T] })
	j.body = rows
	total := j.total()
	j.parallel(total, max(1, (1<<16)/max(j.rext, 1)))
	return nil
}

func reduceRow[D, T array.Elem](j *job, n int, off *[maxOps]int) {
	op := reduceOp(j.op)
	k := kindOf[T]()
	sd, sa := j.str[0][0], j.str[1][0]
	d := span[D](j.base[0], off[0], n, sd)
	for i := 0; i < n; i++ {
		var r acc
		reduceRun[T](op, k, &r, true, j.base[1], off[1]+i*sa, j.rstr, j.rext, 0, 1)
		if op == redArgMin || op == redArgMax {
			d[i*sd] = D(int64(r.idx) + int64(j.scal[0]))
			continue
		}
		v := result[T](op, k, &r, j.rext)
		d[i*sd] = *(*D)(unsafe.Pointer(&v)) // D is T here
	}
}

// reduceAll folds every element of a; it returns the accumulator and the
// element count. For the arguments, r.idx is an element offset.
func reduceAll[T array.Elem](op reduceOp, a *array.Array[T]) (acc, int, error) {
	j := getJob()
	defer putJob(j)
	j.init(reduceNames[op], a)
	j.simplify()
	total := j.total()
	if total == 0 {
		// the value over no elements (0, or 1 for Prod), with no host
		// view (an empty Array has nothing to bring home)
		if err := reduceEmpty(op, reduceAllNames[op], a); err != nil {
			return acc{}, 0, err
		}
		var r acc
		reduceRun[T](op, kindOf[T](), &r, true, nil, 0, 0, 0, 0, 0)
		return r, 0, nil
	}
	av, err := a.HostReadOnly()
	if err != nil {
		return acc{}, 0, err
	}
	j.base[0] = hostPtr(av)
	j.op = int(op)
	j.body = cachedBody[T](bReduceAll, func() bodyFunc { return reduceAllBody[T] })
	nw := j.parallel(total, 1<<16)
	r := joinParts[T](op, j, nw)
	return r, total, nil
}

func reduceAllBody[T array.Elem](j *job, chunk, lo, hi int) {
	op := reduceOp(j.op)
	k := kindOf[T]()
	var r acc
	first := true
	forRows(&j.nest, lo, hi, &j.offs[chunk], func(m int, off *[maxOps]int) {
		reduceRun[T](op, k, &r, first, j.base[0], off[0], j.str[0][0], m, off[0], j.str[0][0])
		first = false
	})
	p := &j.part[chunk]
	p.f, p.u, p.idx = r.f, r.u, r.idx
	if op == redSum || op == redMean {
		p.f = r.pair.sum()
	}
}

func reduceAllValue[T array.Elem](op reduceOp, a *array.Array[T]) (T, error) {
	if err := emptyFirst(op, reduceAllNames[op], (*array.Array[T])(nil), a, -1); err != nil {
		return 0, err
	}
	if v, ok, err := deviceReduceAll(op, a); ok {
		return v, err
	}
	r, n, err := reduceAll(op, a)
	if err != nil {
		return 0, err
	}
	return result[T](op, kindOf[T](), &r, n), nil
}

func reduceAllArg[T array.Elem](op reduceOp, a *array.Array[T]) ([]int, error) {
	if err := emptyFirst(op, reduceAllNames[op], (*array.Array[T])(nil), a, -1); err != nil {
		return nil, err
	}
	off, ok, err := deviceArgAll(op, a)
	if !ok {
		var r acc
		r, _, err = reduceAll(op, a)
		off = r.idx
	}
	if err != nil {
		return nil, err
	}
	// off is the element offset from the min corner; the strides of a
	// non-aliasing layout decompose it uniquely, largest first.
	rank := a.Rank()
	c := make([]int, rank)
	used := make([]bool, rank)
	for range rank {
		bi := -1
		for i := 0; i < rank; i++ {
			if !used[i] && (bi < 0 || a.Dim(i).Stride > a.Dim(bi).Stride) {
				bi = i
			}
		}
		used[bi] = true
		d := a.Dim(bi)
		if d.Stride > 0 && d.Extent > 1 {
			c[bi] = off / d.Stride
			off -= c[bi] * d.Stride
		}
		c[bi] += d.Min
	}
	return c, nil
}
