package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestAbsKernels: float32 NormMax from absMaxF32 is the Go loop's bit for
// bit, and NormL1 from absSumF32 within its rounding of the Go loop's
// (the lanes add in another order), at drawn lengths around the kernels'
// 16 and 32 and with ±0, subnormals, ±Inf and NaN at drawn places: NaN
// wins the max and the sum, Inf the sum of finite values.
func TestAbsKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 12))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	specials := []float32{0, float32(math.Copysign(0, -1)), 1e-45, -3e-39, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for c := range 300 {
		x := make([]float32, r.IntN(200))
		for i := range x {
			x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(9)-4)))
		}
		for range r.IntN(3) {
			if len(x) > 0 {
				x[r.IntN(len(x))] = specials[r.IntN(len(specials))]
			}
		}
		useAsm, useAVX512 = false, false
		l1, mx := statF32(stL1, x), statF32(stMax, x)
		eachKernel(func(name string) {
			g1, gm := statF32(stL1, x), statF32(stMax, x)
			if math.Float64bits(gm.a) != math.Float64bits(mx.a) {
				t.Fatalf("case %d n=%d %s: NormMax %v, Go loop %v", c, len(x), name, gm.a, mx.a)
			}
			same := g1.a == l1.a || g1.a != g1.a && l1.a != l1.a
			if !same && !(math.Abs(g1.a-l1.a) <= 1e-12*l1.a) {
				t.Fatalf("case %d n=%d %s: NormL1 %v, Go loop %v", c, len(x), name, g1.a, l1.a)
			}
		})
	}
}
