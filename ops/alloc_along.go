package ops

import (
	"math"

	"github.com/resident-go/resident/array"
)

// NewAlong returns op(a) along axis ax in NumPy's order (-1 is dimension
// 0) with dst of a's shape, for the ops that keep the axis: Sort,
// ArgSort, CumSum, CumProd and Softmax. ops.NewAlong(ops.Sort, a, -1) is
// np.sort(a, axis=-1), ops.NewAlong(ops.ArgSort, a, 0) np.argsort(a,
// axis=0, kind='stable'), ops.NewAlong(ops.CumSum, a, 1) np.cumsum(a,
// axis=1). The op runs where it would on a caller's fresh dst: on a's
// device when a is current or newest there (Sort, ArgSort, CumSum,
// CumProd and Softmax have device kernels). ArgSort's positions count
// from 0 whatever a's mins (NumPy's; the dst-first ArgSort counts from
// Min). An axis outside a panics with array.ErrShape.
func NewAlong[D, T array.Elem](op func(dst *array.Array[D], a *array.Array[T], ax array.Axis) error, a *array.Array[T], ax array.Axis) (*array.Array[D], error) {
	if err := closedOperand("NewAlong", nil, rawOf(a)); err != nil {
		return nil, err
	}
	a.DimOf(ax)                            // an axis outside a panics here, before anything is made
	a = a.SetMin(make([]int, a.Rank())...) // positions from 0, as NumPy's
	return run(newResult[D](a.Extents()), func(d *array.Array[D]) error { return op(d, a, ax) })
}

// MeanAllFloat returns the mean of every element of a as a float64, as
// NumPy's np.mean(a) for integer a: the mean of int32 [1, 2] is 1.5,
// where Value(Mean, a), whose result is a T, truncates to 1. Integers are cast
// to float64 (CastWrap, a temporary Array placed by the rule: on a's
// device when a is current or newest there) and their mean taken there
// (Mean's pairwise float64 sum); for float types it is Value(Mean, a) as a
// float64. An empty a gives NaN, as NumPy's (with a warning there).
func MeanAllFloat[T array.Elem](a *array.Array[T]) (float64, error) {
	if err := closedOperand("MeanAllFloat", nil, rawOf(a)); err != nil {
		return 0, err
	}
	if a.Len() == 0 {
		return math.NaN(), nil
	}
	if k := kindOf[T](); k == kFloat || k == kHalf {
		m, err := reduceAllValue(redMean, a)
		return toFloat64(m), err
	}
	c, err := new1("MeanAllFloat", CastWrap[float64, T], a)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return reduceAllValue(redMean, c)
}

// MeanFloat returns the mean of a along axis ax in NumPy's order as
// float64, the axis removed: np.mean(a, axis=ax) for integer a (float64
// there too), where NewReduce(Mean, …) of integers truncates. A
// float64 copy of a is made as for MeanAllFloat (for every type) and
// reduced by Mean, both placed by the rule.
func MeanFloat[T array.Elem](a *array.Array[T], ax array.Axis) (*array.Array[float64], error) {
	if err := closedOperand("MeanFloat", nil, rawOf(a)); err != nil {
		return nil, err
	}
	a.DimOf(ax) // the axis first: nothing is made for a bad one
	c, err := new1("MeanFloat", CastWrap[float64, T], a)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return NewReduce(Mean[float64], c, ax)
}
