package ops

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// AllDims as a reduction's axis reduces over every element of a, NumPy's
// axis=None: Sum(dst, a, AllDims) stores a's sum in dst, which holds one
// element (a 0-D Array, or every extent 1). It applies to Sum, Prod, Min,
// Max, Mean, ArgMin, ArgMax, Var, Std, Norm, LogSumExp, CountNonzero,
// Any and All. ArgMin and ArgMax store the flat index in NumPy's C order
// (dimension 0 fastest) of the first extreme in that order, as NumPy's
// argmax (a view whose memory order is another, a transpose, is copied
// densely first, where it lives). Value and ValueOp return the result as a
// Go value. The reduction runs where a is, as along a dimension; its
// value then comes home (as a Go value: no counted transfer) and is
// stored in dst, by a Fill where dst is on a device (EvalSum(dst, In(a))
// keeps a sum on the device throughout).
const AllDims = math.MinInt

// Value returns op(a) over every element of a as a Go value, for the
// reductions that take an axis: ops.Value(ops.Sum, a) is NumPy's a.sum(),
// ops.Value(ops.ArgMax, a) its a.argmax(), ops.Value(ops.Any, a) 1 or 0.
// It runs where op(dst, a, AllDims) runs, with dst a host 0-D Array of
// Value's own (recycled, so op must write it, as the reductions do).
func Value[D, T array.Elem](op func(dst *array.Array[D], a *array.Array[T], ax array.Axis) error, a *array.Array[T]) (D, error) {
	d := getWhole[D]()
	defer putWhole(d)
	return wholeValue(d, op(d, a, AllDims))
}

// ValueOp is Value for the reductions with a parameter after the axis:
// ops.ValueOp(ops.Std, a, 1) is NumPy's a.std(ddof=1),
// ops.ValueOp(ops.Norm, a, ops.NormL2) its norm(a.ravel()).
func ValueOp[D, T array.Elem, P any](op func(dst *array.Array[D], a *array.Array[T], ax array.Axis, p P) error, a *array.Array[T], p P) (D, error) {
	d := getWhole[D]()
	defer putWhole(d)
	return wholeValue(d, op(d, a, AllDims, p))
}

// wholes recycle Value's 0-D host dsts, one pool per element type
// (array's run-time type table), so that a value costs no allocation (as
// the reductions themselves).
var wholes = array.Instances(new(sync.Pool), new(sync.Pool), new(sync.Pool), new(sync.Pool),
	new(sync.Pool), new(sync.Pool), new(sync.Pool), new(sync.Pool),
	new(sync.Pool), new(sync.Pool), new(sync.Pool), new(sync.Pool))

func wholePool[D array.Elem]() *sync.Pool {
	p, _ := wholes.For(array.TypeOf[D]()) // every Elem has one
	return p
}

func getWhole[D array.Elem]() *array.Array[D] {
	if d, ok := wholePool[D]().Get().(*array.Array[D]); ok {
		return d
	}
	return array.New[D]()
}

// putWhole keeps d for the next Value while it is an open host Array (an
// op passed to Value may have done anything with it).
func putWhole[D array.Elem](d *array.Array[D]) {
	if d.Closed() || d.Device() != nil || d.Rank() != 0 {
		d.Close()
		return
	}
	wholePool[D]().Put(d)
}

func wholeValue[D array.Elem](d *array.Array[D], err error) (D, error) {
	var z D
	if err != nil {
		return z, err
	}
	if d.Device() == nil && !d.Closed() { // host-only: its bytes are current
		if b := d.Raw().HostBytes(); len(b) >= sizeOf[D]() {
			return *(*D)(unsafe.Pointer(unsafe.SliceData(b))), nil
		}
	}
	v, err := d.HostReadOnly()
	if err != nil {
		return z, err
	}
	return v.At(), nil
}

// wholeDst checks dst of a reduction over AllDims: open, one element.
func wholeDst[D, T array.Elem](name string, dst *array.Array[D], a *array.Array[T]) error {
	if err := closedOperand(name, rawOf(dst), rawOf(a)); err != nil {
		return err
	}
	if dst.Len() != 1 {
		panic(fmt.Errorf("%w: ops.%s: dst has shape %s, want one element (array.New[T]()) to reduce over AllDims", array.ErrShape, name, shapeOf(dst)))
	}
	return nil
}

// reduceWhole is reduce over AllDims.
func reduceWhole[D, T array.Elem](op reduceOp, dst *array.Array[D], a *array.Array[T]) error {
	if err := wholeDst(reduceAllNames[op], dst, a); err != nil {
		return err
	}
	if op == redArgMin || op == redArgMax {
		if !cOrdered(a) { // the first extreme in memory order is not NumPy's
			d, err := new1(reduceAllNames[op]+" over AllDims", Copy[T], a) // dense, where a is
			if err != nil {
				return err
			}
			defer d.Close()
			a = d
		}
		c, err := reduceAllArg(op, a)
		if err != nil {
			return err
		}
		flat, step := 0, 1
		for i, x := range c {
			d := a.Dim(i)
			flat += (x - d.Min) * step
			step *= d.Extent
		}
		return setWhole(dst, any(int64(flat)).(D))
	}
	v, err := reduceAllValue(op, a)
	if err != nil {
		return err
	}
	return setWhole(dst, any(v).(D))
}

// cOrdered reports whether a's memory order is NumPy's C order of its
// shape (dimension 0 fastest): each dimension of extent > 1 strides over
// the whole span of those inside it. Crops are; transposes and
// broadcasts are not.
func cOrdered[T array.Elem](a *array.Array[T]) bool {
	span := 1
	for i := range a.Rank() {
		d := a.Dim(i)
		if d.Extent <= 1 {
			continue
		}
		if d.Stride < span {
			return false
		}
		span = d.Stride * d.Extent
	}
	return true
}

// setWhole stores v in dst's one element: on the host where dst has no
// device allocation (where Fill would put it, without its placement and
// loop), else with Fill.
func setWhole[D array.Elem](dst *array.Array[D], v D) error {
	if dst.Device() != nil {
		return Fill(dst, v)
	}
	h, err := outHost(dst)
	if err != nil {
		return err
	}
	h[0] = v
	return nil
}

// statWhole is statDim over AllDims.
func statWhole[D, T array.Elem](op statOp, dst *array.Array[D], a *array.Array[T], ddof int) error {
	if err := wholeDst(statNames[op]+" over AllDims", dst, a); err != nil {
		return err
	}
	v, err := statAll(op, a, ddof)
	if err != nil {
		return err
	}
	return setWhole(dst, f64To[D](v))
}

// axisDim is the dimension that axis ax of a names, in NumPy's order
// (-1 is dimension 0, the innermost); AllDims stays AllDims. An axis
// outside a panics with array.ErrOutOfRange, as a dimension did.
func axisDim[T array.Elem](a *array.Array[T], ax array.Axis) int {
	if ax == AllDims || a == nil {
		return int(ax)
	}
	if r := a.Rank(); int(ax) < -r || int(ax) >= r {
		panic(fmt.Errorf("%w: ops: axis %d of an Array of shape %s: want -%d ≤ axis < %d (NumPy's order, outermost first; -1 is the innermost)", array.ErrOutOfRange, ax, shapeOf(a), r, r))
	}
	return a.DimOf(ax)
}

// axisOf is the Axis that names dimension dim at any rank: -1-dim.
func axisOf(dim int) array.Axis { return array.Axis(-1 - dim) }
