package ops

import (
	"math"
	"testing"
)

// TestExpAccuracy: float32 Exp (exp32, the kernels where the CPU has
// them) within one ulp of the correctly rounded value at every 997th
// float32 of both signs (an exhaustive run of every 3rd found 99.6%
// exact), overflowing to +Inf and underflowing to 0 (through the
// subnormals) where e^x does, with the specials.
func TestExpAccuracy(t *testing.T) {
	var xs []float32
	for u := uint32(0); u < 0x7f800000; u += 997 {
		x := math.Float32frombits(u)
		xs = append(xs, x, -x)
	}
	inf := float32(math.Inf(1))
	xs = append(xs, inf, -inf, 88.72283, 88.72284, -87.33655, -103.27893, -103.97208, float32(math.Copysign(0, -1)))
	got := make([]float32, len(xs))
	unVec32(OpExp, got, xs)
	exact := 0
	for i, x := range xs {
		want := float32(math.Exp(float64(x)))
		u := ulps32(got[i], want)
		if u > 1 {
			t.Fatalf("exp(%v) = %v, want %v (%v ulps)", x, got[i], want, u)
		}
		if u == 0 {
			exact++
		}
	}
	if frac := float64(exact) / float64(len(xs)); frac < 0.99 {
		t.Errorf("%.4f of exp's results correctly rounded, want at least 0.99", frac)
	}
	nan := []float32{float32(math.NaN())}
	unVec32(OpExp, nan, nan)
	if nan[0] == nan[0] {
		t.Errorf("exp(NaN) = %v", nan[0])
	}
}
