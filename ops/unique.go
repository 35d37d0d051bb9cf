package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/resident-go/resident/array"
)

// Unique, Bincount and Histogram: results whose length depends on the
// data, so they run on the host. An input that is device-dirty is copied
// home first (a.HostReadOnly), counted in its device's Stats and refused
// under the transfer guard; results are new dense, device-aware 1-D
// Arrays on the host. Close them when done.

// Unique returns the sorted distinct values of a (every element, in any
// shape), as np.unique(a): NumPy's order (NaNs last), −0 and +0 one
// value (the first of them in sorted order), and every NaN one value
// (NumPy's equal_nan=True).
func Unique[T array.Elem](a *array.Array[T]) (*array.Array[T], error) {
	v, _, err := unique("Unique", a, false)
	return v, err
}

// UniqueCounts is Unique with the number of times each value occurs, as
// np.unique(a, return_counts=True).
func UniqueCounts[T array.Elem](a *array.Array[T]) (vals *array.Array[T], counts *array.Array[int64], err error) {
	return unique("UniqueCounts", a, true)
}

func unique[T array.Elem](op string, a *array.Array[T], withCounts bool) (*array.Array[T], *array.Array[int64], error) {
	if err := closedOperand(op, nil, rawOf(a)); err != nil {
		return nil, nil, err
	}
	xs, err := hostValues(a)
	if err != nil {
		return nil, nil, fmt.Errorf("ops.%s: %w", op, err)
	}
	slices.SortStableFunc(xs, cmpElem[T])
	var vals []T
	var counts []int64
	for i, x := range xs {
		if i > 0 && eqElem(x, xs[i-1]) {
			counts[len(counts)-1]++
			continue
		}
		vals = append(vals, x)
		counts = append(counts, 1)
	}
	if vals == nil {
		vals = []T{}
	}
	v := array.FromValues(vals)
	if !withCounts {
		return v, nil, nil
	}
	if counts == nil {
		counts = []int64{}
	}
	return v, array.FromValues(counts), nil
}

// cmpElem orders values as NumPy sorts them: numbers by value (−0 with
// +0), NaNs last.
func cmpElem[T array.Elem](x, y T) int {
	switch kindOf[T]() {
	case kFloat, kHalf:
		fx, fy := toFloat64(x), toFloat64(y)
		nx, ny := fx != fx, fy != fy
		switch {
		case nx || ny:
			if nx && ny {
				return 0
			}
			if nx {
				return 1
			}
			return -1
		case fx < fy:
			return -1
		case fx > fy:
			return 1
		}
		return 0
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// eqElem is value equality with NaN equal to NaN.
func eqElem[T array.Elem](x, y T) bool { return cmpElem(x, y) == 0 }

// toFloat64 is x's value as a float64 (exact but for 64-bit integers
// beyond 2⁵³).
func toFloat64[T array.Elem](x T) float64 {
	if kindOf[T]() == kHalf {
		return float64(toF32(x))
	}
	return float64(x)
}

// Integer is the integer element types, which Bincount counts.
type Integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// Bincount returns the number of occurrences of each value 0, 1, …,
// max(x) in the 1-D Array x, as np.bincount(x, minlength=minlength): the
// result has max(max(x)+1, minlength) elements. A negative value is an
// error wrapping array.ErrOutOfRange (NumPy raises ValueError); x other
// than 1-D, or a negative minlength, panics with array.ErrShape.
func Bincount[T Integer](x *array.Array[T], minlength int) (*array.Array[int64], error) {
	out, err := bincount("Bincount", x, nil, minlength, func(c []int64, b int, _ float64) { c[b]++ })
	return out, err
}

// BincountWeights is Bincount with weights, as np.bincount(x, weights=w,
// minlength=minlength): bin v holds the sum (in float64) of w's elements
// where x is v. w has x's shape, or it panics with array.ErrShape.
func BincountWeights[T Integer, W array.Elem](x *array.Array[T], w *array.Array[W], minlength int) (*array.Array[float64], error) {
	if err := closedOperand("BincountWeights", nil, rawOf(x), rawOf(w)); err != nil {
		return nil, err
	}
	if x.Rank() == 1 {
		sameShape("BincountWeights", "w", w.Shape(), x.Shape())
	}
	var ws []float64
	if w.Rank() == 1 && x.Rank() == 1 {
		v, err := hostValues(w)
		if err != nil {
			return nil, fmt.Errorf("ops.BincountWeights: reading the weights: %w", err)
		}
		ws = make([]float64, len(v))
		for i, y := range v {
			ws[i] = toFloat64(y)
		}
	}
	return bincount("BincountWeights", x, ws, minlength, func(c []float64, b int, y float64) { c[b] += y })
}

func bincount[T Integer, C int64 | float64](op string, x *array.Array[T], ws []float64, minlength int, add func(c []C, b int, w float64)) (*array.Array[C], error) {
	if err := closedOperand(op, nil, rawOf(x)); err != nil {
		return nil, err
	}
	if x.Rank() != 1 {
		panic(fmt.Errorf("%w: ops.%s: x has shape %s: pass a 1-D Array (ops.Reshape(x, -1) flattens one)", array.ErrShape, op, pyShape(x.Shape())))
	}
	if minlength < 0 {
		panic(fmt.Errorf("%w: ops.%s: minlength = %d must be non-negative", array.ErrShape, op, minlength))
	}
	xs, err := hostValues(x)
	if err != nil {
		return nil, fmt.Errorf("ops.%s: %w", op, err)
	}
	n := minlength
	for _, v := range xs {
		if v < 0 { // signed types only; the compiler drops it for unsigned
			return nil, fmt.Errorf("%w: ops.%s: x holds %d: the values must be non-negative (NumPy raises ValueError)", array.ErrOutOfRange, op, int64(v))
		}
		if uint64(v) >= uint64(math.MaxInt32) {
			return nil, fmt.Errorf("%w: ops.%s: x holds %d: that many bins is too many (at most %d)", array.ErrOutOfRange, op, uint64(v), math.MaxInt32-1)
		}
		n = max(n, int(v)+1)
	}
	c := make([]C, n)
	for i, v := range xs {
		w := 0.0
		if ws != nil {
			w = ws[i]
		}
		add(c, int(v), w)
	}
	return array.FromValues(c), nil
}

// Histogram returns the counts of a's elements (any shape) in bins equal
// bins between a's smallest and largest element, and the bins+1 edges, as
// np.histogram(a, bins): bin i is [edges[i], edges[i+1]), the last one
// closed. When every element is the same the range is that value ± 0.5;
// for an empty a it is [0, 1]. A NaN or an infinity in a is an error
// wrapping array.ErrOutOfRange (NumPy: "autodetected range … is not
// finite"); pass a range with HistogramRange. bins < 1 panics with
// array.ErrOutOfRange. Edges and the binning are NumPy's in float64 (for
// float32, Float16 and BFloat16 input NumPy computes edges in the input's
// type, so an element right at an edge may fall in the neighbouring bin).
func Histogram[T array.Elem](a *array.Array[T], bins int) (counts *array.Array[int64], edges *array.Array[float64], err error) {
	return histogram("Histogram", a, bins, 0, 0, false)
}

// HistogramRange is Histogram over [lo, hi], np.histogram(a, bins,
// range=(lo, hi)): elements outside it (and NaNs) are not counted. lo >
// hi, or a bound that is not finite, panics with array.ErrOutOfRange.
func HistogramRange[T array.Elem](a *array.Array[T], bins int, lo, hi float64) (counts *array.Array[int64], edges *array.Array[float64], err error) {
	return histogram("HistogramRange", a, bins, lo, hi, true)
}

func histogram[T array.Elem](op string, a *array.Array[T], bins int, lo, hi float64, given bool) (*array.Array[int64], *array.Array[float64], error) {
	if err := closedOperand(op, nil, rawOf(a)); err != nil {
		return nil, nil, err
	}
	if bins < 1 {
		panic(fmt.Errorf("%w: ops.%s: bins = %d: want at least 1", array.ErrOutOfRange, op, bins))
	}
	if given && (lo > hi || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo != lo || hi != hi) {
		panic(fmt.Errorf("%w: ops.%s: range [%v, %v]: want finite bounds, lo ≤ hi", array.ErrOutOfRange, op, lo, hi))
	}
	xs, err := hostValues(a)
	if err != nil {
		return nil, nil, fmt.Errorf("ops.%s: %w", op, err)
	}
	fs := make([]float64, len(xs))
	for i, x := range xs {
		fs[i] = toFloat64(x)
	}
	switch {
	case given:
	case len(fs) == 0:
		lo, hi = 0, 1
	default:
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, f := range fs {
			if f != f || math.IsInf(f, 0) {
				return nil, nil, fmt.Errorf("%w: ops.%s: a holds %v: the autodetected range is not finite (NumPy raises ValueError): pass a range with ops.HistogramRange", array.ErrOutOfRange, op, f)
			}
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	edges := array.Linspace[float64](lo, hi, bins+1)
	ev, _ := edges.HostReadOnly() // made on the host: no copy
	e := ev.Data()
	c := make([]int64, bins)
	denom := hi - lo
	for _, f := range fs {
		if !(f >= lo && f <= hi) {
			continue
		}
		// NumPy's uniform-bins path: the computed bin, then corrected
		// against the edges themselves.
		i := int((f - lo) / denom * float64(bins))
		if i == bins {
			i--
		}
		if f < e[i] {
			i--
		}
		if f >= e[i+1] && i != bins-1 {
			i++
		}
		c[i]++
	}
	return array.FromValues(c), edges, nil
}
