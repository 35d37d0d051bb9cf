package ops

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/draw"
)

// TestLogF64: float64 Log gives package math's bits (its amd64 archLog,
// which the kernels repeat) from the AVX-512 kernel, the AVX2 one and the
// Go loop, over drawn lengths and arguments (log-uniform over the normal
// range, near 1 and near √2/2, where the halving switches), with 0, −0,
// negatives, subnormals, +Inf and NaN among them (the kernels stop before
// those steps), in and out of place.
func TestLogF64(t *testing.T) {
	kernels64Agree(t, rand.New(rand.NewPCG(draw.Seed(t), 67)), OpLog, func(r *rand.Rand) float64 {
		switch r.IntN(3) {
		case 0:
			return math.Exp((r.Float64()*2 - 1) * 700)
		case 1:
			return 1 + r.NormFloat64()*math.Pow(2, float64(-r.IntN(50)))
		}
		return math.Sqrt2/2*math.Pow(2, float64(r.IntN(20)-10)) + r.NormFloat64()*1e-12
	}, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -1, 5e-324, 2.2250738585072014e-308,
		math.Nextafter(2.2250738585072014e-308, 0), math.MaxFloat64, 1, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 1), math.Sqrt2},
		func(c int, x, got float64) {
			if !same(got, math.Log(x)) {
				t.Fatalf("case %d Log(%v): Go loop %v, package math %v", c, x, got, math.Log(x))
			}
		})
	wholeSteps(t, "positive normal numbers", func() func(d, a unsafe.Pointer, n int) int {
		if useAVX512 {
			return logF64AVX512
		}
		return logF64
	}, [8]float64{1, 2, 0.5, 3, 1e-300, 1e300, math.Sqrt2 / 2, 7})
}
