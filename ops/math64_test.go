package ops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/draw"
)

// TestExactF64: float64 Abs, Neg, Sqrt, Relu, Sign, Floor, Ceil, Round and Trunc
// through unVec64 (the kernels where the CPU has AVX2) give package
// math's bits (negation's for Neg, RoundToEven's for Round), NaN
// payloads, ±0, ±Inf, halves and integers past 2^52 included, over drawn
// lengths (the sixteen-wide loop and the one-at-a-time tail), in and out
// of place, and a kernel runs.
func TestExactF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 68))
	specials := []float64{math.NaN(), math.Float64frombits(0xfff8000000000123), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		5e-324, -math.MaxFloat64, 0.5, -0.5, 1.5, -2.5, 0x1p52 + 1, -0x1p53, 0.49999999999999994, -1e-300}
	want := map[UnaryOp]func(float64) float64{OpAbs: math.Abs, OpNeg: func(x float64) float64 { return -x }, OpSqrt: math.Sqrt,
		OpFloor: math.Floor, OpCeil: math.Ceil, OpRound: math.RoundToEven, OpTrunc: math.Trunc, OpRelu: relu64, OpSign: sign64}
	for c := range 300 {
		x := make([]float64, r.IntN(70))
		scale := math.Pow(10, float64(r.IntN(20)-4))
		for i := range x {
			x[i] = r.NormFloat64() * scale
			if r.IntN(2) == 0 {
				x[i] = math.Round(x[i]*2) / 2 // halves
			}
			if r.IntN(6) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		for _, op := range []UnaryOp{OpAbs, OpNeg, OpSqrt, OpRelu, OpSign, OpFloor, OpCeil, OpRound, OpTrunc} {
			runs := kernelRuns.Load()
			got := make([]float64, len(x))
			unVec(op, got, x)
			if useAsm && len(x) > 0 && kernelRuns.Load() == runs {
				t.Fatalf("case %d %v: the kernel did not run", c, op)
			}
			in := slices.Clone(x)
			unVec(op, in, in)
			for i, v := range x {
				w := math.Float64bits(want[op](v))
				if math.Float64bits(got[i]) != w || math.Float64bits(in[i]) != w {
					t.Fatalf("case %d %v(%x) = %x (in place %x), want %x", c, op, math.Float64bits(v), math.Float64bits(got[i]), math.Float64bits(in[i]), w)
				}
			}
		}
	}
}

// kernels64Agree draws 300 inputs of up to 90 float64s from value (with
// specials at about one place in twelve), runs op through unVec64 with
// the kernels off and hands each result to check (the reference, if
// any), then with the AVX-512 kernels and with the AVX2 ones alone: the
// same bits each way, in and out of place, and a kernel ran wherever a
// whole step of eight was there.
func kernels64Agree(t *testing.T, r *rand.Rand, op UnaryOp, value func(*rand.Rand) float64, specials []float64, check func(c int, x, got float64)) {
	t.Helper()
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	for c := range 300 {
		x := make([]float64, r.IntN(90))
		for i := range x {
			x[i] = value(r)
			if r.IntN(12) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		useAsm, useAVX512 = false, false
		want := make([]float64, len(x))
		unVec64(op, want, x)
		for i := range x {
			if check != nil {
				check(c, x[i], want[i])
			}
		}
		eachKernel(func(name string) {
			got := make([]float64, len(x))
			runs := kernelRuns.Load()
			unVec64(op, got, x)
			if len(x) >= 8 && kernelRuns.Load() == runs {
				t.Fatalf("case %d %s %v: no kernel ran", c, name, op)
			}
			in := slices.Clone(x)
			unVec64(op, in, in)
			for i := range want {
				if !same(got[i], want[i]) || !same(in[i], want[i]) {
					t.Fatalf("case %d %s %v(%v) at %d: %v (in place %v), Go loop %v", c, name, op, x[i], i, got[i], in[i], want[i])
				}
			}
		})
	}
}

// wholeSteps checks that each kernel (k picks the AVX-512 or the AVX2 one)
// does all of eight arguments it should take, where a kernel that
// stopped at every step would leave the work to Go unseen.
func wholeSteps(t *testing.T, what string, k func() func(d, a unsafe.Pointer, n int) int, xs [8]float64) {
	t.Helper()
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	eachKernel(func(name string) {
		out := make([]float64, 8)
		if n := k()(unsafe.Pointer(&out[0]), unsafe.Pointer(&xs[0]), 8); n != 8 {
			t.Fatalf("%s %s: the kernel did %d of 8 %s", name, what, n, what)
		}
	})
}

// TestMath64Layouts: the float64 kernels' ops (exact ones, Exp, Sin,
// Cos, Tan, Log, Log1p, Sigmoid, Tanh, Sinh, Cosh, Expm1, Atan, Asin,
// Acos, Softplus) through Unary, and fused through Eval, over the differential tests' drawn
// extents and layouts (crops, steps, storage orders, reshapes, views of
// views, broadcast inputs) and wide values (NaN, ±Inf, ±1e6), give each
// element the bits of the one-element function the kernels match, and
// the kernels ran in most cases of 64 elements or more, both ways.
func TestMath64Layouts(t *testing.T) {
	seed := draw.Seed(t)
	one := map[UnaryOp]func(float64) float64{OpAbs: math.Abs, OpNeg: func(x float64) float64 { return -x },
		OpExp: expF64one, OpSin: sin64, OpCos: cos64, OpLog: math.Log, OpSqrt: math.Sqrt, OpFloor: math.Floor,
		OpCeil: math.Ceil, OpRound: math.RoundToEven, OpTrunc: math.Trunc, OpSigmoid: sigmoidF64one, OpTanh: tanhF64one,
		OpSinh: sinhF64one, OpCosh: coshF64one, OpExpm1: expm1F64one, OpRelu: relu64, OpSign: sign64,
		OpAtan: atanF64one, OpAsin: asinF64one, OpAcos: acosF64one, OpTan: tan64, OpLog1p: log1p64,
		OpSoftplus: softplus64}
	ops := []UnaryOp{OpAbs, OpNeg, OpExp, OpSin, OpCos, OpLog, OpSqrt, OpFloor, OpCeil, OpRound, OpTrunc, OpSigmoid, OpTanh,
		OpSinh, OpCosh, OpExpm1, OpRelu, OpSign, OpAtan, OpAsin, OpAcos, OpTan, OpLog1p, OpSoftplus}
	var big, ran [2]int // cases of 64 elements or more, and those that reached a kernel: Unary, Eval
	for i := range 200 {
		g := &dgen{tb: t, r: rand.New(rand.NewPCG(seed, 3<<32+uint64(i)))}
		op := ops[g.n(len(ops))]
		ext := drawExt(g, 4)
		in := newInput[float64](g, ext, valWide)
		dst := newOperand[float64](g, ext, valSmall)
		fused := g.p(0.5)
		runs := kernelRuns.Load()
		if fused {
			g.must(Eval(dst.a, In(in.a).Unary(op)))
		} else {
			g.must(Unary(dst.a, in.a, op))
		}
		n := 1
		for _, e := range ext {
			n *= e
		}
		if n >= 64 { // a block may still be a short run (an inner extent below 8)
			big[b2i(fused)]++
			if kernelRuns.Load() != runs {
				ran[b2i(fused)]++
			}
		}
		compareTo(g, dst.a, func(pos []int) float64 { return one[op](in.at(pos)) }, func([]int) float64 { return 0 })
		if t.Failed() {
			t.Fatalf("case %d: %v, fused %v, extents %v: %v", i, op, fused, ext, g.log)
		}
	}
	for w, name := range []string{"Unary", "Eval"} {
		if useAsm && 2*ran[w] < big[w] {
			t.Errorf("%s: kernels ran in %d of %d cases of 64 elements or more", name, ran[w], big[w])
		}
		t.Logf("%s: kernels ran in %d of %d cases of 64 elements or more", name, ran[w], big[w])
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSigmoidF64: float64 Sigmoid gives sigmoidF64one's bits from the
// AVX-512 kernel, the AVX2 one and the Go loop, in and out of place; and
// through Unary (the kernels this CPU picks) it is within two ulps of
// 1/(1 + e^−x) in 200-bit arithmetic over drawn arguments (near 0,
// ordinary, and out to where it is 0 or rounds to 1), correctly rounded
// for 70% at least, and NaN, ±Inf and the ends are exact.
func TestSigmoidF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 65))
	kernels64Agree(t, r, OpSigmoid, func(r *rand.Rand) float64 { return r.NormFloat64() * 20 },
		[]float64{math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -720, 720, -746, 5e-324}, nil)
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 36.7, 37.5, -700, -744.4, -745.2, 746, 1e-300}
	for range 3000 {
		switch r.IntN(3) {
		case 0:
			xs = append(xs, r.NormFloat64()*4)
		case 1:
			xs = append(xs, (r.Float64()*2-1)*760)
		default:
			xs = append(xs, r.NormFloat64()*math.Pow(2, float64(-r.IntN(60))))
		}
	}
	got := unaryF64(t, OpSigmoid, xs)
	exact, worst, oldExact := 0, int64(0), 0
	for i, x := range xs {
		one := new(big.Float).SetPrec(expPrec).SetFloat64(1)
		w, _ := new(big.Float).SetPrec(expPrec).Quo(one, new(big.Float).SetPrec(expPrec).Add(one, expBig(-x))).Float64()
		g := got[i]
		u := ulpDiff(g, w, false)
		if u > 2 {
			t.Fatalf("sigmoid(%v) = %v, want %v (%d ulps)", x, g, w, u)
		}
		if u == 0 {
			exact++
		}
		worst = max(worst, u)
		if sigmoid64(x) == w {
			oldExact++
		}
	}
	if frac := float64(exact) / float64(len(xs)); frac < 0.7 {
		t.Errorf("%.4f of sigmoid's results correctly rounded, want at least 0.7", frac)
	} else {
		t.Logf("%d of %d (%.4f) correctly rounded (1/(1 + math.Exp(−x)): %d), worst %d ulps", exact, len(xs), frac, oldExact, worst)
	}
	v := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	unVec64(OpSigmoid, v, v)
	if v[0] == v[0] || v[1] != 1 || v[2] != 0 {
		t.Errorf("sigmoid(NaN, +Inf, -Inf) = %v, want NaN, 1, 0", v)
	}
}

// TestTanhF64: float64 Tanh gives tanhF64one's bits from the AVX-512
// kernel, the AVX2 one and the Go loop over drawn lengths and arguments
// (both sides of 0.625, tiny, past 44, NaN, ±Inf, ±0), in and out of
// place; package math's bits below 0.625 where the compiler does not
// fuse; within two ulps of 200-bit arithmetic (one in the draws so far),
// 95% correctly rounded at least (97.1% drawn), through Unary (where a
// kernel must run).
func TestTanhF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 69))
	unfused := fusedProbe(1+0x1p-30, 1-0x1p-30, -1) == 0
	value := func(r *rand.Rand) float64 {
		switch r.IntN(4) {
		case 0:
			return r.NormFloat64() * 3
		case 1:
			return (r.Float64()*2 - 1) * 0.7
		case 2:
			return r.NormFloat64() * math.Pow(2, float64(-r.IntN(40)))
		}
		return (r.Float64()*2 - 1) * 60
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 0.625, -0.625, 0.6249999999999999,
		44, -44.5, 400, 5e-324, -1e-300}
	kernels64Agree(t, r, OpTanh, value, specials, func(c int, x, got float64) {
		if unfused && (math.Abs(x) < 0.625 || math.IsNaN(x)) && !same(got, math.Tanh(x)) {
			t.Fatalf("case %d: tanh(%v) = %v, package math %v", c, x, got, math.Tanh(x))
		}
	})
	xs := specials[3:]
	for range 3000 {
		xs = append(xs, value(r))
	}
	within2(t, "tanh", xs, unaryF64(t, OpTanh, xs), tanhExact, 0.95)
}

// tanhExact is tanh x correctly rounded: (E − 1)/(E + 1), E = e^(2x) in
// 200-bit arithmetic; below 2^−20 its series x − x³/3 + 2x⁵/15 (E − 1
// would lose x's bits there).
func tanhExact(x float64) float64 {
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(expPrec).SetFloat64(v) }
	if x == 0 || math.Abs(x) > 40 {
		return math.Tanh(x) // ±0, ±1
	}
	var v *big.Float
	if math.Abs(x) < 0x1p-20 {
		x3 := new(big.Float).SetPrec(expPrec).Mul(f(x), f(x))
		x3.Mul(x3, f(x))
		x5 := new(big.Float).SetPrec(expPrec).Mul(x3, f(x))
		x5.Mul(x5, f(x))
		v = new(big.Float).SetPrec(expPrec).Sub(f(x), x3.Quo(x3, f(3)))
		v.Add(v, x5.Quo(x5.Mul(x5, f(2)), f(15)))
	} else {
		e := expBig(2 * x)
		num := new(big.Float).SetPrec(expPrec).Sub(e, f(1))
		v = num.Quo(num, new(big.Float).SetPrec(expPrec).Add(e, f(1)))
	}
	w, _ := v.Float64()
	return w
}
