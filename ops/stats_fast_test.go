package ops

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// TestAbsKernels: float32 NormMax from absMaxF32 and CountNonzero from
// countNZF32 are the Go loop's, and NormL1 and NormL2 from absSumF32 and
// sumSqF32 within their rounding of the Go loop's (the lanes add in
// another order, and L2's squares are fused), at drawn lengths around the
// kernels' 16 and 32 and with ±0, subnormals, ±Inf and NaN at drawn
// places: NaN wins the max and the sums, Inf the sums of finite values,
// NaN counts as nonzero and −0 does not.
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
		l1, l2, mx, nz := statF32(stL1, x), statF32(stL2, x), statF32(stMax, x), statF32(stCount, x)
		eachKernel(func(name string) {
			g1, g2, gm, gz := statF32(stL1, x), statF32(stL2, x), statF32(stMax, x), statF32(stCount, x)
			if math.Float64bits(gm.a) != math.Float64bits(mx.a) {
				t.Fatalf("case %d n=%d %s: NormMax %v, Go loop %v", c, len(x), name, gm.a, mx.a)
			}
			if gz.a != nz.a {
				t.Fatalf("case %d n=%d %s: CountNonzero %v, Go loop %v", c, len(x), name, gz.a, nz.a)
			}
			for _, q := range [][3]any{{"NormL1", g1.a, l1.a}, {"NormL2", g2.a, l2.a}} {
				got, want := q[1].(float64), q[2].(float64)
				same := got == want || got != got && want != want
				if !same && !(math.Abs(got-want) <= 1e-12*want) {
					t.Fatalf("case %d n=%d %s: %s %v, Go loop %v", c, len(x), name, q[0], got, want)
				}
			}
		})
	}
}

// TestSoftmaxKernels: the maximum from maxF32v and the exponentials from
// expSumF32 (both forms) are the Go loop's bit for bit, their float64 sum
// and LogSumExp's within rounding of its, and Softmax from scaleF32
// within one rounding, at drawn lengths around the kernels' 8, 16 and 32
// with ±0, ±Inf and NaN at drawn places.
func TestSoftmaxKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 13))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	near := func(a, b, tol float64) bool {
		return a == b || a != a && b != b || math.Abs(a-b) <= tol*math.Abs(b)
	}
	for c := range 400 {
		x := make([]float32, r.IntN(150))
		scale := math.Pow(10, float64(r.IntN(4)-1))
		for i := range x {
			x[i] = float32(r.NormFloat64() * scale)
		}
		if r.IntN(4) == 0 {
			for range 1 + r.IntN(2) {
				if len(x) > 0 {
					x[r.IntN(len(x))] = specials[r.IntN(len(specials))]
				}
			}
		}
		useAsm, useAVX512 = false, false
		m := maxF32(x)
		e := make([]float32, len(x))
		s := expShiftF32(e, x, float32(m))
		lse := statF32(stLSE, x)
		sm := make([]float32, len(x))
		softmaxF32(sm, x)
		eachKernel(func(name string) {
			fail := func(what string, got, want any) {
				t.Fatalf("case %d n=%d %s: %s %v, Go loop %v", c, len(x), name, what, got, want)
			}
			if gm := maxF32(x); !near(gm, m, 0) {
				fail("max", gm, m)
			}
			ge := make([]float32, len(x))
			gs := expShiftF32(ge, x, float32(m))
			for i := range e {
				if math.Float32bits(ge[i]) != math.Float32bits(e[i]) {
					fail("e^(x−m) at "+strconv.Itoa(i), ge[i], e[i])
				}
			}
			if !near(gs, s, 1e-14) {
				fail("Σe^(x−m)", gs, s)
			}
			if gl := statF32(stLSE, x); !near(gl.a, lse.a, 0) || !near(gl.b, lse.b, 1e-14) {
				fail("LogSumExp parts", gl, lse)
			}
			gsm := make([]float32, len(x))
			softmaxF32(gsm, x)
			for i := range sm {
				if !near(float64(gsm[i]), float64(sm[i]), 2e-7) {
					fail("softmax at "+strconv.Itoa(i), gsm[i], sm[i])
				}
			}
		})
	}
}

// TestSoftmaxLayouts: Softmax and LogSumExp of strided lines (a
// transposed view) take the contiguous kernels' exponentials: for float32
// the same bits for lines shorter than the kernels' 8 lanes (the sums then
// add in the same order), within one rounding of the sum for longer ones;
// for float64 Softmax (softmaxF64, the generic loop's order) the same bits
// always, and LogSumExp within its sums' rounding (its partial sums split
// differently, which moves log(sum) absolutely: within that of 1 + |result|
// and C roundings).
func TestSoftmaxLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 14))
	softmaxLayouts[float32](t, r, 2.5e-7, 0)
	softmaxLayouts[float64](t, r, 0, 5e-16)
}

func softmaxLayouts[T float32 | float64](t *testing.T, r *rand.Rand, longTol, lseTol float64) {
	for c := range 200 {
		C, R := 1+r.IntN(7), 1+r.IntN(6)
		if c%4 == 3 {
			C = 8 + r.IntN(100)
		}
		xs, xt := make([]T, C*R), make([]T, C*R)
		for j := range R {
			for i := range C {
				v := T(r.NormFloat64() * math.Pow(10, float64(r.IntN(3))))
				xs[j*C+i], xt[i*R+j] = v, v
			}
		}
		a := array.FromSlice(xs, C, R)                 // lines of C contiguous
		b := array.FromSlice(xt, R, C).Transpose(0, 1) // the same values, lines strided by R
		sa, sb := array.New[T](C, R), array.New[T](C, R)
		la, lb := array.New[T](R), array.New[T](R)
		for _, err := range []error{Softmax(sa, a, -1), Softmax(sb, b, -1), LogSumExp(la, a, -1), LogSumExp(lb, b, -1)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		va, _ := sa.HostReadOnly()
		vb, _ := sb.HostReadOnly()
		wa, _ := la.HostReadOnly()
		wb, _ := lb.HostReadOnly()
		smTol := 0.0 // Softmax's
		if C >= 8 {
			smTol = longTol
		}
		lTol := max(smTol, lseTol) // LogSumExp's
		near := func(x, y T, tol float64) bool { return x == y || math.Abs(float64(x-y)) <= tol*math.Abs(float64(y)) }
		for j := range R {
			sum := 0.0
			for i := range C {
				sum += float64(va.At(i, j))
				if !near(vb.At(i, j), va.At(i, j), smTol) {
					t.Fatalf("%T case %d (C %d R %d): Softmax at (%d, %d): strided %v, contiguous %v", xs[0], c, C, R, i, j, vb.At(i, j), va.At(i, j))
				}
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("%T case %d: line %d sums to %v: Softmax ran along another axis", xs[0], c, j, sum)
			}
			// LogSumExp is m + log(sum), sum in [1, C]: partial sums split
			// differently move the sum by up to about C roundings, so log(sum)
			// by that much absolutely, however small the result (seed 101
			// drew −0.2778 = −0.2780 + log(1.000236), 4 ulps apart)
			w := float64(wa.At(j))
			if d := math.Abs(float64(wb.At(j)) - w); wb.At(j) != wa.At(j) && (lTol == 0 || d > lTol*(math.Abs(w)+1)+float64(2*C)*0x1p-53) {
				t.Fatalf("%T case %d (C %d R %d): LogSumExp of line %d: strided %v, contiguous %v", xs[0], c, C, R, j, wb.At(j), wa.At(j))
			}
		}
	}
}
