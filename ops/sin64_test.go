package ops

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/draw"
)

// fusedProbe is a·b + c as the compiler builds it: fused into one
// rounding where GOAMD64 allows (v3), two otherwise.
//
//go:noinline
func fusedProbe(a, b, c float64) float64 { return a*b + c }

// TestSinCosF64: float64 Sin, Cos and Tan give sin64's, cos64's and
// tan64's bits from the AVX-512 kernel, the AVX2 one and the Go loop, over drawn lengths and
// arguments (uniform, normal, near multiples of π/4, near and past 2^29,
// huge, with NaN, ±Inf and ±0 among them: the kernels stop before those
// steps), in and out of place; and, where the compiler does not fuse
// products into sums (GOAMD64 below v3, the default), package math's
// bits.
func TestSinCosF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 66))
	unfused := fusedProbe(1+0x1p-30, 1-0x1p-30, -1) == 0
	if !unfused {
		t.Log("this build fuses multiply-adds: package math's Sin and Cos differ from the kernels in the last bit at times; not compared")
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1 << 29, math.Nextafter(1<<29, 0), -(1 << 29), 1e300,
		math.Pi / 4, math.Pi / 2, math.Pi, 3 * math.Pi / 4, 1e-300, 5e-324}
	value := func(r *rand.Rand) float64 {
		switch r.IntN(4) {
		case 0:
			return (r.Float64()*2 - 1) * 100
		case 1:
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(9)))
		case 2:
			return float64(r.IntN(2001)-1000)*math.Pi/4 + r.NormFloat64()*1e-9
		}
		return r.NormFloat64()
	}
	for _, c := range []struct {
		op       UnaryOp
		one, ref func(float64) float64
	}{{OpSin, sin64, math.Sin}, {OpCos, cos64, math.Cos}, {OpTan, tan64, math.Tan}} {
		kernels64Agree(t, r, c.op, value, specials, func(n int, x, got float64) {
			if !same(got, c.one(x)) || unfused && !same(got, c.ref(x)) {
				t.Fatalf("case %d %v(%v): Go loop %v, one element %v, package math %v", n, c.op, x, got, c.one(x), c.ref(x))
			}
		})
	}
	wholeSteps(t, "arguments below 2^29", func() func(d, a unsafe.Pointer, n int) int {
		k := sinCosF64
		if useAVX512 {
			k = sinCosF64AVX512
		}
		return func(d, a unsafe.Pointer, n int) int { return k(d, a, n, 0, 1<<63) }
	}, [8]float64{1, -2, 0.5, 3, 1e-300, 5e8, -math.Pi / 4, 7})
	wholeSteps(t, "Tan's arguments below 2^29", func() func(d, a unsafe.Pointer, n int) int {
		if useAVX512 {
			return tanF64AVX512
		}
		return tanF64
	}, [8]float64{1, -2, 0.5, 3, 1e-300, 5e8, -math.Pi / 4, 7})
}
