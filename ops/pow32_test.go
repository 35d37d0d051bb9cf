package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestPow32Hard: Pow within 1 ulp of math.Pow's float32 where its errors
// are largest (bases near 1 with exponents taking |b·log2 a| to 150,
// each of log2's subintervals, results at float32's overflow, its
// smallest normals and subnormals) and correctly rounded nearly always.
func TestPow32Hard(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 11))
	anyBase := func() float32 { return math.Float32frombits(0x00800000 + r.Uint32N(0x7f000000)) }
	// b such that a^b is 2^t, t drawn from [lo, hi)
	toward := func(a float32, lo, hi float64) float32 {
		return float32((lo + (hi-lo)*r.Float64()) / math.Log2(float64(a)))
	}
	for _, c := range []struct {
		name  string
		draw  func() (a, b float32)
		exact float64 // the share correctly rounded at least
	}{
		{"near 1", func() (float32, float32) {
			a := math.Float32frombits(0x3f800000 + r.Uint32N(1<<17) - 1<<16)
			if a == 1 {
				return a, float32(r.NormFloat64() * 1e30)
			}
			return a, toward(a, -150, 128)
		}, 0.999},
		{"subintervals", func() (float32, float32) {
			a := math.Float32frombits(0x3f400000 + r.Uint32N(0x3fc00000-0x3f400000))
			return a, toward(a, -150, 128)
		}, 0.999},
		{"overflow", func() (float32, float32) { a := anyBase(); return a, toward(a, 127.5, 128.5) }, 0.999},
		{"smallest normals", func() (float32, float32) { a := anyBase(); return a, toward(a, -127, -125) }, 0.999},
		{"subnormals", func() (float32, float32) { a := anyBase(); return a, toward(a, -151, -127) }, 0.999},
	} {
		n := 1 << 16
		a, b, d := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = c.draw()
		}
		pow32(d, a, b)
		exact := 0
		for i := range d {
			want := float32(math.Pow(float64(a[i]), float64(b[i])))
			if u := ulps32(d[i], want); u > 1 {
				t.Fatalf("%s: Pow(%v, %v) = %v, want %v (%v ulps)", c.name, a[i], b[i], d[i], want, u)
			} else if u == 0 {
				exact++
			}
		}
		if share := float64(exact) / float64(n); share < c.exact {
			t.Errorf("%s: %.4f%% correctly rounded, want %.2f%% at least", c.name, 100*share, 100*c.exact)
		} else {
			t.Logf("%s: %.4f%% correctly rounded", c.name, 100*share)
		}
	}
}
