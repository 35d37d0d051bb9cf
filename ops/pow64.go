package ops

import (
	"math"
	"math/big"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// float64 Pow as e^(y·ln x), with ln x in two float64s (hi + lo, relative
// error near 2^-66) so that y·ln x up to ±708 loses under a tenth of an
// ulp; package math's Pow took 30 ns an element here, 14x NumPy's.
//
//	ln x  = k·ln2 − ln(1/c) + ln(1 + r)   x = 2^k·z, z in [0.71, 1.41) in one
//	        of 128 subintervals (centre c, 1 for the one holding 1),
//	        r = z·(1/c) − 1, exact in one fused multiply-add as 1/c has
//	        8 significant bits and |r| < 2^-7; ln(1+r) by Taylor to r^9
//	        with r and r²/2 kept exact; k·ln2's high part and −ln(1/c)'s
//	        are multiples of 2^-42, so their sum is exact
//	e^t   = 2^(n/16)·e^s                  t = n·ln2/16 + s, |s| < 2^-5.5,
//	        2^(j/16) = s_j·(1 + tail_j) from a table (two registers a
//	        column for AVX-512's VPERMI2PD: gathers cost more than the
//	        longer series), e^s by Taylor to s^7
//
// Positive normal x with |y·ln x| ≤ 708 (the result normal) take these
// steps; other arguments are package math's Pow, so its special cases
// (NaN, ±Inf, ±0, negative bases, overflow, subnormals) hold as they were.
// Within one ulp of 300-bit arithmetic and correctly rounded in 99.5% of
// TestPow64Accuracy's draws (99.9% with a 128-row exponential table, whose
// |s| < 2^-8.5 keeps s's roundings smaller, but gathered at a fifth more
// time). The kernels (pow64_amd64.s) do these
// operations, fused multiply-adds included, so they give pow64One's bits
// (TestPow64Kernels); explicit float64 conversions keep the compiler from
// fusing the others.

// pow64Table holds the tables and constants at the offsets pow64_amd64.s
// names; a kernel gathers from log (32 bytes a row).
type pow64Table struct {
	log   [128][4]float64 // 1/c; −ln(1/c) as hi (a multiple of 2^-42), lo; 0
	tail  [16]uint64      // tail_j's bits
	sbits [16]uint64      // s_j's bits less j<<48
	k     [34][4]uint64   // the kernels' constants, four copies each (AVX2 reads whole vectors)
}

const (
	p64Off    = 0x3fe6955500000000 // x's bits less these: k above bit 52, the subinterval in bits 45…51
	p64Ln2Hi  = 0x1.62e42fefa38p-1
	p64Ln2Lo  = 0x1.ef35793c7673p-45 // ln 2 = Ln2Hi + Ln2Lo (Hi's low 11 bits 0, so k·Ln2Hi is exact)
	p64InvN   = 0x1.71547652b82fep4  // 16/ln 2
	p64NLn2Hi = -0x1.62e42fefap-5    // −ln2/16 = NLn2Hi + NLn2Lo (Hi's low 16 bits 0, so n·NLn2Hi is exact)
	p64NLn2Lo = -0x1.cf79abc9e3b3ap-44
	p64Shift  = 0x1.8p52 // t·128/ln2 + Shift rounds to an integer n in the low bits
	p64Max    = 708      // |y·ln x| past this goes to package math: results near overflow or subnormal
)

// p64A are ln(1+r)'s Taylor coefficients past r²/2, in the scaled form the
// steps use (with ar = −r/2, ar2 = −r²/2, ar3 = −r³/2:
// ln(1+r) − r + r²/2 = ar3·(A1 + r·A2 + ar2·(A3 + r·A4 + ar2·(A5 + r·A6 + ar2·A7)))).
var p64A = [7]float64{-2.0 / 3, 0.5, 0.8, -2.0 / 3, -8.0 / 7, 1, 16.0 / 9}

// p64C are e^s's Taylor coefficients from s²: 1/2!, …, 1/7! (s^8/8! is
// under 2^-59 of e^s; a term more changed no result in TestPow64Accuracy).
var p64C = [6]float64{0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040}

// pow64Consts makes the tables once, when float64 Pow first runs (about
// 1 ms of 128-bit arithmetic).
var pow64Consts = sync.OnceValue(func() *pow64Table {
	const prec = 128
	t := new(pow64Table)
	for i := range 128 {
		lo := math.Float64frombits(p64Off + uint64(i)<<45)
		hi := math.Float64frombits(p64Off + uint64(i+1)<<45)
		if lo <= 1 && 1 < hi {
			t.log[i] = [4]float64{1, 0, 0, 0}
			continue
		}
		invc := 2 / (lo + hi) // rounded to 8 significant bits: 1/c·2^7 or 2^8 an integer
		if invc >= 1 {
			invc = math.Round(invc*128) / 128
		} else {
			invc = math.Round(invc*256) / 256
		}
		l := lnBig(new(big.Float).SetPrec(prec).SetFloat64(invc), prec)
		l.Neg(l)
		h, _ := l.Float64()
		h = math.Round(h*0x1p42) / 0x1p42
		r, _ := l.Sub(l, new(big.Float).SetFloat64(h)).Float64()
		t.log[i] = [4]float64{invc, h, r, 0}
	}
	step := new(big.Float).SetPrec(prec).SetFloat64(2) // 2^(1/16)
	for range 4 {
		step.Sqrt(step)
	}
	v := new(big.Float).SetPrec(prec).SetFloat64(1)
	for j := range 16 {
		s, _ := v.Float64()
		tail := new(big.Float).SetPrec(prec).Sub(v, new(big.Float).SetFloat64(s))
		tl, _ := tail.Quo(tail, new(big.Float).SetFloat64(s)).Float64()
		t.tail[j], t.sbits[j] = math.Float64bits(tl), math.Float64bits(s)-uint64(j)<<48
		v.Mul(v, step)
	}
	f := math.Float64bits
	k := []uint64{
		p64Off, 127 << 2, 0xfff << 52, 0x800 << 52, 0x4330000000000000, f(0x1p52 + 2048), f(1), f(p64Ln2Lo), f(p64Ln2Hi), f(-0.5),
		f(p64A[0]), f(p64A[1]), f(p64A[2]), f(p64A[3]), f(p64A[4]), f(p64A[5]), f(p64A[6]),
		1<<63 - 1, f(p64Max), f(p64InvN), f(p64Shift), f(p64NLn2Hi), f(p64NLn2Lo), 15,
		f(p64C[0]), f(p64C[1]), f(p64C[2]), f(p64C[3]), f(p64C[4]), f(p64C[5]),
		0x0010000000000000, 0x7fefffffffffffff, 0x7ff0000000000000, f(2),
	}
	for i, v := range k {
		t.k[i] = [4]uint64{v, v, v, v}
	}
	return t
})

// lnBig is the natural logarithm of u > 0 to prec ≤ 448 bits: u = m·2^k
// with m in [√½, √2), then k·ln2 + 2·atanh((m − 1)/(m + 1)) by its series.
func lnBig(u *big.Float, prec uint) *big.Float {
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	m := new(big.Float).SetPrec(prec)
	k := u.MantExp(m) // u = m·2^k, m in [½, 1)
	if m.Cmp(f(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		k--
	}
	z := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).Sub(m, f(1)), new(big.Float).SetPrec(prec).Add(m, f(1)))
	sum := atanh2Big(z, prec)
	if k == 0 {
		return sum
	}
	ln2 := new(big.Float).SetPrec(prec).Set(ln2Big())
	return sum.Add(sum, ln2.Mul(ln2, f(float64(k))))
}

// atanh2Big is 2·atanh z for |z| ≤ 1/3 to prec bits, by its series.
func atanh2Big(z *big.Float, prec uint) *big.Float {
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum, p := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec).Set(z)
	for i := 0; p.Sign() != 0 && (sum.Sign() == 0 || p.MantExp(nil)-sum.MantExp(nil) > -int(prec)-8); i++ {
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(p, new(big.Float).SetInt64(int64(2*i+1))))
		p.Mul(p, z2)
	}
	return sum.Mul(sum, new(big.Float).SetInt64(2))
}

// ln2Big is ln 2 = 2·atanh(1/3) to 448 bits, once.
var ln2Big = sync.OnceValue(func() *big.Float {
	return atanh2Big(new(big.Float).SetPrec(448).Quo(new(big.Float).SetPrec(448).SetInt64(1), new(big.Float).SetInt64(3)), 448)
})

// pow64One is float64 Pow of one element as the kernels compute it. x^2
// is x·x, the correctly rounded square (NumPy's x**2 is np.square).
func pow64One(x, y float64) float64 {
	if y == 2 {
		return x * x
	}
	ix := math.Float64bits(x)
	if ix-0x0010000000000000 >= 0x7ff0000000000000-0x0010000000000000 {
		return math.Pow(x, y) // not a positive normal number
	}
	c := pow64Consts()
	hi, lo := powLn64(ix, c)
	ehi := y * hi
	elo := math.FMA(y, lo, math.FMA(y, hi, -ehi))
	if !(math.Abs(ehi) <= p64Max) {
		return math.Pow(x, y)
	}
	return powExp64(ehi, elo, c)
}

// powLn64 is ln x as hi + lo for x's bits ix, x a positive normal number.
func powLn64(ix uint64, c *pow64Table) (hi, lo float64) {
	tmp := ix - p64Off
	e := &c.log[tmp>>45&127]
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	kd := float64(int64(tmp) >> 52)
	r := math.FMA(z, e[0], -1)         // exact
	t1 := math.FMA(kd, p64Ln2Hi, e[1]) // exact
	t2 := t1 + r
	lo2 := float64(t1-t2) + r // |t1| ≥ |r| or t1 = 0
	ar := -0.5 * r
	ar2 := r * ar
	ar3 := r * ar2
	hi = t2 + ar2
	lo3 := math.FMA(ar, r, -ar2) // −r²/2 = ar2 + lo3 exactly
	lo4 := float64(t2-hi) + ar2
	q := math.FMA(ar2, p64A[6], math.FMA(r, p64A[5], p64A[4]))
	q = math.FMA(ar2, q, math.FMA(r, p64A[3], p64A[2]))
	q = math.FMA(ar2, q, math.FMA(r, p64A[1], p64A[0]))
	lo1 := math.FMA(kd, p64Ln2Lo, e[2])
	lo = math.FMA(ar3, q, float64(float64(lo1+lo2)+lo3)+lo4)
	y := hi + lo
	return y, float64(hi-y) + lo
}

// powExp64 is e^(ehi + elo) for |ehi| ≤ p64Max.
func powExp64(ehi, elo float64, c *pow64Table) float64 {
	kd := float64(ehi*p64InvN) + p64Shift
	ki := math.Float64bits(kd)
	kd -= p64Shift
	s := math.FMA(kd, p64NLn2Hi, ehi) // exact
	s = math.FMA(kd, p64NLn2Lo, s) + elo
	j := ki & 15
	scale := math.Float64frombits(c.sbits[j] + ki<<48)
	s2 := s * s
	s4 := s2 * s2
	q := math.FMA(s2, math.FMA(s, p64C[3], p64C[2]), math.FMA(s, p64C[1], p64C[0]))
	q = math.FMA(s4, math.FMA(s, p64C[5], p64C[4]), q)
	tmp := math.FMA(s2, q, s) + math.Float64frombits(c.tail[j])
	return math.FMA(scale, tmp, scale)
}

// pow64 computes d = a^b over dense float64s (d may be a or b): the
// kernel up to a step it leaves to pow64One, that step in Go, and on.
// (The kernels are called by name: through a func value d, a and b would
// escape, and the callers' stack buffers with them.)
func pow64(d, a, b []float64) {
	a, b = a[:len(d)], b[:len(d)]
	c := pow64Consts()
	i := 0
	for useAsm && len(d)-i >= 8 {
		kernelRuns.Add(1)
		pd, pa, pb, n := unsafe.Pointer(&d[i]), unsafe.Pointer(&a[i]), unsafe.Pointer(&b[i]), (len(d)-i)&^7
		if useAVX512 {
			i += powF64AVX512(pd, pa, pb, n, c)
		} else {
			i += powF64(pd, pa, pb, n, c)
		}
		if len(d)-i >= 8 {
			for j := i; j < i+8; j++ {
				d[j] = pow64One(a[j], b[j])
			}
			i += 8
		}
	}
	for ; i < len(d); i++ {
		d[i] = pow64One(a[i], b[i])
	}
}

// squareBy reports whether op by the scalar s is float64 x^2, which
// binRowScalar runs as x·x (pow64One's x^2) with the cheap ops' grain.
func squareBy[T array.Elem](op BinaryOp, s T) bool {
	v, ok := any(s).(float64)
	return ok && op == OpPow && v == 2
}
