package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

func refCmp[T array.Elem](op CmpOp, x, y T) uint8 {
	a, b := asF64(x), asF64(y)
	if kindOf[T]() == kSigned || kindOf[T]() == kUnsigned {
		return b2u([...]bool{x == y, x != y, x < y, x <= y, x > y, x >= y}[op])
	}
	return b2u([...]bool{a == b, a != b, a < b, a <= b, a > b, a >= b}[op])
}

func testCompareWhere[T array.Elem](t *testing.T, r *rand.Rand) {
	for ci, c := range broadcastCases {
		g := gen[T](r, false)
		small := func() T { // ties are likely
			if kindOf[T]() == kSigned || kindOf[T]() == kUnsigned {
				return T(r.IntN(3))
			}
			return g()
		}
		a := makeView(r, layouts[r.IntN(5)], c[1], small)
		b := makeView(r, layouts[r.IntN(5)], c[2], small)
		av, _ := a.HostReadOnly()
		bv, _ := b.HostReadOnly()
		for op := EQ; op <= GE; op++ {
			m := makeView(r, layouts[r.IntN(5)], c[0], func() uint8 { return 9 })
			if err := Compare(m, a, b, op); err != nil {
				t.Fatal(err)
			}
			mv, _ := m.HostReadOnly()
			forEachPos(c[0], func(p []int) {
				x, y := av.At(coordsOf(a, p)...), bv.At(coordsOf(b, p)...)
				if got, want := mv.At(coordsOf(m, p)...), refCmp(op, x, y); got != want {
					t.Fatalf("%s case %d: %v %v %v = %d, want %d", typeName[T](), ci, x, op, y, got, want)
				}
			})
			// Where(dst, mask, a, b) picks a where the mask holds.
			d := makeView(r, layouts[r.IntN(5)], c[0], func() T { return 0 })
			if err := Where(d, m, a, b); err != nil {
				t.Fatal(err)
			}
			dv, _ := d.HostReadOnly()
			forEachPos(c[0], func(p []int) {
				want := bv.At(coordsOf(b, p)...)
				if mv.At(coordsOf(m, p)...) != 0 {
					want = av.At(coordsOf(a, p)...)
				}
				if got := dv.At(coordsOf(d, p)...); !same(got, want) {
					t.Fatalf("%s Where case %d at %v: %v, want %v", typeName[T](), ci, p, got, want)
				}
			})
		}
		if len(c[1]) > 0 {
			s := small()
			m := array.New[uint8](c[1]...)
			if err := CompareScalar(m, a, s, LT); err != nil {
				t.Fatal(err)
			}
			mv, _ := m.HostReadOnly()
			forEachPos(c[1], func(p []int) {
				x := av.At(coordsOf(a, p)...)
				if got := mv.At(p...); got != refCmp(LT, x, s) {
					t.Fatalf("%s CompareScalar %v < %v = %d", typeName[T](), x, s, got)
				}
			})
		}
	}
}

func TestCompareWhereAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	forEachType(t, r, map[string]func(*testing.T, *rand.Rand){
		"int8": testCompareWhere[int8], "int16": testCompareWhere[int16], "int32": testCompareWhere[int32], "int64": testCompareWhere[int64],
		"uint8": testCompareWhere[uint8], "uint16": testCompareWhere[uint16], "uint32": testCompareWhere[uint32], "uint64": testCompareWhere[uint64],
		"float32": testCompareWhere[float32], "float64": testCompareWhere[float64],
		"float16": testCompareWhere[array.Float16], "bfloat16": testCompareWhere[array.BFloat16],
	})
}

func testCopyFillIota[T array.Elem](t *testing.T, r *rand.Rand) {
	for _, ext := range [][]int{{5, 7}, {70, 45}, {3, 4, 5}, {33, 1, 40}, {9}} {
		src := makeView(r, layouts[r.IntN(5)], ext, gen[T](r, false))
		sv, _ := src.HostReadOnly()
		dst := makeView(r, layouts[r.IntN(5)], ext, func() T { return 0 })
		if err := Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		dv, _ := dst.HostReadOnly()
		forEachPos(ext, func(p []int) {
			if got, want := dv.At(coordsOf(dst, p)...), sv.At(coordsOf(src, p)...); !same(got, want) {
				t.Fatalf("%s Copy %v at %v: %v, want %v", typeName[T](), ext, p, got, want)
			}
		})
		if len(ext) >= 2 {
			text := append([]int(nil), ext...)
			text[0], text[len(ext)-1] = text[len(ext)-1], text[0]
			td := makeView(r, layouts[r.IntN(5)], text, func() T { return 0 })
			if err := Copy(td, src.Transpose(0, len(ext)-1)); err != nil {
				t.Fatal(err)
			}
			tv, _ := td.HostReadOnly()
			forEachPos(ext, func(p []int) {
				q := append([]int(nil), p...)
				q[0], q[len(q)-1] = q[len(q)-1], q[0]
				if got, want := tv.At(coordsOf(td, q)...), sv.At(coordsOf(src, p)...); !same(got, want) {
					t.Fatalf("%s Transpose %v at %v: %v, want %v", typeName[T](), ext, p, got, want)
				}
			})
		}
		x := gen[T](r, false)()
		if err := Fill(dst, x); err != nil {
			t.Fatal(err)
		}
		forEachPos(ext, func(p []int) {
			if got := dv.At(coordsOf(dst, p)...); !same(got, x) {
				t.Fatalf("%s Fill: %v, want %v", typeName[T](), got, x)
			}
		})
		for dim := range ext {
			if err := Iota(dst, axisOf(dim)); err != nil {
				t.Fatal(err)
			}
			forEachPos(ext, func(p []int) {
				c := coordsOf(dst, p)
				want := T(c[dim])
				if kindOf[T]() == kHalf {
					want = fromF32[T](float32(c[dim]))
				}
				if got := dv.At(c...); !same(got, want) {
					t.Fatalf("%s Iota dim %d at %v: %v, want %v", typeName[T](), dim, c, got, want)
				}
			})
		}
	}
}

func TestCopyFillIotaAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 43))
	forEachType(t, r, map[string]func(*testing.T, *rand.Rand){
		"int8": testCopyFillIota[int8], "int16": testCopyFillIota[int16], "int32": testCopyFillIota[int32], "int64": testCopyFillIota[int64],
		"uint8": testCopyFillIota[uint8], "uint16": testCopyFillIota[uint16], "uint32": testCopyFillIota[uint32], "uint64": testCopyFillIota[uint64],
		"float32": testCopyFillIota[float32], "float64": testCopyFillIota[float64],
		"float16": testCopyFillIota[array.Float16], "bfloat16": testCopyFillIota[array.BFloat16],
	})
}

// TestTransposeHuge is the benchmark's transpose (2048², non-temporal
// stores), checked element by element.
func TestTransposeHuge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("16 MiB")
	}
	const n = 2048
	src := array.New[float32](n, n)
	h, _ := src.Host()
	for i := range h.Data() {
		h.Data()[i] = float32(i)
	}
	dst := array.New[float32](n, n)
	if err := Copy(dst, src.Transpose(0, 1)); err != nil {
		t.Fatal(err)
	}
	dv, _ := dst.HostReadOnly()
	for i, x := range dv.Data() {
		if want := float32(i%n*n + i/n); x != want {
			t.Fatalf("element %d: %v, want %v", i, x, want)
		}
	}
}

// TestTransposeLarge crosses the parallel threshold of the tiled copy.
func TestTransposeLarge(t *testing.T) {
	n := 700
	if raceEnabled {
		n = 300
	}
	src := array.New[float32](n, n+13)
	h, _ := src.Host()
	for i := range h.Data() {
		h.Data()[i] = float32(i)
	}
	dst := array.New[float32](n+13, n)
	if err := Copy(dst, src.Transpose(0, 1)); err != nil {
		t.Fatal(err)
	}
	dv, _ := dst.HostReadOnly()
	for y := 0; y < n; y++ {
		for x := 0; x < n+13; x++ {
			if got := dv.At(x, y); got != float32(x*n+y) {
				t.Fatalf("at (%d,%d): %v", x, y, got)
			}
		}
	}
}

func TestMatMulViews(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 45))
	for range 6 {
		M, K, N, B := 1+r.IntN(40), 1+r.IntN(300), 1+r.IntN(40), 1+r.IntN(3)
		lay := func() string { return layouts[r.IntN(5)] }
		g64, g32 := gen[float64](r, false), gen[float32](r, false)
		a := makeView(r, lay(), []int{K, M, B}, g64)
		b := makeView(r, lay(), []int{N, K, 1}, g64) // shared by every batch
		d := makeView(r, lay(), []int{N, M, B}, func() float64 { return 0 })
		checkMatMul(t, "f64 views", d, a, b, 1e-12)
		a32 := makeView(r, lay(), []int{K, M}, g32)
		b32 := makeView(r, lay(), []int{N, K, B}, g32)
		d32 := makeView(r, lay(), []int{N, M, B}, func() float32 { return 0 })
		checkMatMul(t, "f32 views", d32, a32, b32, 1e-4)
	}
}

// TestZeroAllocs checks the hot paths allocate nothing in steady state,
// in parallel and serially.
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	n := 1 << 17
	a, b, d := array.New[float32](n), array.New[float32](n), array.New[float32](n)
	sq := array.New[float64](64, 64)
	s8 := array.New[uint8](n)
	two, col := array.New[float32](64, 64), array.New[float32](64)
	sq2 := array.New[float64](64, 64)
	tr := sq2.Transpose(0, 1)
	p64 := array.New[float64](n)
	Fill(p64, 1.5)
	for name, fn := range map[string]func(){
		"PowScalar":  func() { BinaryScalar(p64, p64, 1, OpPow) },
		"Add":        func() { Binary(d, a, b, OpAdd) },
		"AddScalar":  func() { BinaryScalar(d, a, 1, OpAdd) },
		"Exp":        func() { Unary(d, a, OpExp) },
		"Value(Sum)": func() { Value(Sum, a) },
		"Sum":        func() { Sum(col, two, -2) },
		"Compare":    func() { Compare(s8, a, b, LT) },
		"Cast":       func() { CastSaturate(s8, a) },
		"MatMul":     func() { MatMul(sq, tr, sq2) },
		"Transpose":  func() { Copy(sq, tr) },
	} {
		fn()
		if got := testing.AllocsPerRun(20, fn); got != 0 {
			t.Errorf("%s: %v allocs per op, want 0", name, got)
		}
	}
}
