package ops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// hyp64Exact is sinh, cosh or e^x − 1 of x correctly rounded to float64,
// from expBig in 200-bit arithmetic (Taylor's series near 0, where that
// would cancel).
func hyp64Exact(op UnaryOp, x float64) float64 {
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(expPrec).SetFloat64(v) }
	switch {
	case x != x || x == 0 && op != OpCosh:
		return x
	case math.IsInf(x, 0):
		return map[UnaryOp]float64{OpSinh: x, OpCosh: math.Inf(1), OpExpm1: math.Max(x, -1)}[op]
	case op == OpExpm1 && x < -60:
		return -1
	case math.Abs(x) < 0x1p-30 && op != OpCosh: // x + x²/2 + x³/6 or x + x³/6
		x2 := new(big.Float).SetPrec(expPrec).Mul(f(x), f(x))
		x3 := new(big.Float).SetPrec(expPrec).Mul(x2, f(x))
		v := new(big.Float).SetPrec(expPrec).Add(f(x), x3.Quo(x3, f(6)))
		if op == OpExpm1 {
			v.Add(v, x2.Quo(x2, f(2)))
		}
		w, _ := v.Float64()
		return w
	}
	e := expBig(x)
	var v *big.Float
	switch op {
	case OpExpm1:
		v = e.Sub(e, f(1))
	default:
		inv := new(big.Float).SetPrec(expPrec).Quo(f(1), e)
		if op == OpSinh {
			v = e.Sub(e, inv)
		} else {
			v = e.Add(e, inv)
		}
		v.Quo(v, f(2))
	}
	w, _ := v.Float64()
	return w
}

// hyp64Value draws an argument: most near the small-argument branches,
// some across the whole range and past its ends.
func hyp64Value(r *rand.Rand) float64 {
	switch r.IntN(5) {
	case 0:
		return r.NormFloat64() * 3
	case 1:
		return (r.Float64()*2 - 1) * 1.2
	case 2:
		return r.NormFloat64() * math.Pow(2, float64(-r.IntN(60)))
	case 3:
		return (r.Float64()*2 - 1) * 60
	}
	return (r.Float64()*2 - 1) * 730
}

var hyp64Specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 0.9999999999999999,
	-0.34657359027997264, 0.3465735902799727, 709, 709.0000000000001, 709.78, 710.47, 710.48, 711, -60, -60.5, -745.2,
	5e-324, -1e-300, 0x1p-30, -0x1p-27}

// TestHyp64Kernels: float64 Sinh, Cosh and Expm1 give the Go loop's
// bits (sinhF64one, coshF64one, expm1F64one) from the AVX-512 and the
// AVX2 kernels, in and out of place, over both branches and the ends.
func TestHyp64Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 72))
	for _, op := range []UnaryOp{OpSinh, OpCosh, OpExpm1} {
		kernels64Agree(t, r, op, hyp64Value, hyp64Specials, nil)
	}
}

// TestHyp64Accuracy: float64 Sinh, Cosh and Expm1 through Unary (the
// kernels where the CPU has AVX2) are within two ulps of 200-bit
// arithmetic, ±0 keep their sign, and most results are correctly rounded.
func TestHyp64Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 71))
	for _, op := range []UnaryOp{OpSinh, OpCosh, OpExpm1} {
		xs := append([]float64(nil), hyp64Specials...)
		for range accuracyDraws(4000) {
			xs = append(xs, hyp64Value(r))
		}
		within2(t, op.String(), xs, unaryF64(t, op, xs), func(x float64) float64 { return hyp64Exact(op, x) }, 0.85)
	}
}

// accuracyDraws is n, or a quarter of it under the race detector, which
// has nothing to watch in these loops and slows the 200-bit references
// several times.
func accuracyDraws(n int) int {
	if raceEnabled {
		return n / 4
	}
	return n
}

// within2 checks got against exact of each of xs: within two ulps, a
// zero's sign kept, and at least minFrac of them correctly rounded (the
// share and the worst are logged).
func within2(t *testing.T, name string, xs, got []float64, exact func(float64) float64, minFrac float64) {
	t.Helper()
	n, worst := 0, int64(0)
	for i, x := range xs {
		w := exact(x)
		u := ulpDiff(got[i], w, false)
		if u > 2 || w == 0 && !same(got[i], w) {
			t.Fatalf("%s(%v) = %v, want %v (%d ulps)", name, x, got[i], w, u)
		}
		if u == 0 {
			n++
		}
		worst = max(worst, u)
	}
	frac := float64(n) / float64(len(xs))
	t.Logf("%s: %d of %d (%.4f) correctly rounded, worst %d ulps", name, n, len(xs), frac, worst)
	if frac < minFrac {
		t.Errorf("%s: %.4f of the results correctly rounded; want at least %.2f", name, frac, minFrac)
	}
}

// log1pExact is log(1 + x) correctly rounded to float64: lnBig of 1 + x
// exactly (below 2^−30, x − x²/2 + x³/3).
func log1pExact(x float64) float64 {
	const prec = log1pPrec
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	switch {
	case x != x || x < -1:
		return math.NaN()
	case x == -1:
		return math.Inf(-1)
	case x == 0 || math.IsInf(x, 1):
		return x
	case math.Abs(x) < 0x1p-30:
		x2 := new(big.Float).SetPrec(prec).Mul(f(x), f(x))
		x3 := new(big.Float).SetPrec(prec).Mul(x2, f(x))
		v := new(big.Float).SetPrec(prec).Sub(f(x), x2.Quo(x2, f(2)))
		w, _ := v.Add(v, x3.Quo(x3, f(3))).Float64()
		return w
	}
	w, _ := lnBig(new(big.Float).SetPrec(log1pPrec).Add(f(1), f(x)), log1pPrec).Float64()
	return w
}

const log1pPrec = 400

// TestLog1pF64: float64 Log1p gives log1p64's bits from the AVX-512 and
// AVX2 kernels (which leave steps with x ≤ −1, +Inf or NaN to package
// math), is within two ulps of log1pExact, keeps ±0's sign, and is most
// often correctly rounded.
func TestLog1pF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 74))
	value := func(r *rand.Rand) float64 {
		switch r.IntN(4) {
		case 0:
			return math.Exp(r.NormFloat64()*5) - 1
		case 1:
			return r.NormFloat64() * math.Pow(2, float64(-r.IntN(60)))
		case 2:
			return -1 + r.Float64()*math.Pow(2, float64(-r.IntN(50)))
		}
		return math.Exp(r.NormFloat64() * 200)
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -1, -1.5, -0.9999999999999999,
		5e-324, -1e-300, 1e308, math.MaxFloat64, 0x1p-53, -0x1p-54}
	kernels64Agree(t, r, OpLog1p, value, specials, nil)
	xs := append([]float64(nil), specials...)
	for range accuracyDraws(3000) {
		xs = append(xs, value(r))
	}
	within2(t, "log1p", xs, unaryF64(t, OpLog1p, xs), log1pExact, 0.85)
}

// TestSoftplusF64: float64 Softplus through Unary (the Exp and Log1p
// kernels where the CPU has AVX2) gives softplus64's bits, in and out of
// place, without allocating, and is within two ulps of log(1 + e^x) in
// 200-bit arithmetic.
func TestSoftplusF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 75))
	xs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 37, -37, 709, 710, -745, -746, 800, -800, 5e-324}
	for range accuracyDraws(3000) {
		xs = append(xs, r.NormFloat64()*math.Pow(2, float64(r.IntN(16)-6)))
	}
	got := unaryF64(t, OpSoftplus, xs)
	if useAsm && !raceEnabled { // (the race detector's pools drop items)
		if n := testing.AllocsPerRun(20, func() { unVec64(OpSoftplus, got, xs) }); n != 0 {
			t.Errorf("softplusLanes64 allocates %v times a call; want 0", n)
		}
		got = unaryF64(t, OpSoftplus, xs)
	}
	in := slices.Clone(xs)
	if !unVec64(OpSoftplus, in, in) { // no kernels: the generic loop
		for i := range in {
			in[i] = softplus64(in[i])
		}
	}
	for i, x := range xs {
		if !same(got[i], softplus64(x)) || !same(in[i], got[i]) {
			t.Fatalf("softplus(%v) = %v (in place %v), softplus64 %v", x, got[i], in[i], softplus64(x))
		}
		var w float64
		switch {
		case x != x || math.IsInf(x, 0):
			w = max(x, 0)
		default:
			y := expBig(-math.Abs(x)) // log1p(y) = y − y²/2 … : y alone below 2^−100
			if y.MantExp(nil) > -100 {
				y = lnBig(new(big.Float).SetPrec(log1pPrec).Add(new(big.Float).SetPrec(log1pPrec).SetFloat64(1), y), log1pPrec)
			}
			w, _ = y.Add(y, new(big.Float).SetPrec(log1pPrec).SetFloat64(max(x, 0))).Float64()
		}
		if u := ulpDiff(got[i], w, false); u > 2 {
			t.Fatalf("softplus(%v) = %v, want %v (%d ulps)", x, got[i], w, u)
		}
	}
}
