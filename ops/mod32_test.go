package ops

import (
	"math"
	"math/rand/v2"
	"testing"
)

// modModel32 is float32 Mod by its definition: math.Mod (exact), then
// NumPy's sign rule in float32.
func modModel32(x, y float32) float32 {
	m := float32(math.Mod(float64(x), float64(y)))
	switch {
	case y == 0:
	case m != 0:
		if (y < 0) != (m < 0) {
			m += y
		}
	default:
		m = float32(math.Copysign(0, float64(y)))
	}
	return m
}

// TestMod32Model checks float32 Mod's fast path against the model bit for
// bit: log-uniform magnitudes, quotients next to integers and to the fast
// path's 2^29 bound, and the special values.
func TestMod32Model(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 20000
	a, b, d := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = logUniform32(r), logUniform32(r)
		switch r.IntN(4) {
		case 0: // x next to k·y
			k := float32(r.IntN(1<<uint(r.IntN(31))) - 1<<uint(r.IntN(3)))
			a[i] = k * b[i]
			for range r.IntN(3) {
				a[i] = math.Nextafter32(a[i], float32(math.Inf(r.IntN(2)*2-1)))
			}
		case 1:
			b[i] = float32(r.IntN(21)-10) / 4
		}
	}
	mod32(d, a, b)
	for i := range d {
		if w := modModel32(a[i], b[i]); math.Float32bits(d[i]) != math.Float32bits(w) && !(d[i] != d[i] && w != w) {
			t.Fatalf("Mod(%v, %v) = %v, want %v", a[i], b[i], d[i], w)
		}
	}
}
