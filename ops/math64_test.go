package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestAbsNegF64: float64 Abs and Neg through unVec64 (the sign-bit kernel
// where the CPU has AVX2) give math.Abs's and negation's bits, NaN
// payloads, ±0 and ±Inf included, over drawn lengths (the sixteen-wide
// loop and the one-at-a-time tail), in and out of place, and the kernel
// runs.
func TestAbsNegF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 68))
	specials := []float64{math.NaN(), math.Float64frombits(0xfff8000000000123), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 5e-324, -math.MaxFloat64}
	for c := range 200 {
		x := make([]float64, r.IntN(70))
		for i := range x {
			x[i] = r.NormFloat64() * 1e3
			if r.IntN(6) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		for _, op := range []UnaryOp{OpAbs, OpNeg} {
			want := make([]uint64, len(x))
			for i, v := range x {
				if op == OpAbs {
					want[i] = math.Float64bits(math.Abs(v))
				} else {
					want[i] = math.Float64bits(v) ^ 1<<63
				}
			}
			runs := kernelRuns.Load()
			got := make([]float64, len(x))
			unVec(op, got, x)
			if useAsm && len(x) > 0 && kernelRuns.Load() == runs {
				t.Fatalf("case %d %v: the kernel did not run", c, op)
			}
			in := slices.Clone(x)
			unVec(op, in, in)
			for i := range x {
				if math.Float64bits(got[i]) != want[i] || math.Float64bits(in[i]) != want[i] {
					t.Fatalf("case %d %v(%x) = %x (in place %x), want %x", c, op, math.Float64bits(x[i]), math.Float64bits(got[i]), math.Float64bits(in[i]), want[i])
				}
			}
		}
	}
}
