package ops

import (
	"fmt"
	"github.com/resident-go/resident/internal/draw"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
)

// ulps32 is the distance from got to want in float32 units in the last
// place (0 when both are NaN or equal, ±0 equal).
func ulps32(got, want float32) float64 {
	if got == want || got != got && want != want {
		return 0
	}
	if got != got || want != want || math.IsInf(float64(got), 0) != math.IsInf(float64(want), 0) {
		return math.Inf(1)
	}
	ord := func(x float32) int64 { // monotone integer order of floats
		b := int64(math.Float32bits(x))
		if b < 0 {
			b = math.MinInt32 - b
		}
		return b
	}
	return math.Abs(float64(ord(got) - ord(want)))
}

// logUniform32 draws a float32 whose magnitude is log-uniform in
// [1e-30, 1e10], either sign, or now and then a special value.
func logUniform32(r *rand.Rand) float32 {
	if r.IntN(50) == 0 {
		sp := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
			float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32, 1 << 20, -(1 << 20), 88.72, -103.9, 0.5, -2.5}
		return sp[r.IntN(len(sp))]
	}
	x := float32(math.Pow(10, -30+40*r.Float64()))
	if r.IntN(2) == 0 {
		x = -x
	}
	return x
}

// TestMath32Accuracy checks math32.go's float32 kernels against package
// math's float64 functions rounded to float32, over magnitudes from 1e-30
// to 1e10 and the special values: within 1 ulp (the series' error and
// the double rounding), exactly for NaN, ±Inf and ±0.
func TestMath32Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 40000
	a, b, d := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a {
		a[i] = logUniform32(r)
		b[i] = float32(r.Float64()*60 - 30)
		if r.IntN(10) == 0 {
			b[i] = logUniform32(r)
		}
	}
	a[0], a[1] = 1<<20-0.5, 7.853981e5 // near the fast path's bound; near a multiple of π/4
	check := func(name string, ref func(i int) float64) {
		worst, at := 0.0, 0
		for i := range d {
			w := float32(ref(i))
			if u := ulps32(d[i], w); u > worst {
				worst, at = u, i
			}
			if math.Signbit(float64(d[i])) != math.Signbit(float64(w)) && d[i] == 0 && w == 0 {
				t.Errorf("%s(%v, %v): got %v, want %v (sign of zero)", name, a[i], b[i], d[i], w)
			}
		}
		if worst > 1 {
			t.Errorf("%s(%v, %v): got %v, want %v: %v ulps", name, a[at], b[at], d[at], float32(ref(at)), worst)
		}
	}
	for _, op := range []UnaryOp{OpExp, OpSin, OpCos, OpTan, OpSigmoid, OpTanh, OpLog, OpLog1p, OpExpm1, OpSinh, OpCosh, OpAsin, OpAcos, OpAtan, OpSoftplus} {
		ref := map[UnaryOp]func(float64) float64{OpSoftplus: softplus64, OpAsin: math.Asin, OpAcos: math.Acos, OpAtan: math.Atan,
			OpExp: math.Exp, OpSin: math.Sin, OpCos: math.Cos, OpTan: math.Tan, OpTanh: math.Tanh, OpLog: math.Log, OpLog1p: math.Log1p,
			OpExpm1: math.Expm1, OpSinh: math.Sinh, OpCosh: math.Cosh,
			OpSigmoid: func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }}[op]
		unVec32(op, d, a)
		check(op.String(), func(i int) float64 { return ref(float64(a[i])) })
	}
	// the ops with float64-lane kernels over the ranges they are used in:
	// [−1, 1] for Asin and Acos, b's [−30, 30] for the others
	u := make([]float32, n)
	for i := range u {
		u[i] = float32(r.Float64()*2 - 1)
	}
	for _, c := range []struct {
		op  UnaryOp
		in  []float32
		ref func(float64) float64
	}{{OpAsin, u, math.Asin}, {OpAcos, u, math.Acos}, {OpAtan, b, math.Atan}, {OpExpm1, b, math.Expm1},
		{OpSinh, b, math.Sinh}, {OpCosh, b, math.Cosh}, {OpTan, b, math.Tan}, {OpSoftplus, b, softplus64}} {
		unVec32(c.op, d, c.in)
		check(c.op.String(), func(i int) float64 { return c.ref(float64(c.in[i])) })
	}
	// Sin and Cos in place (the kernel leaves the lanes it cannot do
	// holding x, for the fallback to read): the same bits as out of place
	x := slices.Clone(a)
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1 << 20, -1 << 21, 3e38} {
		for range 8 { // at drawn lanes, among ordinary ones
			x[r.IntN(n)] = v
		}
	}
	for _, op := range []UnaryOp{OpSin, OpCos} {
		unVec32(op, d, x)
		in := slices.Clone(x)
		unVec32(op, in, in)
		for i := range in {
			if !same(in[i], d[i]) {
				t.Fatalf("%v(%v) in place = %v, out of place %v", op, x[i], in[i], d[i])
			}
		}
	}
	// the rounding ops (AVX's VROUNDPS where available), exactly, on
	// halves too
	for i := range a[:n/2] {
		a[i] = float32(r.IntN(4001)-2000) / 4
	}
	for _, op := range []UnaryOp{OpFloor, OpCeil, OpRound, OpTrunc} {
		ref := map[UnaryOp]func(float64) float64{OpFloor: math.Floor, OpCeil: math.Ceil, OpRound: math.RoundToEven, OpTrunc: math.Trunc}[op]
		unVec32(op, d, a)
		for i := range d {
			if w := float32(ref(float64(a[i]))); !same(d[i], w) {
				t.Fatalf("%v(%v) = %v, want %v", op, a[i], d[i], w)
			}
		}
	}
	// Pow: positive bases over the whole range, any base with small integer exponents
	for i := range a {
		if r.IntN(4) == 0 {
			b[i] = float32(r.IntN(7) - 3)
		} else if a[i] < 0 {
			a[i] = -a[i]
		}
	}
	pow32(d, a, b)
	check("Pow", func(i int) float64 { return math.Pow(float64(a[i]), float64(b[i])) })
	// in place, into the base and into the exponent (the kernel keeps the
	// operand of lanes off its fast path for the fallback to read): the
	// same bits as out of place, with zero, negative, NaN and Inf lanes
	// among ordinary ones
	xa, xb := slices.Clone(a), slices.Clone(b)
	for _, v := range []float32{0, -2, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		for range 8 { // at drawn lanes of either operand
			xa[r.IntN(n)], xb[r.IntN(n)] = v, v
		}
	}
	pow32(d, xa, xb)
	for k, in := range [][]float32{slices.Clone(xa), slices.Clone(xb)} {
		if k == 0 {
			pow32(in, in, xb)
		} else {
			pow32(in, xa, in)
		}
		for i := range in {
			if !same(in[i], d[i]) {
				t.Fatalf("Pow(%v, %v) in place (operand %d) = %v, out of place %v", xa[i], xb[i], k, in[i], d[i])
			}
		}
	}
}

// TestMathSpecialValues runs every unary op and Mod on ±0, halves, ±Inf,
// NaN, huge and tiny values for each float type, on the host and (PoCL)
// on the device, against the references of gen_test.go; the rounding ops,
// Relu and Sign must match exactly, sign of zero included.
func TestMathSpecialValues(t *testing.T) {
	run := sampled(t) // each type is a kernel build per op
	run("float32", testMathSpecial[float32])
	run("float64", testMathSpecial[float64])
	run("float16", testMathSpecial[array.Float16])
	run("bfloat16", testMathSpecial[array.BFloat16])
}

func testMathSpecial[T array.Elem](t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -0.25, 1, -1, 0.75, 7,
		math.Inf(1), math.Inf(-1), math.NaN(), 1e30, -1e30, 3e38, 1e-30, 6e4, 1e6 + 0.5, 12345.678, -100, 100}
	vals := make([]T, len(xs))
	for i, x := range xs {
		vals[i] = drefFromF[T](x)
	}
	n := len(vals)
	for _, dev := range []bool{false, true} {
		for op := UnaryOp(0); op < drefUnaryOps; op++ { // the ops drefUnary knows (unary_ref_test.go checks later ones)
			a := hostArray(t, vals)
			dst := array.New[T](n)
			if dev {
				d := testDev(t)
				if isF64[T]() && !d.Caps().FP64 {
					continue
				}
				if err := On(d, a, dst); err != nil {
					t.Fatal(err)
				}
			}
			if err := Unary(dst, a, op); err != nil {
				t.Fatalf("%v: %v", op, err)
			}
			if dev && !dst.DeviceDirty() {
				t.Fatalf("%v did not run on the device", op)
			}
			h, err := dst.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			exactOp := op == OpAbs || op == OpNeg || op >= OpRelu
			for i, x := range vals {
				got, want := h.At(i), drefUnary(op, x)
				ok := same(got, want) || op == OpSign && drefF(got) == 0 && drefF(want) == 0
				if !exactOp {
					ok = closeTo(got, want, devTol[T]())
				}
				if !ok {
					t.Errorf("%s %v (device %v) of %v: got %v, want %v", typeName[T](), op, dev, drefF(x), got, want)
				}
			}
		}
	}
}

// TestModSigns: Mod's result takes the divisor's sign, as NumPy's
// remainder and Python's %, for floats and integers on host and device.
func TestModSigns(t *testing.T) {
	for _, dev := range []bool{false, true} {
		t.Run(fmt.Sprint("device=", dev), func(t *testing.T) {
			f := []float64{7, -7, 7, -7, 0, 0, 5.5, 1, -1, 3, math.Inf(1), 2}
			g := []float64{3, 3, -3, -3, 3, -3, 0, math.Inf(1), math.Inf(1), math.NaN(), 2, math.Inf(-1)}
			neg0 := math.Copysign(0, -1)
			wf := []float64{1, 2, -2, -1, 0, neg0, math.NaN(), 1, math.Inf(1), math.NaN(), math.NaN(), math.Inf(-1)}
			i := []int32{7, -7, 7, -7, math.MinInt32, math.MinInt32, 5, 0}
			j := []int32{3, 3, -3, -3, -1, 3, 0, -5}
			wi := []int32{1, 2, -2, -1, 0, 1, 0, 0}
			got := modOn(t, dev, f, g)
			for k := range f {
				if !same(got[k], wf[k]) { // sign of zero too
					t.Errorf("Mod(%v, %v) = %v, want %v", f[k], g[k], got[k], wf[k])
				}
			}
			gi := modOn(t, dev, i, j)
			for k := range i {
				if gi[k] != wi[k] {
					t.Errorf("Mod(%v, %v) = %v, want %v", i[k], j[k], gi[k], wi[k])
				}
			}
		})
	}
}

func modOn[T array.Elem](t *testing.T, dev bool, x, y []T) []T {
	t.Helper()
	a, b := hostArray(t, x), hostArray(t, y)
	dst := array.New[T](len(x))
	if dev {
		d := testDev(t)
		if err := On(d, a, b, dst); err != nil {
			t.Fatal(err)
		}
	}
	if err := Binary(dst, a, b, OpMod); err != nil {
		t.Fatal(err)
	}
	if dev && !dst.DeviceDirty() {
		t.Fatal("Mod did not run on the device")
	}
	h, err := dst.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]T, len(x))
	for k := range out {
		out[k] = h.At(k)
	}
	return out
}

// hostArray is a dense Array holding xs that ops may place on a device
// (FromSlice's Arrays are host-only).
func hostArray[T array.Elem](t *testing.T, xs []T) *array.Array[T] {
	t.Helper()
	a := array.New[T](len(xs))
	h, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		h.Set(x, i)
	}
	return a
}

// TestSinKernels: Sin and Cos give the same bits from the AVX-512 kernel
// (sixteen lanes a step), the AVX2 one (four) and sinCos32, at drawn
// lengths (so every tail: the AVX2 kernel after the AVX-512 one, then
// sinCos32) with the slow lanes (|x| ≥ 2^20, NaN, ±Inf) at drawn places,
// out of place and in place.
func TestSinKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpSin, OpCos}, logUniform32, []float32{1 << 20, -1 << 21, 3e38},
		func(op UnaryOp, d, a []float32) {
			if useAsm {
				sincos32(op, d, a)
			} else {
				sinCos32(op == OpCos, d, a)
			}
		})
}

// TestUnaryDispatch: Unary over a float32 Array runs the assembly
// kernels of every op that has them (the kernel count grows), and its
// values are the kernels' (unVec32's).
func TestUnaryDispatch(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels")
	}
	xs := make([]float32, 1000)
	for i := range xs {
		xs[i] = 0.1 + 0.8*float32(i)/float32(len(xs))
	}
	for _, op := range []UnaryOp{OpExp, OpTanh, OpSigmoid, OpSin, OpCos, OpTan, OpLog, OpLog1p, OpExpm1, OpSinh, OpCosh, OpSoftplus,
		OpAsin, OpAcos, OpAtan, OpAbs, OpNeg, OpSqrt, OpRelu, OpSign, OpFloor, OpCeil, OpRound, OpTrunc} {
		dst := array.New[float32](len(xs))
		before := kernelRuns.Load()
		if err := Unary(dst, array.FromSlice(xs), op); err != nil {
			t.Fatal(err)
		}
		if kernelRuns.Load() == before {
			t.Errorf("Unary(%v) over float32 ran no assembly kernel", op)
		}
		want := make([]float32, len(xs))
		unVec32(op, want, xs)
		h, err := dst.Host()
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := h.At(i); !same(got, w) {
				t.Fatalf("Unary(%v) at %d: %v, want %v", op, i, got, w)
			}
		}
	}
}

// TestStreamedUnary: unStream (non-temporal stores for cheap float32 and
// float64 ops past the caches) gives unVec32's and unVec64's bits at
// drawn lengths and alignments, in and out of place, leaves d alone for
// an op it does not have, and is what Unary runs over 2^22 float32 and
// 2^21 float64 (the streamed count grows); Fill's streamed row sets every
// element at drawn offsets and lengths, and is what Fill runs over 2^23
// float32.
func TestStreamedUnary(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels")
	}
	r := rand.New(rand.NewPCG(draw.Seed(t), 12))
	streamAgrees(t, r, []UnaryOp{OpAbs, OpNeg, OpSqrt, OpRelu, OpSign}, logUniform32, unVec32)
	streamAgrees(t, r, []UnaryOp{OpAbs, OpNeg, OpSqrt, OpFloor, OpCeil, OpRound, OpTrunc},
		func(r *rand.Rand) float64 { return float64(logUniform32(r)) * (1 + r.Float64()/4) }, unVec64)
	// Fill's streamed row at drawn offsets and lengths, then through Fill
	for range 20 {
		buf := make([]uint16, 1+r.IntN(4*fillPiece))
		d, v := buf[r.IntN(len(buf)):], uint16(r.Uint32())
		fillStream(d, v)
		for i, x := range d {
			if x != v {
				t.Fatalf("fillStream over %d uint16s: element %d is %d, want %d", len(d), i, x, v)
			}
		}
	}
	big := array.New[float32](1 << 23)
	before := streamed.Load()
	if err := Fill(big, 2.5); err != nil {
		t.Fatal(err)
	}
	hb, err := big.Host()
	if err != nil {
		t.Fatal(err)
	}
	if streamed.Load() == before || hb.At(0) != 2.5 || hb.At(1<<23-1) != 2.5 || hb.At(12345) != 2.5 {
		t.Fatal("Fill over 2^23 float32 did not stream, or left an element unset")
	}
	big.Close()
	unaryStreams(t, 1<<22, OpNeg, func(i int) float32 { return float32(i%1000) - 500 }, func(x float32) float32 { return -x })
	unaryStreams(t, 1<<21, OpFloor, func(i int) float64 { return float64(i%1000)/8 - 60 }, math.Floor)
}

// unaryStreams: Unary(op) over n elements x(i) goes through unStream (the
// streamed count grows) and gives want at a few places.
func unaryStreams[T float32 | float64](t *testing.T, n int, op UnaryOp, x func(int) T, want func(T) T) {
	t.Helper()
	xs := make([]T, n)
	for i := range xs {
		xs[i] = x(i)
	}
	src, dst := array.FromSlice(xs), array.New[T](n)
	defer dst.Close()
	before := streamed.Load()
	must(t, Unary(dst, src, op))
	if streamed.Load() == before {
		t.Fatalf("Unary(%v) over %d %T did not stream", op, n, xs[0])
	}
	h, err := dst.Host()
	must(t, err)
	for _, i := range []int{0, 1, 12345, n - 1} {
		if got := h.At(i); got != want(xs[i]) {
			t.Fatalf("%v at %d: %v, want %v", op, i, got, want(xs[i]))
		}
	}
}

// streamAgrees: unStream over vec gives vec's bits for each of ops at 60
// drawn lengths (to three pieces) and alignments of a and d, in and out
// of place, and reports false with d untouched for Erf (no kernel).
func streamAgrees[T float32 | float64](t *testing.T, r *rand.Rand, ops []UnaryOp, value func(*rand.Rand) T, vec func(UnaryOp, []T, []T) bool) {
	t.Helper()
	for c := range 60 {
		n, off := r.IntN(3*streamPiece), r.IntN(8)
		x := make([]T, n+off)
		for i := range x {
			x[i] = value(r)
		}
		a := x[off:]
		op := ops[r.IntN(len(ops))]
		want := make([]T, n)
		vec(op, want, a)
		d := make([]T, n+8)[r.IntN(8):][:n]
		in := slices.Clone(a)
		if n > 0 && (!unStream(op, d, a, vec) || !unStream(op, in, in, vec)) {
			t.Fatalf("case %d: unStream(%v) reports no kernel", c, op)
		}
		for i := range want {
			if !same(d[i], want[i]) || !same(in[i], want[i]) {
				t.Fatalf("case %d n=%d %v(%v) at %d: %v (in place %v), want %v", c, n, op, a[i], i, d[i], in[i], want[i])
			}
		}
	}
	d := []T{7, 7, 7}
	if unStream(OpErf, d, []T{1, 2, 3}, vec) || d[0] != 7 || d[2] != 7 {
		t.Fatalf("unStream(Erf) = true or wrote %v", d)
	}
}

// TestSimpleKernels: Abs, Neg, Sqrt and Relu give the Go loop's bits from
// the AVX kernels, at lengths across their 32-element steps, with
// subnormals, ±0 (Relu's −0 is +0), ±Inf and NaN among the values.
func TestSimpleKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpAbs, OpNeg, OpSqrt, OpRelu, OpSign}, logUniform32, []float32{1e-45, -3e-39, 3e38},
		func(op UnaryOp, d, a []float32) {
			if !unVec32(op, d, a) {
				unFloat(op, d, a)
			}
		})
}

// TestLogKernels: Log likewise, with the lanes log32 hands to math.Log
// (zero, negatives, +Inf, NaN) among the values, so steps stop and
// restart, and subnormals, which are normal in its float64 lanes.
func TestLogKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpLog}, func(r *rand.Rand) float32 { return float32(math.Abs(float64(logUniform32(r)))) },
		[]float32{1e-45, 3e-39, 3e38, -2, 1, float32(math.Sqrt2), 0.70710677},
		func(op UnaryOp, d, a []float32) { logLanes(d, a) })
}

// TestLog1pKernels: Log1p likewise, on both sides of 0 (x itself below
// 2^−29), with −1 and below and the 2^−29 bound among the values.
func TestLog1pKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpLog1p}, func(r *rand.Rand) float32 {
		x := logUniform32(r)
		if x < 0 {
			x = -float32(r.Float64()) // (−1, 0]
		}
		return x
	}, []float32{1e-45, -1e-45, 1e-20, -0.99999994, -1, -2, 3e38, float32(math.Sqrt2 - 1), 0x1p-29, -0x1p-29, 0x1.fffffep-30, -0x1.fffffep-30},
		func(op UnaryOp, d, a []float32) { log1pLanes(d, a) })
}

// TestHypKernels: Expm1, Sinh, Cosh and Softplus likewise, with the
// clamps' ends, the float32 overflow points, the reduction's first
// bounds (where Cosh's and Sinh's series end: n = 1 and n = 2), the
// last n whose 2^(−2n) is not held at hypTerm, and Softplus's switch of
// log1p (e^−|x| = 2^−10) among the specials.
func TestHypKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpExpm1, OpSinh, OpCosh, OpSoftplus}, func(r *rand.Rand) float32 {
		if r.IntN(2) == 0 {
			return float32(r.NormFloat64() * 3)
		}
		return logUniform32(r)
	}, []float32{-110, -111, 709, 710, 88.72, 89.42, -89.42, 89.415985, 89.41599, 90, 90.00001, 0.34657359, -0.34657359, 0.3465736, 1.0397207, 1.0397208,
		-1.0397208, 16.635532, 16.98, 17.3, 1e-30, -1e-45, 3e38, 6.9314718, -6.9314718, 6.93, 104, -104},
		func(op UnaryOp, d, a []float32) { unVec32(op, d, a) })
}

// TestAsinKernels: Asin, Acos and Atan likewise, over [−1, 1] mostly
// (and beyond, where Asin and Acos give NaN), with the reductions' bounds
// among the specials.
func TestAsinKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpAsin, OpAcos, OpAtan}, func(r *rand.Rand) float32 {
		if r.IntN(3) == 0 {
			return logUniform32(r)
		}
		return float32(r.Float64()*2 - 1)
	}, []float32{1, -1, 0.5, -0.5, 0.50000006, 1.0000001, 0.41421357, 0.41421354, 2.4142137, -2.4142134, 1e-30, 3e38, -3e38},
		func(op UnaryOp, d, a []float32) { unVec32(op, d, a) })
}

// TestTanKernels: Tan likewise, with the fast path's bound and values
// near odd multiples of π/2 (huge results) among the specials.
func TestTanKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpTan}, func(r *rand.Rand) float32 {
		if r.IntN(2) == 0 {
			return float32(r.NormFloat64() * 10)
		}
		return logUniform32(r)
	}, []float32{1 << 20, -(1 << 20), 1<<20 - 0.0625, 1.5707964, -1.5707964, 4.712389, 7.853982, 1e-30, 3e38},
		func(op UnaryOp, d, a []float32) { unVec32(op, d, a) })
}

// TestExpKernels: Exp, Sigmoid and Tanh likewise against the Go loop
// (AVX2: eight lanes a step), with the clamp's ends and tanh's series
// bound among the specials.
func TestExpKernels(t *testing.T) {
	kernelsAgree(t, []UnaryOp{OpExp, OpSigmoid, OpTanh}, func(r *rand.Rand) float32 { return logUniform32(r) * 1e-8 },
		[]float32{-745, 710, 1e10, -1e10, 0.0625, -0.0625, 0.0624, 1e-30},
		func(op UnaryOp, d, a []float32) { unVec32(op, d, a) })
}

// kernelsAgree runs run for each op with the kernels on (AVX-512, then
// AVX2 alone) and off, over drawn inputs (from value, with NaN, ±Inf, ±0
// and specials at drawn places) of drawn lengths, in and out of place:
// the same bits each way.
func kernelsAgree(t *testing.T, ops []UnaryOp, value func(*rand.Rand) float32, specials []float32, run func(op UnaryOp, d, a []float32)) {
	r := rand.New(rand.NewPCG(draw.Seed(t), uint64(len(ops))))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	specials = append(specials, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)))
	for c := range 200 {
		n := r.IntN(80)
		x := make([]float32, n)
		for i := range x {
			x[i] = value(r)
			if r.IntN(10) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		for _, op := range ops {
			useAsm, useAVX512 = false, false
			want := make([]float32, n)
			run(op, want, x)
			eachKernel(func(name string) {
				got := make([]float32, n)
				run(op, got, x)
				in := slices.Clone(x)
				run(op, in, in)
				for i := range want {
					if !same(got[i], want[i]) || !same(in[i], want[i]) {
						t.Fatalf("case %d n=%d %s %v(%v) at %d: %v (in place %v), kernels off %v", c, n, name, op, x[i], i, got[i], in[i], want[i])
					}
				}
			})
		}
	}
}

// eachKernel runs f with the AVX-512 kernels on, then the AVX2 ones
// alone, where the CPU has them (the caller restores useAsm and
// useAVX512).
func eachKernel(f func(name string)) {
	for _, k := range []struct {
		name        string
		asm, avx512 bool
	}{{"avx512", true, true}, {"avx2", true, false}} {
		if k.asm && !hasAVX2 || k.avx512 && !hasAVX512 {
			continue
		}
		useAsm, useAVX512 = k.asm, k.avx512
		f(k.name)
	}
}

// TestPowKernels: Pow gives the same bits from the AVX-512 kernel, the
// AVX2 one and the Go loop, at drawn lengths across pow32's 1024-lane
// blocks, with slow lanes (zero, negative, subnormal, non-finite bases;
// non-finite exponents) at drawn places, into a new slice and in place
// over a and over b.
func TestPowKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 9))
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	bases := []float32{0, -2, -0.5, 1e-40, nan, inf, -inf, math.MaxFloat32, 1}
	exps := []float32{nan, inf, -inf, 0, 1e30, -1e30, 0.5}
	for c := range 60 {
		n := r.IntN(80)
		if c%10 == 0 {
			n = 1000 + r.IntN(1100)
		}
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = logUniform32(r), float32(r.Float64()*60-30)
			if r.IntN(12) == 0 {
				a[i] = bases[r.IntN(len(bases))]
			}
			if r.IntN(12) == 0 {
				b[i] = exps[r.IntN(len(exps))]
			}
		}
		useAsm, useAVX512 = false, false
		want := make([]float32, n)
		pow32(want, a, b)
		eachKernel(func(name string) {
			got, ia, ib := make([]float32, n), slices.Clone(a), slices.Clone(b)
			pow32(got, a, b)
			pow32(ia, ia, b)
			pow32(ib, a, ib)
			for i := range want {
				if !same(got[i], want[i]) || !same(ia[i], want[i]) || !same(ib[i], want[i]) {
					t.Fatalf("case %d n=%d %s pow(%v, %v) at %d: %v (over a %v, over b %v), Go %v", c, n, name, a[i], b[i], i, got[i], ia[i], ib[i], want[i])
				}
			}
		})
	}
}

// TestSinAccuracy: float32 Sin and Cos (sinCos32's polynomial, the
// kernels where the CPU has them) within one ulp of the correctly rounded
// value at every 997th float32 below 2^20, both signs (the whole fast
// path; an exhaustive run of every 7th found 99.997% exact), and nearly
// always correctly rounded; −0 keeps Sin's sign.
func TestSinAccuracy(t *testing.T) {
	var xs []float32
	for u := uint32(0); u < math.Float32bits(1<<20); u += 997 {
		x := math.Float32frombits(u)
		xs = append(xs, x, -x)
	}
	xs = append(xs, float32(math.Copysign(0, -1)), math.Nextafter32(1<<20, 0))
	got := make([]float32, len(xs))
	for _, op := range []UnaryOp{OpSin, OpCos} {
		ref := map[UnaryOp]func(float64) float64{OpSin: math.Sin, OpCos: math.Cos}[op]
		unVec32(op, got, xs)
		exact := 0
		for i, x := range xs {
			want := float32(ref(float64(x)))
			u := ulps32(got[i], want)
			if u > 1 || want == 0 && math.Signbit(float64(got[i])) != math.Signbit(float64(want)) {
				t.Fatalf("%v(%v) = %v, want %v (%v ulps)", op, x, got[i], want, u)
			}
			if u == 0 {
				exact++
			}
		}
		if frac := float64(exact) / float64(len(xs)); frac < 0.999 {
			t.Errorf("%.5f of %v's results correctly rounded, want at least 0.999", frac, op)
		}
	}
}
