package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// maskValue draws float32s with NaN, ±Inf, ±0 and repeats among them, so
// every comparison's both answers and NaN's come up.
func maskValue(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-45, 3e38}[r.IntN(7)]
	case 1:
		return float32(r.IntN(3) - 1)
	}
	return logUniform32(r)
}

// TestMaskKernels: the float32 mask and conversion kernels (mask.go)
// give the Go loops' results at drawn lengths and alignments, with and
// without non-temporal stores: Compare's six ops (b dense or a repeated
// value), IsNaN, and float32 <-> float64 casts (float64 values past
// float32's range, NaN and subnormals included; a saturating narrowing
// stays with the Go loop).
func TestMaskKernels(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels")
	}
	r := rand.New(rand.NewPCG(draw.Seed(t), 13))
	for c := range 300 {
		n, off, nt := r.IntN(3*scalarPiece/2), r.IntN(32), r.IntN(2) == 0
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = maskValue(r), maskValue(r)
			if r.IntN(4) == 0 {
				b[i] = a[i]
			}
		}
		d := make([]uint8, n+32)[off:][:n]
		want := make([]uint8, n)
		op := CmpOp(r.IntN(6))
		cmpVec(op, want, a, b)
		cmpMask32(op, d, a, b, nt)
		if i := firstDiff(d, want); i >= 0 {
			t.Fatalf("case %d n=%d nt=%v: %v(%v, %v) = %d, want %d", c, n, nt, op, a[i], b[i], d[i], want[i])
		}
		if n > 0 {
			s := b[0]
			cmpVec(op, want, a, slices.Repeat([]float32{s}, n))
			cmpRowF(op, d, a, unsafe.Pointer(&s), 0, nt)
			if i := firstDiff(d, want); i >= 0 {
				t.Fatalf("case %d n=%d nt=%v: %v(%v, scalar %v) = %d, want %d", c, n, nt, op, a[i], s, d[i], want[i])
			}
		}
		for _, cl := range []classOp{clsNaN, clsInf, clsFinite} {
			classVec(cl, want, a)
			class32(cl, d, a, nt)
			if i := firstDiff(d, want); i >= 0 {
				t.Fatalf("case %d n=%d: %s(%v) = %d, want %d", c, n, classNames[cl], a[i], d[i], want[i])
			}
		}
		w64 := make([]float64, n+4)[r.IntN(4):][:n]
		if !castDense(w64, a, false, nt) {
			t.Fatal("castDense(float32 -> float64) = false")
		}
		x64 := make([]float64, n)
		for i, v := range a {
			if float64(v) != w64[i] && !(v != v && w64[i] != w64[i]) {
				t.Fatalf("case %d: float64(%v) = %v", c, v, w64[i])
			}
			x64[i] = float64(v) * math.Pow(2, float64(r.IntN(400)-200))
		}
		n32 := make([]float32, n)
		if !castDense(n32, x64, false, nt) || castDense(n32, x64, true, nt) {
			t.Fatal("castDense(float64 -> float32): the narrowing runs only without saturation")
		}
		for i, v := range x64 {
			if w := float32(v); !same(n32[i], w) {
				t.Fatalf("case %d: float32(%v) = %v, want %v", c, v, n32[i], w)
			}
		}
		// float32 -> int32 (past int32's range and NaN too: the Go loop's
		// wrap or saturation) and back
		for i := range n32 {
			if r.IntN(2) == 0 {
				n32[i] = float32(r.IntN(1<<20)-1<<19) / 8
			}
		}
		var w castBuf
		for _, sat := range []bool{false, true} {
			i32, want32 := make([]int32, n), make([]int32, n)
			for i := 0; i < n; i += blk {
				castVec(want32[i:min(n, i+blk)], n32[i:min(n, i+blk)], sat, &w)
			}
			if !castDense(i32, n32, sat, nt) {
				t.Fatal("castDense(float32 -> int32) = false")
			}
			for i := range want32 {
				if i32[i] != want32[i] {
					t.Fatalf("case %d sat=%v: int32(%v) = %d, want %d", c, sat, n32[i], i32[i], want32[i])
				}
			}
			back := make([]float32, n)
			if !castDense(back, i32, false, nt) {
				t.Fatal("castDense(int32 -> float32) = false")
			}
			for i, v := range i32 {
				if back[i] != float32(v) {
					t.Fatalf("case %d: float32(%d) = %v", c, v, back[i])
				}
			}
		}
	}
}

func firstDiff(d, want []uint8) int {
	for i := range want {
		if d[i] != want[i] {
			return i
		}
	}
	return -1
}

// TestScalarOperandRows: BinaryScalar and ScalarBinary, whose scalar
// repeats over dense rows (binRowScalar), equal the element-by-element
// op for every BinaryOp, float32 and int32, at drawn lengths; and
// Compare, CompareScalar, IsNaN and CastWrap over float32 Arrays run the
// mask kernels (the kernel count grows).
func TestScalarOperandRows(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 14))
	for c := range 40 {
		n := 1 + r.IntN(3*scalarPiece)
		op := BinaryOp(r.IntN(int(OpPow) + 1))
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(r.IntN(200)-100) / 8
		}
		s := float32(r.IntN(9)+1) / 4
		a := array.FromSlice(xs)
		for _, scalarFirst := range []bool{false, true} {
			dst := array.New[float32](n)
			var err error
			if scalarFirst {
				err = ScalarBinary(dst, s, a, op)
			} else {
				err = BinaryScalar(dst, a, s, op)
			}
			if err != nil {
				t.Fatal(err)
			}
			h, _ := dst.Host()
			for i, x := range xs {
				p, q := x, s
				if scalarFirst {
					p, q = s, x
				}
				want := make([]float32, 1)
				binGo(op, want, []float32{p}, []float32{q})
				if op == OpPow {
					pow32(want, []float32{p}, []float32{q})
				}
				if got := h.At(i); !same(got, want[0]) {
					t.Fatalf("case %d n=%d %v(%v, %v) scalar first %v: %v, want %v", c, n, op, p, q, scalarFirst, got, want[0])
				}
			}
		}
		is := make([]int32, n)
		for i := range is {
			is[i] = int32(r.IntN(200) - 100)
		}
		di := array.New[int32](n)
		if err := BinaryScalar(di, array.FromSlice(is), 3, OpSub); err != nil {
			t.Fatal(err)
		}
		hi, _ := di.Host()
		for i, x := range is {
			if hi.At(i) != x-3 {
				t.Fatalf("int32 %d - 3 = %d", x, hi.At(i))
			}
		}
	}
	if !useAsm {
		return
	}
	xs := make([]float32, 1000)
	for i := range xs {
		xs[i] = float32(i%7) - 3
	}
	a, m := array.FromSlice(xs), array.New[uint8](len(xs))
	for _, run := range []func() error{
		func() error { return Compare(m, a, a, LT) },
		func() error { return CompareScalar(m, a, 0, GE) },
		func() error { return IsNaN(m, a) },
		func() error { return CastWrap(array.New[float64](len(xs)), a) },
	} {
		before := kernelRuns.Load()
		if err := run(); err != nil {
			t.Fatal(err)
		}
		if kernelRuns.Load() == before {
			t.Error("a mask or cast op over 1000 float32 ran no kernel")
		}
	}
}

// TestCmpMask64: float64 Compare's six ops through cmpMask64 (cmpF64 over
// each multiple of 32) give cmpVec's bytes at drawn lengths and offsets,
// NaN, ±Inf, ±0 and ties included, and a kernel runs where there are 32
// elements; through Compare and CompareScalar over dense Arrays too,
// where the kernel must run as well.
func TestCmpMask64(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 76))
	for c := range 300 {
		n, off := r.IntN(200), r.IntN(5)
		a, b := make([]float64, n+off), make([]float64, n+off)
		for i := range a {
			a[i], b[i] = float64(maskValue(r)), float64(maskValue(r))
			if r.IntN(4) == 0 {
				b[i] = a[i]
			}
		}
		for op := EQ; op <= GE; op++ {
			want, got := make([]uint8, n), make([]uint8, n)
			cmpVec(op, want, a[off:], b[off:])
			runs := kernelRuns.Load()
			cmpMask64(op, got, a[off:], b[off:])
			if useAsm && n >= 32 && kernelRuns.Load() == runs {
				t.Fatalf("case %d %v: no kernel ran for %d elements", c, op, n)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("case %d %v, %d elements at offset %d: %v, want %v", c, op, n, off, got, want)
			}
			if n == 0 {
				continue
			}
			// through Compare, and CompareScalar against b's first value
			s := b[off]
			wantS := make([]uint8, n)
			cmpVec(op, wantS, a[off:], slices.Repeat([]float64{s}, n))
			x := array.FromSlice(a[off:], n)
			for _, k := range []struct {
				name string
				run  func(m *array.Array[uint8]) error
				want []uint8
			}{
				{"Compare", func(m *array.Array[uint8]) error { return Compare(m, x, array.FromSlice(b[off:], n), op) }, want},
				{"CompareScalar", func(m *array.Array[uint8]) error { return CompareScalar(m, x, s, op) }, wantS},
			} {
				m := array.New[uint8](n)
				runs := kernelRuns.Load()
				must(t, k.run(m))
				if useAsm && n >= 32 && kernelRuns.Load() == runs {
					t.Fatalf("case %d: %s %v of %d float64s ran no kernel", c, k.name, op, n)
				}
				h, err := m.HostReadOnly()
				must(t, err)
				if !slices.Equal(h.Data(), k.want) {
					t.Fatalf("case %d: %s %v: %v, want %v", c, k.name, op, h.Data(), k.want)
				}
			}
		}
	}
}

// BenchmarkCompareF64: Compare(LT) of dense float64 at 2^16 and 2^20,
// and CompareScalar(LT, 0.5) (NumPy's peers: np.less(x, y, out=mask),
// np.less(x, 0.5, out=mask)).
//
//	go test -run '^$' -bench CompareF64 ./ops
func BenchmarkCompareF64(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20} {
		r := rand.New(rand.NewPCG(1, 2))
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i], ys[i] = r.Float64()*8-4, r.Float64()+0.5
		}
		x, y, m := array.FromSlice(xs, n), array.FromSlice(ys, n), array.New[uint8](n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(17 * n))
			b.ReportAllocs()
			for b.Loop() {
				if err := Compare(m, x, y, LT); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("scalar/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(9 * n))
			b.ReportAllocs()
			for b.Loop() {
				if err := CompareScalar(m, x, 0.5, LT); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
