package ops

import (
	"math"
	"math/rand/v2"
	"slices"
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
	r := rand.New(rand.NewPCG(draw.Seed(t), 67))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -1, 5e-324, 2.2250738585072014e-308,
		math.Nextafter(2.2250738585072014e-308, 0), math.MaxFloat64, 1, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 1), math.Sqrt2}
	for c := range 400 {
		x := make([]float64, r.IntN(90))
		for i := range x {
			switch r.IntN(3) {
			case 0:
				x[i] = math.Exp((r.Float64()*2 - 1) * 700)
			case 1:
				x[i] = 1 + r.NormFloat64()*math.Pow(2, float64(-r.IntN(50)))
			default:
				x[i] = math.Sqrt2/2*math.Pow(2, float64(r.IntN(20)-10)) + r.NormFloat64()*1e-12
			}
			if r.IntN(40) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		useAsm, useAVX512 = false, false
		want := make([]float64, len(x))
		unVec64(OpLog, want, x)
		for i, v := range x {
			if !same(want[i], math.Log(v)) {
				t.Fatalf("case %d Log(%v): Go loop %v, package math %v", c, v, want[i], math.Log(v))
			}
		}
		eachKernel(func(name string) {
			k := logF64
			if useAVX512 {
				k = logF64AVX512
			}
			clean, out := []float64{1, 2, 0.5, 3, 1e-300, 1e300, math.Sqrt2 / 2, 7}, make([]float64, 8)
			if n := k(unsafe.Pointer(&out[0]), unsafe.Pointer(&clean[0]), 8); n != 8 {
				t.Fatalf("%s: the kernel did %d of 8 positive normal numbers", name, n)
			}
			got := make([]float64, len(x))
			runs := kernelRuns.Load()
			unVec64(OpLog, got, x)
			if len(x) >= 8 && kernelRuns.Load() == runs {
				t.Fatalf("case %d %s: no kernel ran", c, name)
			}
			in := slices.Clone(x)
			unVec64(OpLog, in, in)
			for i := range want {
				if !same(got[i], want[i]) || !same(in[i], want[i]) {
					t.Fatalf("case %d %s Log(%v) at %d: %v (in place %v), package math %v", c, name, x[i], i, got[i], in[i], want[i])
				}
			}
		})
	}
}
