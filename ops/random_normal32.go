package ops

import (
	"math"
	"unsafe"
)

// Box–Muller for float32, Float16 and BFloat16 normals in float32
// operations only: +, −, ×, fused multiply-add (fma32 in Go, fma in
// OpenCL C, VFMADD in the AVX2 kernel) and integer steps, which IEEE 754
// rounds the same way everywhere (random.cl holds the same steps, with
// FP_CONTRACT off), so the host and a device give the same bits with no
// float64 arithmetic — a GPU's float64 units made the fill compute-bound
// at under a third of its memory bandwidth. Products that feed a sum
// outside fma32 are converted explicitly, so that Go never fuses them.

var (
	// ln 2 split so that k·ln2Hi32 is exact for |k| ≤ 32.
	ln2Hi32 = math.Float32frombits(math.Float32bits(float32(math.Ln2)) &^ 0xfff)
	ln2Lo32 = float32(math.Ln2 - float64(ln2Hi32))
	// logC32: ln(1+f) ≈ f + f²·Σ logC32[k]·fᵏ for f in [√½−1, √2−1],
	// fitted by weighted least squares at Chebyshev nodes, reweighted
	// toward the least maximum relative error; TestRandMath32 bounds the
	// result in float32 at 1.5 ulps of math.Log.
	logC32 = [9]float32{-0x1.fffff8p-02, 0x1.555558p-02, -0x1.000422p-02, 0x1.999fdep-03,
		-0x1.5424eap-03, 0x1.22bd96p-03, -0x1.0f98dap-03, 0x1.0695d8p-03, -0x1.323df2p-04}
	// Taylor's coefficients rounded to float32: sin θ to θ⁹, cos θ to θ¹⁰,
	// within about an ulp for |θ| ≤ π/4.
	sinC32, cosC32 = func() (s [4]float32, c [5]float32) {
		for k := range c {
			if k < len(s) {
				s[k] = float32(sinC[k])
			}
			c[k] = float32(cosC[k])
		}
		return
	}()
	// angle32 is a quarter turn over 2³⁰.
	angle32 = float32(math.Pi / 2 * 0x1p-30)
)

const (
	// sqrt2Mant is √2's float32 mantissa field: a mantissa at or above
	// it puts the value in the next octave's reduction.
	sqrt2Mant = 0x3504f3
	// rsqrtMagic less half a float32's bits is a first guess at 1/√x
	// within 3.5%.
	rsqrtMagic = 0x5f3759df
)

// boxMuller32 is the pair of normals of the words u (u1 = (u+1)·2⁻³²)
// and a (the turn a/2³²): r·cos and r·sin, r = √(−2·ln u1).
func boxMuller32(u, a uint32) (float32, float32) {
	r := randSqrt32(-2 * randLog32(u))
	s, c := randSinCos32(a)
	return r * c, r * s
}

// randLog32 is ln((u+1)·2⁻³²). v = u+1 is taken to its octave 2ᵏ (k
// from v's float32 exponent, one more where the mantissa passes √2) in
// integers, so f = v/2ᵏ − 1 is v − 2ᵏ rounded once: exact near u1 = 1,
// where the result is small.
func randLog32(u uint32) float32 {
	v := uint64(u) + 1
	b := math.Float32bits(float32(v))
	k := int(b>>23) - 127
	if b&(1<<23-1) >= sqrt2Mant {
		k++
	}
	f := float32(float32(int64(v)-int64(1)<<k) * math.Float32frombits(uint32(127-k)<<23))
	p := logC32[len(logC32)-1]
	for i := len(logC32) - 2; i >= 0; i-- {
		p = fma32(p, f, logC32[i])
	}
	l := fma32(float32(f*f), p, f)
	fk := float32(k - 32)
	return fma32(fk, ln2Hi32, fma32(fk, ln2Lo32, l))
}

// randSqrt32 is √x for x in [0, 45]: three Newton steps on 1/√x from a
// bit-level first guess, then x·(1/√x); within 3 ulps, and 0 at 0 (the
// guess for 0 is large but finite, and stays so).
func randSqrt32(x float32) float32 {
	y := math.Float32frombits(rsqrtMagic - math.Float32bits(x)>>1)
	h := 0.5 * x
	for range 3 {
		y = fma32(y, fma32(-float32(h*y), y, 0.5), y)
	}
	return x * y
}

// randSinCos32 is sin and cos of the turn a/2³²: the quarter turn from
// a's top bits, the rest (θ in [−π/4, π/4)) through the polynomials.
func randSinCos32(a uint32) (sin, cos float32) {
	t := a + 1<<29
	q := t >> 30
	th := float32(float32(int32(t&(1<<30-1))-1<<29) * angle32)
	z := th * th
	ps := sinC32[len(sinC32)-1]
	for k := len(sinC32) - 2; k >= 0; k-- {
		ps = fma32(ps, z, sinC32[k])
	}
	pc := cosC32[len(cosC32)-1]
	for k := len(cosC32) - 2; k >= 0; k-- {
		pc = fma32(pc, z, cosC32[k])
	}
	return quarterTurn(uint64(q), fma32(th, float32(z*ps), th), fma32(z, pc, 1))
}

// normals32 writes the normals of the word pairs w[2i], w[2i+1] to
// d[2i], d[2i+1].
func normals32(d []float32, w []uint32) {
	n, i := min(len(d), len(w))/2, 0
	if useAsm && n >= 8 {
		boxMuller32AVX2(unsafe.Pointer(&d[0]), unsafe.Pointer(&w[0]), n, &bm32Consts)
		i = n &^ 7 * 2
	}
	for ; i < 2*n; i += 2 {
		d[i], d[i+1] = boxMuller32(w[i], w[i+1])
	}
}

// bm32Table holds the constants of boxMuller32AVX2, each repeated over a
// 32-byte vector, at the indexes its assembly names.
type bm32Table [35][8]uint32

// bm32Consts is the table from the very variables boxMuller32 uses, so
// the assembly holds their bits.
var bm32Consts = func() (t bm32Table) {
	f := math.Float32bits
	set := func(i int, v uint32) {
		for l := range t[i] {
			t[i][l] = v
		}
	}
	set(0, 0xffff)
	set(1, 1)
	set(2, f(0x1p16))
	set(3, 1<<23-1)
	set(4, sqrt2Mant-1)
	set(5, 127)
	set(6, 32)
	for k, c := range logC32 {
		set(7+k, f(c))
	}
	set(16, f(ln2Hi32))
	set(17, f(ln2Lo32))
	set(18, f(-2))
	set(19, rsqrtMagic)
	set(20, f(0.5))
	set(21, 1<<29)
	set(22, 1<<30-1)
	set(23, f(angle32))
	for k, c := range sinC32 {
		set(24+k, f(c))
	}
	for k, c := range cosC32 {
		set(28+k, f(c))
	}
	set(33, f(1))
	set(34, 1<<31)
	return
}()
