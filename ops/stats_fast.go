package ops

import (
	"math"
	"unsafe"
)

// Concrete kernels for contiguous float32 and float64 lines, the common
// case: generic code over T calls kindOf and friends through the
// dictionary and keeps values in memory, several times slower.

// expNeg is e^x for x ≤ 0 (x below −700 counts as −700: e^−700 is far
// below what a float32 result or a sum of e^(x−max) ≥ 1 can show): x =
// k·ln2 + r, |r| ≤ ln2/2, e^r by a degree-7 polynomial, within 6e-9
// relative. Small enough to inline.
func expNeg(x float64) float64 {
	const magic = 6755399441055744.0 // 1.5·2^52: adding it rounds to an integer
	if x < -700 {
		x = -700
	}
	t := x*math.Log2E + magic
	k := t - magic
	r := x - k*0.6931471805599453
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float64frombits((math.Float64bits(t)+1023)<<52) // t's low bits are k
}

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
		p.b = sumExpF32(x, m)
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

// sumExpF32 is Σ e^(x−m) over x, each term as expNeg (written out here:
// expNeg does not inline, and a call per element costs more than it).
func sumExpF32(x []float32, m float64) float64 {
	const magic = 6755399441055744.0
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		a, b := float64(x[i])-m, float64(x[i+1])-m
		if a < -700 {
			a = -700
		}
		if b < -700 {
			b = -700
		}
		ta, tb := a*math.Log2E+magic, b*math.Log2E+magic
		ka, kb := ta-magic, tb-magic
		ra, rb := a-ka*0.6931471805599453, b-kb*0.6931471805599453
		pa := 1 + ra*(1+ra*(1.0/2+ra*(1.0/6+ra*(1.0/24+ra*(1.0/120+ra*(1.0/720+ra*(1.0/5040)))))))
		pb := 1 + rb*(1+rb*(1.0/2+rb*(1.0/6+rb*(1.0/24+rb*(1.0/120+rb*(1.0/720+rb*(1.0/5040)))))))
		s0 += pa * math.Float64frombits((math.Float64bits(ta)+1023)<<52)
		s1 += pb * math.Float64frombits((math.Float64bits(tb)+1023)<<52)
	}
	for ; i < len(x); i++ {
		s0 += expNeg(float64(x[i]) - m)
	}
	return s0 + s1
}

// softmaxF32 is Softmax of one contiguous float32 line into d (which may
// be x). Two lanes of e^(x−m) are independent (one polynomial's latency
// hides behind the other's); they add into s in element order, so the
// sum, and every result, is the one-lane loop's bit for bit.
func softmaxF32(d, x []float32) {
	m := maxF32(x)
	var s float64
	i := 0
	const magic = 6755399441055744.0
	for ; i+2 <= len(x); i += 2 { // softE written out: it does not inline
		a, b := float64(x[i])-m, float64(x[i+1])-m
		if a < -700 {
			a = -700
		}
		if b < -700 {
			b = -700
		}
		ta, tb := a*math.Log2E+magic, b*math.Log2E+magic
		ka, kb := ta-magic, tb-magic
		ra, rb := a-ka*0.6931471805599453, b-kb*0.6931471805599453
		pa := 1 + ra*(1+ra*(1.0/2+ra*(1.0/6+ra*(1.0/24+ra*(1.0/120+ra*(1.0/720+ra*(1.0/5040)))))))
		pb := 1 + rb*(1+rb*(1.0/2+rb*(1.0/6+rb*(1.0/24+rb*(1.0/120+rb*(1.0/720+rb*(1.0/5040)))))))
		ea := pa * math.Float64frombits((math.Float64bits(ta)+1023)<<52)
		eb := pb * math.Float64frombits((math.Float64bits(tb)+1023)<<52)
		if a != a {
			ea = a
		}
		if b != b {
			eb = b
		}
		s += ea
		s += eb
		d[i], d[i+1] = float32(ea), float32(eb)
	}
	for ; i < len(x); i++ {
		e := softE(x[i], m)
		s += e
		d[i] = float32(e)
	}
	r := float32(1 / s)
	for i := range d {
		d[i] *= r
	}
}

// softE is e^(v−m) in float64 for softmaxF32 (a NaN v−m gives NaN: the
// max is NaN, or +Inf − +Inf).
func softE(v float32, m float64) float64 {
	const magic = 6755399441055744.0
	a := float64(v) - m
	if a < -700 {
		a = -700
	}
	t := a*math.Log2E + magic
	k := t - magic
	r := a - k*0.6931471805599453
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	e := p * math.Float64frombits((math.Float64bits(t)+1023)<<52)
	if a != a {
		e = a
	}
	return e
}
