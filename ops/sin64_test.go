package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/draw"
)

// fusedProbe is a·b + c as the compiler builds it: fused into one
// rounding where GOAMD64 allows (v3), two otherwise.
//
//go:noinline
func fusedProbe(a, b, c float64) float64 { return a*b + c }

// TestSinCosF64: float64 Sin and Cos give sinCos64's bits from the
// AVX-512 kernel, the AVX2 one and the Go loop, over drawn lengths and
// arguments (uniform, normal, near multiples of π/4, near and past 2^29,
// huge, with NaN, ±Inf and ±0 among them: the kernels stop before those
// steps), in and out of place; and, where the compiler does not fuse
// products into sums (GOAMD64 below v3, the default), package math's
// bits.
func TestSinCosF64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 66))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	unfused := fusedProbe(1+0x1p-30, 1-0x1p-30, -1) == 0
	if !unfused {
		t.Log("this build fuses multiply-adds: package math's Sin and Cos differ from the kernels in the last bit at times; not compared")
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1 << 29, math.Nextafter(1<<29, 0), -(1 << 29), 1e300,
		math.Pi / 4, math.Pi / 2, math.Pi, 3 * math.Pi / 4, 1e-300, 5e-324}
	for c := range 400 {
		x := make([]float64, r.IntN(90))
		for i := range x {
			switch r.IntN(4) {
			case 0:
				x[i] = (r.Float64()*2 - 1) * 100
			case 1:
				x[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(9)))
			case 2:
				x[i] = float64(r.IntN(2001)-1000)*math.Pi/4 + r.NormFloat64()*1e-9
			default:
				x[i] = r.NormFloat64()
			}
			if r.IntN(40) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		for _, op := range []UnaryOp{OpSin, OpCos} {
			cos := op == OpCos
			ref := math.Sin
			if cos {
				ref = math.Cos
			}
			useAsm, useAVX512 = false, false
			want := make([]float64, len(x))
			unVec64(op, want, x)
			for i, v := range x {
				if !same(want[i], sinCos64(v, cos)) || unfused && !same(want[i], ref(v)) {
					t.Fatalf("case %d %v(%v): Go loop %v, sinCos64 %v, package math %v", c, op, v, want[i], sinCos64(v, cos), ref(v))
				}
			}
			eachKernel(func(name string) {
				k := sinCosF64
				if useAVX512 {
					k = sinCosF64AVX512
				}
				clean, out := []float64{1, -2, 0.5, 3, 1e-300, 5e8, -math.Pi / 4, 7}, make([]float64, 8)
				if n := k(unsafe.Pointer(&out[0]), unsafe.Pointer(&clean[0]), 8, 0, 1<<63); n != 8 {
					t.Fatalf("%s: the kernel did %d of 8 arguments below 2^29", name, n)
				}
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
}
