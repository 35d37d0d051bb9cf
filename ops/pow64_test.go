package ops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// powExact is x^y correctly rounded to float64, for positive normal x and
// |y·ln x| ≤ 708: e^(y·ln x) in 300-bit arithmetic.
func powExact(x, y float64) float64 {
	const prec = 300
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	t := lnBig(f(x), prec)
	t.Mul(t, f(y))
	ln2 := lnBig(f(2), prec)
	tf, _ := t.Float64()
	k := math.Round(tf / math.Ln2)
	r := t.Sub(t, ln2.Mul(ln2, f(k)))
	sum, term := f(1), f(1)
	for i := 1; i < 80; i++ {
		term.Mul(term, r)
		term.Quo(term, f(float64(i)))
		sum.Add(sum, term)
	}
	v, _ := sum.SetMantExp(sum, int(k)).Float64()
	return v
}

// powDraw draws a base and an exponent on pow64One's fast path: bases
// across the whole normal range, near 1 and small integers; exponents
// up to the overflow edge, small, integral and halves.
func powDraw(r *rand.Rand) (x, y float64) {
	switch r.IntN(4) {
	case 0:
		x = math.Exp(max(-700, min(700, r.NormFloat64()*200)))
	case 1:
		x = 1 + r.NormFloat64()*math.Pow(2, float64(-3-r.IntN(50)))
	case 2:
		x = float64(1 + r.IntN(100))
	default:
		x = math.Exp((r.Float64()*2 - 1) * 708)
	}
	l := math.Abs(math.Log(x))
	switch r.IntN(4) {
	case 0:
		y = (r.Float64()*2 - 1) * 708 / max(l, 1e-300)
	case 1:
		y = r.NormFloat64() * 4
	case 2:
		y = float64(r.IntN(41) - 20)
	default:
		y = float64(r.IntN(21)-10) + 0.5
	}
	if math.Abs(y*l) > 708 || x == 1 && r.IntN(2) == 0 {
		y = math.Copysign(700/max(l, 1e-300), y)
	}
	return
}

// TestPow64Accuracy: float64 Pow (pow64One, which the kernels match) is
// within one ulp of 300-bit arithmetic over drawn bases and exponents and
// correctly rounded in at least 99% of them (99.5% at the default seed;
// package math's Pow: 34%), exact where the result is (integral powers of small
// integers below 2^53, x^1, x^0, 1^y), and package math's Pow off the fast path.
func TestPow64Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 90))
	draws := accuracyDraws(20000)
	n, worst, mathN := 0, int64(0), 0
	for range draws {
		x, y := powDraw(r)
		got, want := pow64One(x, y), powExact(x, y)
		u := ulpDiff(got, want, false)
		if u > 1 {
			t.Fatalf("pow(%v, %v) = %v, want %v (%d ulps)", x, y, got, want, u)
		}
		if u == 0 {
			n++
		}
		if math.Pow(x, y) == want {
			mathN++
		}
		worst = max(worst, u)
	}
	frac := float64(n) / float64(draws)
	t.Logf("%d of %d (%.4f) correctly rounded, worst %d ulps; package math's Pow %.4f", n, draws, frac, worst, float64(mathN)/float64(draws))
	if frac < 0.99 {
		t.Errorf("%.4f of the results correctly rounded; want at least 0.99", frac)
	}
	for b := 2.0; b <= 12; b++ {
		for e := -20.0; e <= 20; e++ {
			if w := math.Pow(b, e); pow64One(b, e) != w && math.Abs(w) < 1<<53 && w == powExact(b, e) {
				t.Fatalf("pow(%v, %v) = %v, want %v exactly", b, e, pow64One(b, e), w)
			}
		}
	}
	for _, x := range []float64{0x1p-1022, 0.75, 1, 1.0000000000000002, 3, 1e300} {
		if pow64One(x, 1) != x || pow64One(x, 0) != 1 || pow64One(1, x) != 1 {
			t.Fatalf("pow(%v, 1), pow(%v, 0), pow(1, %v) = %v, %v, %v", x, x, x, pow64One(x, 1), pow64One(x, 0), pow64One(1, x))
		}
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, x := range []float64{0, math.Copysign(0, -1), -2, -0.5, -inf, inf, nan, 5e-324, 1e-310, 2, 0.5, 1, 1e308} {
		for _, y := range []float64{nan, inf, -inf, 0, -0.0, 1, -1, 2, 3, 0.5, -3, 1e300, -1e300, 2000, -2000, 1075, 1024} {
			if got, want := pow64One(x, y), math.Pow(x, y); !same(got, want) && (math.Abs(y*math.Log(math.Abs(x))) > 700 || !(x > 0x1p-1022) || math.IsInf(x, 0) || y != y) {
				t.Fatalf("pow(%v, %v) = %v, want package math's %v", x, y, got, want)
			}
		}
	}
}

// TestPow64Consts: the split constants are what the steps need: the high
// parts' low bits zero (so k·Ln2Hi and n·NLn2Hi are exact), the pairs
// ln 2 and −ln2/16 to 2^-90 and 2^-85 (their errors, times k ≤ 2^11 and
// n ≤ 2^14, stay under 2^-74 of the result), 16/ln 2 rounded; in each
// log row, z·(1/c) − 1 is exact and under 2^-7 across the subinterval,
// k·Ln2Hi + hi is exact, and hi + lo is −ln(1/c) to 2^-90; each exp row
// is 2^(j/16).
func TestPow64Consts(t *testing.T) {
	const prec = 200
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	ln2 := lnBig(f(2), prec)
	near := func(what string, hi, lo float64, want *big.Float, bits int) {
		t.Helper()
		d := new(big.Float).SetPrec(prec).Sub(new(big.Float).SetPrec(prec).Add(f(hi), f(lo)), want)
		if d.Sign() != 0 && d.MantExp(nil)-want.MantExp(nil) > -bits {
			t.Errorf("%s: %v + %v is %v off", what, hi, lo, d)
		}
	}
	near("ln2", p64Ln2Hi, p64Ln2Lo, ln2, 90)
	near("−ln2/16", p64NLn2Hi, p64NLn2Lo, new(big.Float).SetPrec(prec).Quo(ln2, f(-16)), 85)
	if math.Float64bits(p64Ln2Hi)&(1<<11-1) != 0 || math.Float64bits(p64NLn2Hi)&(1<<16-1) != 0 {
		t.Errorf("Ln2Hi %x or NLn2Hi %x has low bits set", p64Ln2Hi, p64NLn2Hi)
	}
	if v, _ := new(big.Float).SetPrec(prec).Quo(f(16), ln2).Float64(); v != p64InvN {
		t.Errorf("InvN %x, want %x", p64InvN, v)
	}
	if math.Abs(math.Log(2)-lnBigF(2)) != 0 || math.Abs(math.Log(0.3)-lnBigF(0.3)) > 1e-16 {
		t.Errorf("lnBig(2) = %v, lnBig(0.3) = %v", lnBigF(2), lnBigF(0.3))
	}
	c := pow64Consts()
	r := rand.New(rand.NewPCG(draw.Seed(t), 92))
	exact := func(a, b, add, got float64) bool { // a·b + add is got, exactly
		v := new(big.Float).SetPrec(prec).Mul(f(a), f(b))
		return v.Add(v, f(add)).Cmp(f(got)) == 0
	}
	for i, e := range c.log {
		lo := math.Float64frombits(p64Off + uint64(i)<<45)
		hi := math.Float64frombits(p64Off + uint64(i+1)<<45)
		for _, z := range []float64{lo, math.Nextafter(hi, 0), lo + (hi-lo)*r.Float64()} {
			v := math.FMA(z, e[0], -1)
			if math.Abs(v) >= 1.0/128 || !exact(z, e[0], -1, v) {
				t.Fatalf("log row %d: z·(1/c) − 1 at %v is %v, inexact or past 2^-7", i, z, v)
			}
		}
		for _, k := range []float64{-1022, -1, 0, 1, 1024, float64(r.IntN(2047) - 1022)} {
			if !exact(k, p64Ln2Hi, e[1], math.FMA(k, p64Ln2Hi, e[1])) {
				t.Fatalf("log row %d: k·Ln2Hi + hi inexact at k = %v", i, k)
			}
		}
		if e[0] != 1 {
			l := lnBig(f(e[0]), prec)
			near("−ln(1/c)", e[1], e[2], l.Neg(l), 90)
		}
	}
	for j := range 16 {
		// (s_j·(1 + tail_j))^16 = 2^j
		s := math.Float64frombits(c.sbits[j] + uint64(j)<<48)
		v := new(big.Float).SetPrec(prec).Mul(f(s), new(big.Float).SetPrec(prec).Add(f(1), f(math.Float64frombits(c.tail[j]))))
		for range 4 {
			v.Mul(v, v)
		}
		d := new(big.Float).SetPrec(prec).Sub(v, new(big.Float).SetPrec(prec).SetMantExp(f(1), j))
		if d.Sign() != 0 && d.MantExp(nil)-j > -98 {
			t.Errorf("exp row %d: s·(1 + tail) is not 2^(%d/16) to 2^-100", j, j)
		}
	}
}

// lnBigF is lnBig of a float64, rounded.
func lnBigF(x float64) float64 {
	v, _ := lnBig(new(big.Float).SetPrec(120).SetFloat64(x), 120).Float64()
	return v
}

// TestPow64Kernels: float64 Pow gives pow64One's bits from the AVX-512
// kernel, the AVX2 one and the Go loop, at drawn lengths, with lanes off
// the fast path (zero, negative, subnormal and non-finite bases;
// non-finite, huge and overflowing exponents) at drawn places, into a
// new slice and in place over a and over b; and through Binary, where
// the kernels must run; x^2 is x·x on every path.
func TestPow64Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 91))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	nan, inf := math.NaN(), math.Inf(1)
	bases := []float64{0, -2, -0.5, 1e-310, nan, inf, -inf, math.MaxFloat64, 1, 0x1p-1022}
	exps := []float64{nan, inf, -inf, 0, 1e300, -1e300, 0.5, 2000, -2000, 2, 2, 2}
	for c := range 200 {
		n := r.IntN(90)
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = powDraw(r)
			if r.IntN(16) == 0 {
				a[i] = bases[r.IntN(len(bases))]
			}
			if r.IntN(16) == 0 {
				b[i] = exps[r.IntN(len(exps))]
			}
		}
		useAsm, useAVX512 = false, false
		want := make([]float64, n)
		pow64(want, a, b)
		for i := range want {
			if !same(want[i], pow64One(a[i], b[i])) {
				t.Fatalf("case %d: the Go loop's pow(%v, %v) = %v, pow64One %v", c, a[i], b[i], want[i], pow64One(a[i], b[i]))
			}
		}
		eachKernel(func(name string) {
			got, ia, ib := make([]float64, n), slices.Clone(a), slices.Clone(b)
			runs := kernelRuns.Load()
			pow64(got, a, b)
			if n >= 8 && kernelRuns.Load() == runs {
				t.Fatalf("case %d %s: no kernel ran", c, name)
			}
			pow64(ia, ia, b)
			pow64(ib, a, ib)
			for i := range want {
				if !same(got[i], want[i]) || !same(ia[i], want[i]) || !same(ib[i], want[i]) {
					t.Fatalf("case %d n=%d %s pow(%v, %v) at %d: %v (over a %v, over b %v), Go %v", c, n, name, a[i], b[i], i, got[i], ia[i], ib[i], want[i])
				}
			}
		})
	}
	// whole steps on the fast path stay in the kernels
	eachKernel(func(name string) {
		a, b := []float64{2, 3, 0.5, 1e300, 1e-300, 1.5, 7, 1}, []float64{0.5, -2, 10, 2, -2, 100, 1.5, 1e308}
		out := make([]float64, 8)
		k := avx512Or(powF64AVX512, powF64)
		if got := k(unsafe.Pointer(&out[0]), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 8, pow64Consts()); got != 0 {
			t.Fatalf("%s: the kernel did %d of a step with pow(1, 1e308) and pow(1e300, 2) in it, want 0", name, got)
		}
		b[3], b[4], b[7] = 0.25, 0.5, -3
		if got := k(unsafe.Pointer(&out[0]), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), 8, pow64Consts()); got != 8 {
			t.Fatalf("%s: the kernel did %d of 8 fast-path lanes", name, got)
		}
	})
	// through Binary and BinaryScalar
	n := 1000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = powDraw(r)
	}
	x, y, d := array.FromSlice(xs, n), array.FromSlice(ys, n), array.New[float64](n)
	defer d.Close()
	runs := kernelRuns.Load()
	must(t, Binary(d, x, y, OpPow))
	if useAsm && kernelRuns.Load() == runs {
		t.Errorf("float64 Pow did not reach the kernels")
	}
	h, err := d.HostReadOnly()
	must(t, err)
	for i, v := range h.Data() {
		if !same(v, pow64One(xs[i], ys[i])) {
			t.Fatalf("Binary: pow(%v, %v) = %v, want %v", xs[i], ys[i], v, pow64One(xs[i], ys[i]))
		}
	}
	must(t, BinaryScalar(d, x, 2.5, OpPow))
	h, err = d.HostReadOnly()
	must(t, err)
	for i, v := range h.Data() {
		if !same(v, pow64One(xs[i], 2.5)) {
			t.Fatalf("BinaryScalar: pow(%v, 2.5) = %v, want %v", xs[i], v, pow64One(xs[i], 2.5))
		}
	}
	// x^2 is x·x, the correctly rounded square, on every path: the
	// kernels' lanes (b 2 but for one 3 a step, so that the kernels run:
	// without the blend about 0.5% of these would round the other way)...
	eachKernel(func(name string) {
		const m = 8192
		a, b, got := make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range a {
			a[i], b[i] = math.Exp(r.NormFloat64()*50), 2
			if i%8 == 7 {
				b[i] = 3
			}
		}
		pow64(got, a, b)
		for i := range a {
			if want := pow64One(a[i], b[i]); !same(got[i], want) || b[i] == 2 && got[i] != a[i]*a[i] {
				t.Fatalf("%s: pow(%v, %v) = %v, want %v", name, a[i], b[i], got[i], want)
			}
		}
	})
	// ... the Go loop, and a scalar 2's row (a Mul)
	for i := range xs {
		if r.IntN(8) == 0 {
			xs[i] = bases[r.IntN(len(bases))]
		}
	}
	x = array.FromSlice(xs, n)
	must(t, BinaryScalar(d, x, 2, OpPow))
	h, err = d.HostReadOnly()
	must(t, err)
	for i, v := range h.Data() {
		if sq := xs[i] * xs[i]; !same(v, sq) || !same(pow64One(xs[i], 2), sq) {
			t.Fatalf("pow(%v, 2) = %v (pow64One %v), want x·x = %v", xs[i], v, pow64One(xs[i], 2), sq)
		}
	}
}
