package ops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestTanhAccuracy: tanh32 (through unVec32, so the kernels this CPU
// picks) is within one ulp of math.Tanh rounded to float32 at every 61st
// float32 below 10 in magnitude (244th under the race detector), both
// signs, and exact at ±0, ±Inf and past 9.1; NaN stays NaN. (An
// exhaustive run over every float32 below 10 found 99.8% correctly
// rounded, the rest one ulp off.)
func TestTanhAccuracy(t *testing.T) {
	var xs []float32
	step := uint32(61)
	if raceEnabled { // nothing to watch here: every 244th
		step = 244
	}
	for u := uint32(0); u <= math.Float32bits(10); u += step {
		x := math.Float32frombits(u)
		xs = append(xs, x, -x)
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), 9.1, -9.1, 1e30, float32(math.Copysign(0, -1)))
	got := make([]float32, len(xs))
	unVec32(OpTanh, got, xs)
	worst, exact := 0.0, 0
	for i, x := range xs {
		want := float32(math.Tanh(float64(x)))
		u := ulps32(got[i], want)
		if u > 1 || math.Signbit(float64(got[i])) != math.Signbit(float64(want)) {
			t.Fatalf("tanh(%v) = %v, want %v (%v ulps)", x, got[i], want, u)
		}
		worst = max(worst, u)
		if u == 0 {
			exact++
		}
	}
	if frac := float64(exact) / float64(len(xs)); frac < 0.99 {
		t.Errorf("%.4f of tanh's results correctly rounded, want at least 0.99", frac)
	}
	nan := []float32{float32(math.NaN())}
	unVec32(OpTanh, nan, nan)
	if nan[0] == nan[0] {
		t.Errorf("tanh(NaN) = %v", nan[0])
	}
}

// TestTanhKernels: Tanh gives the same bits from the AVX-512 kernel, the
// AVX2 one and the Go loop (tanh32, whose fma32 rounds as the kernels'
// fused multiply-adds do), over values drawn across both formulas' ranges
// (uniform in [−10, 10) or log-uniform), their boundaries and the
// specials.
func TestTanhKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpTanh}, func(r *rand.Rand) float32 {
		if r.IntN(3) == 0 {
			return logUniform32(r)
		}
		return float32(r.Float64()*20 - 10)
	}, []float32{tanhSmall, -tanhSmall, math.Nextafter32(tanhSmall, 0), tanhBig, math.Nextafter32(tanhBig, 0), -tanhBig, 1e-40, 3e38},
		func(op UnaryOp, d, a []float32) { unVec32(op, d, a) })
}

// TestFMA32: fma32 is the exactly rounded a·b + c, checked against an
// exact rational computation on drawn operands whose sum cancels, ties
// and overflows float32's precision.
func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 11))
	for range 200000 {
		a, b := float32(r.NormFloat64()), float32(r.NormFloat64())
		c := -a * b // cancels
		switch r.IntN(3) {
		case 0:
			c = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(60)-30)))
		case 1:
			c = math.Nextafter32(c, float32(r.NormFloat64()))
		}
		got := fma32(a, b, c)
		// a·b exact in float64; a·b + c exact as a big sum
		want := roundSum32(float64(a)*float64(b), float64(c))
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
}

// roundSum32 is p + c rounded once to float32 (math/big: exact sum).
func roundSum32(p, c float64) float32 {
	s := new(big.Float).SetPrec(4096).SetFloat64(p)
	s.Add(s, new(big.Float).SetPrec(4096).SetFloat64(c))
	f, _ := s.Float32()
	return f
}
