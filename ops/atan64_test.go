package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestAtan64: float64 Atan, Asin and Acos give the Go loop's bits
// (atanF64one, asinF64one, acosF64one) from the AVX-512 and the AVX2
// kernels, in and out of place, across satan's three ranges, asin's two
// and the ends; and where the compiler does not fuse products into sums
// (GOAMD64 below v3, the default), package math's bits.
func TestAtan64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 73))
	unfused := fusedProbe(1+0x1p-30, 1-0x1p-30, -1) == 0
	value := func(r *rand.Rand) float64 {
		switch r.IntN(5) {
		case 0:
			return r.NormFloat64() * 3
		case 1:
			return (r.Float64()*2 - 1) * 1.05
		case 2:
			return r.NormFloat64() * math.Pow(2, float64(r.IntN(120)-60))
		case 3: // near satan's and asin's cut points
			c := []float64{0.66, tan3pio8, 0.7, 1}[r.IntN(4)]
			return math.Copysign(c+float64(r.IntN(9)-4)*c*0x1p-52, r.Float64()-0.5)
		}
		return (r.Float64()*2 - 1) * 1e300
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 0.66, tan3pio8, 0.7,
		5e-324, -1e-300, math.MaxFloat64, 1.0000000000000002}
	for _, c := range []struct {
		op  UnaryOp
		pkg func(float64) float64
	}{{OpAtan, math.Atan}, {OpAsin, math.Asin}, {OpAcos, math.Acos}} {
		kernels64Agree(t, r, c.op, value, specials, func(n int, x, got float64) {
			if unfused && !same(got, c.pkg(x)) {
				t.Fatalf("case %d: %v(%v) = %v, package math %v", n, c.op, x, got, c.pkg(x))
			}
		})
	}
}
