package ops

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// expExact is e^x correctly rounded to float64 (expBig's, rounded).
func expExact(x float64) float64 {
	v, _ := expBig(x).Float64()
	return v
}

// expBig is e^x: 2^k·e^r with r = x − k·ln2 in 200-bit arithmetic (e^r
// from Taylor's series), far past float64's rounding.
func expBig(x float64) *big.Float {
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(expPrec).SetFloat64(v) }
	k := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(expPrec).Sub(f(x), new(big.Float).SetPrec(expPrec).Mul(f(k), ln2Big()))
	sum, term := f(1), f(1)
	for i := 1; i < 60; i++ {
		term.Mul(term, r)
		term.Quo(term, f(float64(i)))
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

const expPrec = 200

// TestExpF64Accuracy: float64 Exp (through Unary's host path, so the
// kernels this CPU picks) is within one ulp of the correctly rounded e^x
// over drawn arguments across the whole range (normal, near 0, near the
// overflow and into subnormal results) and correctly rounded for 98% at
// least (20000 uniform draws gave 98.6%; package math's Exp 87%); ±Inf,
// NaN, the clamps and the ends are exact.
func TestExpF64Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 64))
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 709.782712893384, 709.7827128933841, -708.3964185322641, -745.1332191019411,
		-745.1332191019412, -744.44, 710, -746, 800, -800, 1e-300, -1e-300, 0.34657359027997264, -0.34657359027997264}
	for range 4000 {
		var x float64
		switch r.IntN(4) {
		case 0:
			x = (r.Float64()*2 - 1) * 746
		case 1:
			x = r.NormFloat64() * 3
		case 2:
			x = r.NormFloat64() * math.Pow(2, float64(-r.IntN(60)))
		default:
			x = 700 + r.Float64()*10
			if r.IntN(2) == 0 {
				x = -708 - r.Float64()*38
			}
		}
		xs = append(xs, x)
	}
	got := unaryF64(t, OpExp, xs)
	exact := 0
	for i, x := range xs {
		g, w := got[i], expExact(x)
		u := ulpDiff(g, w, false)
		if u > 1 {
			t.Fatalf("exp(%v) = %v, want %v (%d ulps)", x, g, w, u)
		}
		if u == 0 {
			exact++
		}
	}
	if frac := float64(exact) / float64(len(xs)); frac < 0.98 {
		t.Errorf("%.4f of exp's results correctly rounded, want at least 0.98", frac)
	} else {
		t.Logf("%d of %d (%.4f) correctly rounded, the rest one ulp off", exact, len(xs), frac)
	}
	for _, c := range [][2]float64{{math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0}, {math.NaN(), math.NaN()}} {
		v := []float64{c[0]}
		unVec64(OpExp, v, v)
		if !same(v[0], c[1]) {
			t.Errorf("exp(%v) = %v, want %v", c[0], v[0], c[1])
		}
	}
}

// TestExpF64Kernels: the AVX-512 kernel, the AVX2 one and the Go loop
// give the same bits over drawn lengths and arguments (the clamps, the
// overflow and subnormal ends, NaN, ±Inf, ±0 among them), in and out of
// place.
func TestExpF64Kernels(t *testing.T) {
	kernels64Agree(t, rand.New(rand.NewPCG(draw.Seed(t), 65)), OpExp, func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return r.NormFloat64() * 4
		}
		return (r.Float64()*2 - 1) * 760
	}, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 709.782712893384, 709.79, -745.1332191019412,
		-745.2, -746, -747, 710, 711, 1e-310, 0.34657359027997264}, nil)
}

// BenchmarkMathF64: float64 Exp, Sin, Cos, Log, Abs, Sqrt, Floor, Round,
// Sigmoid and Tanh into a dst made once, in the kernels (-args -avx512=false
// and the purego tag pick the others), over x = 3·N(0, 1) (Log and Sqrt:
// e^x). NumPy: bench/results/host-math64.txt.
func BenchmarkMathF64(b *testing.B) {
	for _, op := range []UnaryOp{OpExp, OpSin, OpCos, OpLog, OpAbs, OpSqrt, OpFloor, OpRound, OpSigmoid, OpTanh, OpSinh, OpCosh, OpExpm1, OpRelu, OpSign, OpAtan, OpAsin, OpAcos, OpTan, OpLog1p, OpSoftplus} {
		for _, n := range []int{1 << 16, 1 << 20, 1 << 24} {
			xs := make([]float64, n)
			r := rand.New(rand.NewPCG(1, uint64(n)))
			for i := range xs {
				xs[i] = r.NormFloat64() * 3
				switch op {
				case OpLog, OpSqrt, OpLog1p:
					xs[i] = math.Exp(xs[i])
				case OpAsin, OpAcos:
					xs[i] = math.Tanh(xs[i])
				}
			}
			a, d := array.FromSlice(xs, n), array.New[float64](n)
			b.Run(fmt.Sprintf("%v/n=%d", op, n), func(b *testing.B) {
				b.SetBytes(int64(16 * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := Unary(d, a, op); err != nil {
						b.Fatal(err)
					}
				}
			})
			d.Close()
		}
	}
}

// unaryF64 is Unary(op) of xs through the host path, whose kernels must
// run where there are any.
func unaryF64(t *testing.T, op UnaryOp, xs []float64) []float64 {
	t.Helper()
	d := array.New[float64](len(xs))
	defer d.Close()
	runs := kernelRuns.Load()
	must(t, Unary(d, array.FromSlice(slices.Clone(xs), len(xs)), op))
	if useAsm && kernelRuns.Load() == runs {
		t.Errorf("float64 %v did not reach the kernels", op)
	}
	h, err := d.HostReadOnly()
	must(t, err)
	return slices.Clone(h.Data())
}
