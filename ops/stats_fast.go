package ops

import (
	"math"
	"unsafe"
)

// Concrete kernels for contiguous float32 and float64 lines, the common
// case: generic code over T calls kindOf and friends through the
// dictionary and keeps values in memory, several times slower.

// statFast is statRun for a contiguous float32 or float64 line; ok is
// false for other types.
func statFast(op statOp, xs any) (spart, bool) {
	switch x := xs.(type) {
	case []float32:
		return statF32(op, x), true
	case []float64:
		return statF64(op, x), true
	}
	return spart{}, false
}

func statF32(op statOp, x []float32) spart {
	n := len(x)
	p := spart{n: float64(n)}
	var q0, q1, q2, q3 float64 // in registers (an array stays in memory)
	switch op {
	case stVar, stStd:
		mean := sumF32Line(x) / float64(n)
		if math.IsInf(mean, 0) || mean != mean {
			p.a, p.b = mean, math.NaN()
			return p
		}
		i := 0
		for ; i+4 <= n; i += 4 {
			d0, d1, d2, d3 := float64(x[i])-mean, float64(x[i+1])-mean, float64(x[i+2])-mean, float64(x[i+3])-mean
			q0 += d0 * d0
			q1 += d1 * d1
			q2 += d2 * d2
			q3 += d3 * d3
		}
		for ; i < n; i++ {
			d := float64(x[i]) - mean
			q0 += d * d
		}
		p.a, p.b = mean, (q0+q1)+(q2+q3)
	case stL1:
		i := 0
		if useAsm && n >= 16 {
			i = n &^ 15
			q0 = absSumF32(unsafe.Pointer(&x[0]), i)
		}
		for ; i+4 <= n; i += 4 {
			q0 += float64(abs32(x[i]))
			q1 += float64(abs32(x[i+1]))
			q2 += float64(abs32(x[i+2]))
			q3 += float64(abs32(x[i+3]))
		}
		for ; i < n; i++ {
			q0 += float64(abs32(x[i]))
		}
		p.a = (q0 + q1) + (q2 + q3)
	case stL2:
		i := 0
		if useAsm && n >= 16 {
			i = n &^ 15
			q0 = sumSqF32(unsafe.Pointer(&x[0]), i)
		}
		for ; i+4 <= n; i += 4 {
			a, b, c, d := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
			q0 += a * a
			q1 += b * b
			q2 += c * c
			q3 += d * d
		}
		for ; i < n; i++ {
			q0 += float64(x[i]) * float64(x[i])
		}
		p.a = (q0 + q1) + (q2 + q3)
	case stMax:
		// |x| as bits: their unsigned order is the value order, and a NaN
		// is above +Inf, so the largest is NaN if any is
		var m0, m1, m2, m3 uint32
		i := 0
		if useAsm && n >= 32 {
			i = n &^ 31
			m0 = absMaxF32(unsafe.Pointer(&x[0]), i)
		}
		for ; i+4 <= n; i += 4 {
			m0 = max(m0, math.Float32bits(x[i])&^(1<<31))
			m1 = max(m1, math.Float32bits(x[i+1])&^(1<<31))
			m2 = max(m2, math.Float32bits(x[i+2])&^(1<<31))
			m3 = max(m3, math.Float32bits(x[i+3])&^(1<<31))
		}
		for ; i < n; i++ {
			m0 = max(m0, math.Float32bits(x[i])&^(1<<31))
		}
		p.a = float64(math.Float32frombits(max(max(m0, m1), max(m2, m3))))
	case stLSE:
		m := maxF32(x)
		p.a, p.b = m, 1
		if math.IsInf(m, 0) || m != m {
			return p
		}
		p.b = sumExpF32(x, float32(m))
	case stCount:
		c, i := 0, 0
		if useAsm && n >= 32 {
			i = n &^ 31
			c = countNZF32(unsafe.Pointer(&x[0]), i)
		}
		p.a = float64(c + countF(op, x[i:]))
	default:
		p.a = float64(countF(op, x))
	}
	return p
}

// abs32 is |x| by its sign bit, in one move to an integer register and
// back (math.Abs of a float64 takes a second).
func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// countF is the number of nonzero elements, or for Any and All only as
// much of it as their answer needs: Any stops at the first nonzero (1),
// All at the first zero (n−1).
func countF[F float32 | float64](op statOp, x []F) int {
	switch op {
	case stAny:
		for _, v := range x {
			if v != 0 {
				return 1
			}
		}
		return 0
	case stAll:
		for _, v := range x {
			if v == 0 {
				return len(x) - 1
			}
		}
		return len(x)
	}
	c := 0
	for _, v := range x {
		if v != 0 {
			c++
		}
	}
	return c
}

// maxF32 is the largest element, NaN if any is.
func maxF32(x []float32) float64 {
	m0, m1 := float32(math.Inf(-1)), float32(math.Inf(-1))
	nan := false
	i := 0
	if useAsm && len(x) >= 32 {
		i = len(x) &^ 31
		m0 = maxF32v(unsafe.Pointer(&x[0]), i)
		nan = m0 != m0
	}
	for ; i+2 <= len(x); i += 2 {
		a, b := x[i], x[i+1]
		if a > m0 {
			m0 = a
		}
		if b > m1 {
			m1 = b
		}
		nan = nan || a != a || b != b
	}
	for ; i < len(x); i++ {
		if x[i] > m0 {
			m0 = x[i]
		}
		nan = nan || x[i] != x[i]
	}
	if nan {
		return math.NaN()
	}
	return float64(max(m0, m1))
}

// sumF32Line is the pairwise float64 sum of a contiguous float32 line.
func sumF32Line(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	return sumFloat[float32](dataPtr(x), 0, 1, len(x))
}

func statF64(op statOp, x []float64) spart {
	n := len(x)
	p := spart{n: float64(n)}
	var q0, q1, q2, q3 float64 // in registers (an array stays in memory)
	switch op {
	case stVar, stStd:
		mean := sumFloat[float64](dataPtr(x), 0, 1, n) / float64(n)
		if math.IsInf(mean, 0) || mean != mean {
			p.a, p.b = mean, math.NaN()
			return p
		}
		i := 0
		for ; i+4 <= n; i += 4 {
			d0, d1, d2, d3 := x[i]-mean, x[i+1]-mean, x[i+2]-mean, x[i+3]-mean
			q0 += d0 * d0
			q1 += d1 * d1
			q2 += d2 * d2
			q3 += d3 * d3
		}
		for ; i < n; i++ {
			d := x[i] - mean
			q0 += d * d
		}
		p.a, p.b = mean, (q0+q1)+(q2+q3)
	case stL1:
		i := 0
		for ; i+4 <= n; i += 4 {
			q0 += math.Abs(x[i])
			q1 += math.Abs(x[i+1])
			q2 += math.Abs(x[i+2])
			q3 += math.Abs(x[i+3])
		}
		for ; i < n; i++ {
			q0 += math.Abs(x[i])
		}
		p.a = (q0 + q1) + (q2 + q3)
	case stL2:
		i := 0
		for ; i+4 <= n; i += 4 {
			q0 += x[i] * x[i]
			q1 += x[i+1] * x[i+1]
			q2 += x[i+2] * x[i+2]
			q3 += x[i+3] * x[i+3]
		}
		for ; i < n; i++ {
			q0 += x[i] * x[i]
		}
		p.a = (q0 + q1) + (q2 + q3)
	case stMax:
		m := 0.0
		for _, v := range x {
			m = max(m, math.Abs(v))
		}
		p.a = m
	case stLSE:
		m := math.Inf(-1)
		for _, v := range x {
			m = max(m, v)
		}
		p.a, p.b = m, 1
		if math.IsInf(m, 0) || m != m {
			return p
		}
		i := 0
		for ; i+4 <= n; i += 4 {
			q0 += math.Exp(x[i] - m)
			q1 += math.Exp(x[i+1] - m)
			q2 += math.Exp(x[i+2] - m)
			q3 += math.Exp(x[i+3] - m)
		}
		for ; i < n; i++ {
			q0 += math.Exp(x[i] - m)
		}
		p.b = (q0 + q1) + (q2 + q3)
	default:
		p.a = float64(countF(op, x))
	}
	return p
}

// expShiftF32 stores e^(x−m) of each x in d (which may be x), the
// difference rounded to float32 and exp32's bits of it, and returns their
// sum in float64. The rounding costs nothing that shows: a term's error is
// at most |x−m|·e^(x−m)·2^−24 ≤ 2.2e-8 absolute, against a sum ≥ 1 (the
// maximum's term), and relative |x−m|·2^−24 < 7e-6 for the smallest
// terms. NumPy's float32 softmax rounds the same way.
func expShiftF32(d, x []float32, m float32) float64 {
	d = d[:len(x)]
	s, i := 0.0, 0
	if useAsm {
		w, v := lanes512(len(d), 8)
		if w > 0 {
			s = expSumF32AVX512(unsafe.Pointer(&d[0]), unsafe.Pointer(&x[0]), w, m)
		}
		if v > w {
			s += expSumF32(unsafe.Pointer(&d[w]), unsafe.Pointer(&x[w]), v-w, m)
		}
		i = v
	}
	for ; i < len(d); i++ {
		d[i] = exp32(x[i] - m)
		s += float64(d[i])
	}
	return s
}

// sumExpF32 is Σ e^(x−m) over x (expShiftF32 through a stack buffer).
func sumExpF32(x []float32, m float32) float64 {
	var buf [1024]float32
	s := 0.0
	for len(x) > 0 {
		k := min(len(x), len(buf))
		s += expShiftF32(buf[:k], x[:k], m)
		x = x[k:]
	}
	return s
}

// softmaxF32 is Softmax of one contiguous float32 line into d (which may
// be x).
func softmaxF32(d, x []float32) {
	r := float32(1 / expShiftF32(d, x, float32(maxF32(x))))
	i := 0
	if useAsm {
		i = len(d) &^ 31
		scaleF32(unsafe.Pointer(unsafe.SliceData(d)), i, r)
	}
	for ; i < len(d); i++ {
		d[i] *= r
	}
}

// softmaxF64 is Softmax of one contiguous float64 line into d (which may
// be x) in concrete code, the generic loop's operations in its order, so
// its bits.
func softmaxF64(d, x []float64) {
	d = d[:len(x)]
	m := math.Inf(-1)
	for _, v := range x {
		if v > m || v != v {
			m = v
		}
	}
	s := 0.0
	for i, v := range x {
		e := math.Exp(v - m)
		s += e
		d[i] = e
	}
	r := 1 / s
	for i := range d {
		d[i] *= r
	}
}
