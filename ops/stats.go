package ops

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// statOp is a statistics reduction. They compute in float64 on the host
// (float, or double where the device has fp64, on the device).
type statOp uint8

const (
	stVar statOp = iota
	stStd
	stL1
	stL2
	stMax
	stLSE
	stCount
	stAny
	stAll
)

var statNames = [...]string{"Var", "Std", "Norm", "Norm", "Norm", "LogSumExp", "CountNonzero", "Any", "All"}

// NormOrd is the order of a vector norm: NormL1 Σ|x|, NormL2 √Σx², NormMax
// max|x| (NumPy's ord 1, 2 and inf on a vector).
type NormOrd uint8

const (
	NormL1 NormOrd = iota
	NormL2
	NormMax
)

func (o NormOrd) op() statOp {
	switch o {
	case NormL1:
		return stL1
	case NormL2:
		return stL2
	case NormMax:
		return stMax
	}
	panic(fmt.Errorf("%w: ops.Norm: order %d: want NormL1, NormL2 or NormMax", array.ErrOutOfRange, o))
}

// Var stores in dst the variance of a along axis ax: Σ(x − mean)² /
// (n − ddof), NumPy's var with ddof (0 the population variance, 1 the
// sample's). n − ddof ≤ 0 gives NaN or +Inf, as in NumPy. dst has a's
// shape without ax (or with it of extent 1), as for Sum. Float types
// only (ErrUnsupported otherwise); two passes in float64 (mean, then the
// squared deviations).
func Var[T array.Elem](dst, a *array.Array[T], ax array.Axis, ddof int) error {
	return statDim(stVar, dst, a, axisDim(a, ax), ddof)
}

// Std stores in dst the standard deviation √Var of a along axis ax.
func Std[T array.Elem](dst, a *array.Array[T], ax array.Axis, ddof int) error {
	return statDim(stStd, dst, a, axisDim(a, ax), ddof)
}

// Norm stores in dst the vector norm of order ord of a along axis
// ax. Float types only. NormMax over no elements is undefined: an error
// wrapping array.ErrShape, as for Max.
func Norm[T array.Elem](dst, a *array.Array[T], ax array.Axis, ord NormOrd) error {
	return statDim(ord.op(), dst, a, axisDim(a, ax), 0)
}

// LogSumExp stores in dst log Σ exp(x) of a along axis ax, computed
// as m + log Σ exp(x − m) with m the maximum, so that it neither
// overflows nor underflows. It is m where m is ±Inf or NaN, −Inf over no
// elements. Float types only; the sum is in float64, and for float32 each
// exp(x − m) is float32 Exp of the float32 difference, as NumPy's float32
// formula computes it.
func LogSumExp[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return statDim(stLSE, dst, a, axisDim(a, ax), 0)
}

// CountNonzero stores in dst the number of elements of a along axis
// ax that are not zero (NaN counts, −0 does not). Every element type.
func CountNonzero[T array.Elem](dst *array.Array[int64], a *array.Array[T], ax array.Axis) error {
	return statDim(stCount, dst, a, axisDim(a, ax), 0)
}

// Any stores in dst 1 where some element of a along axis ax is
// nonzero, else 0 (0 over no elements).
func Any[T array.Elem](dst *array.Array[uint8], a *array.Array[T], ax array.Axis) error {
	return statDim(stAny, dst, a, axisDim(a, ax), 0)
}

// All stores in dst 1 where every element of a along axis ax is
// nonzero, else 0 (1 over no elements).
func All[T array.Elem](dst *array.Array[uint8], a *array.Array[T], ax array.Axis) error {
	return statDim(stAll, dst, a, axisDim(a, ax), 0)
}

// spart is a statistic over part of the elements: n of them; for Var and
// Std a the mean and b the sum of squared deviations; for the norms a
// the sum (of |x| or x²) or max|x|; for LogSumExp a the maximum and b
// Σ exp(x − a); for the counts a the nonzero ones.
type spart struct{ n, a, b float64 }

// merge joins q (later elements) into p.
func (p *spart) merge(op statOp, q spart) {
	if q.n == 0 {
		return
	}
	if p.n == 0 {
		*p = q
		return
	}
	n := p.n + q.n
	switch op {
	case stVar, stStd:
		d := q.a - p.a
		p.b += q.b + d*d*p.n*q.n/n
		p.a += d * q.n / n
	case stMax:
		p.a = nanMax(p.a, q.a)
	case stLSE:
		m := nanMax(p.a, q.a)
		if math.IsInf(m, 0) || m != m {
			p.a, p.b = m, 1
			break
		}
		p.b = p.b*math.Exp(p.a-m) + q.b*math.Exp(q.a-m)
		p.a = m
	default:
		p.a += q.a
	}
	p.n = n
}

// nanMax is the larger of x and y, NaN if either is.
func nanMax(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return max(x, y)
}

// value is the statistic's result.
func (p spart) value(op statOp, ddof int) float64 {
	switch op {
	case stVar, stStd:
		if p.n == 0 {
			return math.NaN()
		}
		v := p.b / max(p.n-float64(ddof), 0)
		if op == stStd {
			return math.Sqrt(v)
		}
		return v
	case stL2:
		return math.Sqrt(p.a)
	case stLSE:
		if p.n == 0 {
			return math.Inf(-1)
		}
		if math.IsInf(p.a, 0) || p.a != p.a {
			return p.a
		}
		return p.a + math.Log(p.b)
	case stAny:
		return b2f(p.a > 0)
	case stAll:
		return b2f(p.a == p.n)
	}
	return p.a
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// statRun is the statistic of n elements of T at base+off, stride apart.
func statRun[T array.Elem](op statOp, base unsafe.Pointer, off, stride, n int) spart {
	p := spart{n: float64(n)}
	if n == 0 {
		return spart{}
	}
	if stride == 1 {
		if q, ok := statFast(op, any(unsafe.Slice(ptr[T](base, off), n))); ok {
			return q
		}
	}
	switch op {
	case stCount, stAny, stAll:
		p.a = float64(countNonzero[T](base, off, stride, n))
		return p
	case stVar, stStd:
		var s float64
		if k := kindOf[T](); k == kFloat || k == kHalf {
			s = sumFloat[T](base, off, stride, n)
		}
		mean := s / float64(n)
		if math.IsInf(mean, 0) || mean != mean {
			p.a, p.b = mean, math.NaN()
			return p
		}
		var q [4]float64
		eachBlock[T](base, off, stride, n, func(_ int, xs []float64) {
			i := 0
			for ; i+4 <= len(xs); i += 4 {
				d0, d1, d2, d3 := xs[i]-mean, xs[i+1]-mean, xs[i+2]-mean, xs[i+3]-mean
				q[0] += d0 * d0
				q[1] += d1 * d1
				q[2] += d2 * d2
				q[3] += d3 * d3
			}
			for ; i < len(xs); i++ {
				d := xs[i] - mean
				q[0] += d * d
			}
		})
		p.a, p.b = mean, (q[0]+q[1])+(q[2]+q[3])
	case stL1, stL2:
		var q [4]float64
		l2 := op == stL2
		eachBlock[T](base, off, stride, n, func(_ int, xs []float64) {
			i := 0
			if l2 {
				for ; i+4 <= len(xs); i += 4 {
					q[0] += xs[i] * xs[i]
					q[1] += xs[i+1] * xs[i+1]
					q[2] += xs[i+2] * xs[i+2]
					q[3] += xs[i+3] * xs[i+3]
				}
				for ; i < len(xs); i++ {
					q[0] += xs[i] * xs[i]
				}
				return
			}
			for ; i+4 <= len(xs); i += 4 {
				q[0] += math.Abs(xs[i])
				q[1] += math.Abs(xs[i+1])
				q[2] += math.Abs(xs[i+2])
				q[3] += math.Abs(xs[i+3])
			}
			for ; i < len(xs); i++ {
				q[0] += math.Abs(xs[i])
			}
		})
		p.a = (q[0] + q[1]) + (q[2] + q[3])
	case stMax:
		m, nan := 0.0, false
		eachBlock[T](base, off, stride, n, func(_ int, xs []float64) {
			for _, x := range xs {
				if a := math.Abs(x); a > m {
					m = a
				} else if x != x {
					nan = true
				}
			}
		})
		if nan {
			m = math.NaN()
		}
		p.a = m
	case stLSE:
		m, nan := math.Inf(-1), false
		eachBlock[T](base, off, stride, n, func(_ int, xs []float64) {
			for _, x := range xs {
				if x > m {
					m = x
				} else if x != x {
					nan = true
				}
			}
		})
		if nan {
			m = math.NaN()
		}
		p.a, p.b = m, 1
		if math.IsInf(m, 0) || m != m {
			return p
		}
		var q [2]float64
		ex := expOf[T]()
		eachBlock[T](base, off, stride, n, func(_ int, xs []float64) {
			i := 0
			for ; i+2 <= len(xs); i += 2 {
				q[0] += ex(xs[i], m)
				q[1] += ex(xs[i+1], m)
			}
			for ; i < len(xs); i++ {
				q[0] += ex(xs[i], m)
			}
		})
		p.b = q[0] + q[1]
	}
	return p
}

// countNonzero counts the elements that are not zero (−0 is zero, NaN is
// not).
func countNonzero[T array.Elem](base unsafe.Pointer, off, stride, n int) int {
	s := span[T](base, off, n, stride)
	c := 0
	if kindOf[T]() == kHalf {
		for i := 0; i < n; i++ {
			if uint16(s[i*stride])&0x7fff != 0 { // every bit but the sign: ±0 only
				c++
			}
		}
		return c
	}
	for i := 0; i < n; i++ {
		if s[i*stride] != 0 {
			c++
		}
	}
	return c
}

// statEmpty is the error of op over no elements: only NormMax (a maximum)
// is undefined.
func statEmpty(op statOp, name string, a shaped) error {
	if op == stMax {
		return fmt.Errorf("%w: ops.%s over no elements (shape %s): the maximum norm is undefined", array.ErrShape, name, shapeOf(a))
	}
	return nil
}

// statCheck is what every statistic checks before placement: the element
// type, then over no elements a closed operand and statEmpty.
func statCheck[D, T array.Elem](op statOp, name string, dst *array.Array[D], a *array.Array[T], dim int) error {
	if op < stCount {
		if err := floatOnly[T](name); err != nil {
			return err
		}
	}
	if op != stMax {
		return nil
	}
	if dim < 0 {
		if a.Len() != 0 {
			return nil
		}
	} else if dim >= a.Rank() || a.Dim(dim).Extent != 0 {
		return nil
	}
	if err := closedOperand(name, rawOf(dst), rawOf(a)); err != nil {
		return err
	}
	return statEmpty(op, name, a)
}

// statDim runs a statistic along dim; D is T, int64 (CountNonzero) or
// uint8 (Any, All).
func statDim[D, T array.Elem](op statOp, dst *array.Array[D], a *array.Array[T], dim, ddof int) error {
	if dim == AllDims {
		return statWhole(op, dst, a, ddof)
	}
	name := statNames[op]
	if err := statCheck(op, name, dst, a, dim); err != nil {
		return err
	}
	ls := linesOf(name, lineReduce, a, dim, dst)
	if ok, err := deviceStat(op, &ls, dim, dst, a, ddof); ok {
		return err
	}
	if ls.lines() == 0 {
		return nil
	}
	db, ab, err := lineHostPtrs(dst, a)
	if err != nil {
		return err
	}
	ls.forLines(lineGrain, func(_ int, off *[maxOps]int) {
		v := statRun[T](op, ab, off[1], ls.st[1], ls.L).value(op, ddof)
		*ptr[D](db, off[0]) = f64To[D](v)
	}, nil)
	return nil
}

// statAll is the statistic of every element of a.
func statAll[T array.Elem](op statOp, a *array.Array[T], ddof int) (float64, error) {
	name := statNames[op] + " over AllDims"
	if err := statCheck(op, name, (*array.Array[T])(nil), a, -1); err != nil {
		return 0, err
	}
	if v, ok, err := deviceStatAll(op, a, ddof); ok {
		return v, err
	}
	j := getJob()
	defer putJob(j)
	j.init(name, a)
	j.simplify()
	total := j.total()
	if a.Len() == 0 {
		return spart{}.value(op, ddof), nil
	}
	av, err := a.HostReadOnly()
	if err != nil {
		return 0, err
	}
	j.base[0] = hostPtr(av)
	j.body = func(j *job, chunk, lo, hi int) {
		var p spart
		forRows(&j.nest, lo, hi, &j.offs[chunk], func(m int, off *[maxOps]int) {
			p.merge(op, statRun[T](op, j.base[0], off[0], j.str[0][0], m))
		})
		j.part[chunk].s = p
	}
	nw := j.parallel(total, cheapGrain) // one pass over the data, as a cheap elementwise op
	var p spart
	for _, q := range j.part[:nw] {
		p.merge(op, q.s)
	}
	return p.value(op, ddof), nil
}

// expFast is e^x for x ≤ 0 within 2e-10 relative (enough for float32
// results; float64 ones use math.Exp): x = k·ln2 + r, |r| ≤ ln2/2, e^r by
// a degree-9 Taylor polynomial.
func expFast(x float64) float64 {
	if !(x > -700) { // −Inf, NaN and what underflows float64's exponent trick
		if x != x {
			return x
		}
		return math.Exp(x)
	}
	k := math.Floor(x*math.Log2E + 0.5)
	r := x - k*0.6931471805599453
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040+r*(1.0/40320+r*(1.0/362880)))))))))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}

// expOf is e^(x−m) for T's precision: float32 Exp of the float32
// difference for float32 (the contiguous kernels' bits, expShiftF32),
// expFast for the 16-bit floats, math.Exp for float64.
func expOf[T array.Elem]() func(x, m float64) float64 {
	switch {
	case sizeOf[T]() == 8:
		return func(x, m float64) float64 { return math.Exp(x - m) }
	case kindOf[T]() == kFloat:
		return func(x, m float64) float64 { return float64(exp32(float32(x) - float32(m))) }
	}
	return func(x, m float64) float64 { return expFast(x - m) }
}
