package ops

import (
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
)

func refBinary[T array.Elem](op BinaryOp, x, y T) T {
	if kindOf[T]() == kHalf {
		return fromF32[T](float32(refBinary(op, float64(toF32(x)), float64(toF32(y)))))
	}
	switch op {
	case OpAdd:
		return x + y
	case OpSub:
		return x - y
	case OpMul:
		return x * y
	case OpDiv:
		if y == 0 && kindOf[T]() != kFloat {
			return 0
		}
		return x / y
	case OpMin:
		if x != x || y != y {
			return T(math.NaN())
		}
		if x < y {
			return x
		}
		return y
	case OpMax:
		if x != x || y != y {
			return T(math.NaN())
		}
		if x > y {
			return x
		}
		return y
	}
	if x64, ok := any(x).(float64); ok { // pow64.go's bits; TestPow64Accuracy checks them
		return T(pow64One(x64, float64(y)))
	}
	return T(math.Pow(float64(x), float64(y)))
}

func refUnary[T array.Elem](op UnaryOp, x T) T {
	if kindOf[T]() == kHalf {
		return fromF32[T](float32(refUnary(op, float64(toF32(x)))))
	}
	switch op {
	case OpAbs:
		if kindOf[T]() == kFloat {
			return T(math.Abs(float64(x)))
		}
		if x < 0 {
			return -x
		}
		return x
	case OpNeg:
		return -x
	case OpSqrt:
		return T(math.Sqrt(float64(x)))
	case OpExp:
		return T(math.Exp(float64(x)))
	case OpLog:
		return T(math.Log(float64(x)))
	}
	return T(math.Tanh(float64(x)))
}

// broadcastCases are (dst, a, b) extents.
var broadcastCases = [][3][]int{
	{{7, 5}, {7, 5}, {7, 5}},
	{{300, 3}, {300, 3}, {300, 3}},
	{{4, 3, 2}, {4, 1, 2}, {1, 3}},
	{{6, 5}, {6, 5}, {}},
	{{3, 4}, {1}, {3, 4}},
	{{5, 1, 4}, {5, 1, 4, 1}, {5}},
	{{0, 3}, {0, 3}, {1, 3}},
	{{}, {}, {}},
}

func testBinary[T array.Elem](t *testing.T, r *rand.Rand) {
	k := kindOf[T]()
	for op := OpAdd; op <= OpPow; op++ {
		if op == OpPow && k != kFloat && k != kHalf {
			d := array.New[T](2)
			if err := Binary(d, d, d, OpPow); !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Pow on %s: err %v, want ErrUnsupported", typeName[T](), err)
			}
			continue
		}
		for ci, c := range broadcastCases {
			lay := func() string { return layouts[r.IntN(len(layouts))] }
			a := makeView(r, lay(), c[1], gen[T](r, op == OpPow))
			b := makeView(r, lay(), c[2], gen[T](r, false))
			dst := makeView(r, lay(), c[0], func() T { return 0 })
			if err := Binary(dst, a, b, op); err != nil {
				t.Fatal(err)
			}
			av, _ := a.HostReadOnly()
			bv, _ := b.HostReadOnly()
			dv, _ := dst.HostReadOnly()
			forEachPos(c[0], func(pos []int) {
				x, y := av.At(coordsOf(a, pos)...), bv.At(coordsOf(b, pos)...)
				got, want := dv.At(coordsOf(dst, pos)...), refBinary(op, x, y)
				if !same(got, want) && !(op == OpPow && sameOrAdjacent(got, want)) { // Pow: within 1 ulp (doc.go)
					t.Fatalf("%s %v case %d at %v: %v %v %v = %v, want %v", typeName[T](), op, ci, pos, x, op, y, got, want)
				}
			})
			// scalar operands, both sides
			s := gen[T](r, false)()
			if op == OpPow {
				s = T(2)
				if k == kHalf {
					s = fromF32[T](2)
				}
			}
			if len(c[1]) == len(c[0]) {
				if err := BinaryScalar(dst, a, s, op); err != nil {
					t.Fatal(err)
				}
				forEachPos(c[0], func(pos []int) {
					x := av.At(coordsOf(a, pos)...)
					if got, want := dv.At(coordsOf(dst, pos)...), refBinary(op, x, s); !same(got, want) && !(op == OpPow && sameOrAdjacent(got, want)) {
						t.Fatalf("%s %v scalar case %d at %v: %v %v %v = %v, want %v", typeName[T](), op, ci, pos, x, op, s, got, want)
					}
				})
				if err := ScalarBinary(dst, s, a, op); err != nil {
					t.Fatal(err)
				}
				forEachPos(c[0], func(pos []int) {
					x := av.At(coordsOf(a, pos)...)
					if got, want := dv.At(coordsOf(dst, pos)...), refBinary(op, s, x); !same(got, want) && !(op == OpPow && sameOrAdjacent(got, want)) {
						t.Fatalf("%s %v scalar-left case %d at %v: got %v, want %v", typeName[T](), op, ci, pos, got, want)
					}
				})
			}
		}
	}
}

func testUnary[T array.Elem](t *testing.T, r *rand.Rand) {
	k := kindOf[T]()
	for op := OpAbs; op <= OpTanh; op++ {
		if (op >= OpSqrt && k != kFloat && k != kHalf) || (op == OpNeg && k == kUnsigned) {
			d := array.New[T](2)
			if err := Unary(d, d, op); !errors.Is(err, ErrUnsupported) {
				t.Fatalf("%v on %s: err %v, want ErrUnsupported", op, typeName[T](), err)
			}
			continue
		}
		for _, ext := range [][]int{{5, 3}, {300, 2}, {2, 3, 4}} {
			a := makeView(r, layouts[r.IntN(len(layouts))], ext, gen[T](r, op == OpSqrt || op == OpLog))
			dst := makeView(r, layouts[r.IntN(len(layouts))], ext, func() T { return 0 })
			if err := Unary(dst, a, op); err != nil {
				t.Fatal(err)
			}
			av, _ := a.HostReadOnly()
			dv, _ := dst.HostReadOnly()
			forEachPos(ext, func(pos []int) {
				x := av.At(coordsOf(a, pos)...)
				if got, want := dv.At(coordsOf(dst, pos)...), refUnary(op, x); !same(got, want) && !((op == OpExp || op == OpTanh) && sameOrAdjacent(got, want)) { // float32 Exp and Tanh: within 1 ulp (doc.go)
					t.Fatalf("%s %v(%v) = %v, want %v", typeName[T](), op, x, got, want)
				}
			})
		}
	}
}

func forEachType(t *testing.T, r *rand.Rand, tests map[string]func(*testing.T, *rand.Rand)) {
	// in name order: the types share r, so a map's order would draw
	// other operands on every run
	for _, name := range slices.Sorted(maps.Keys(tests)) {
		t.Run(name, func(t *testing.T) { tests[name](t, r) })
	}
}

func TestBinaryAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	forEachType(t, r, map[string]func(*testing.T, *rand.Rand){
		"int8": testBinary[int8], "int16": testBinary[int16], "int32": testBinary[int32], "int64": testBinary[int64],
		"uint8": testBinary[uint8], "uint16": testBinary[uint16], "uint32": testBinary[uint32], "uint64": testBinary[uint64],
		"float32": testBinary[float32], "float64": testBinary[float64],
		"float16": testBinary[array.Float16], "bfloat16": testBinary[array.BFloat16],
	})
}

func TestUnaryAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	forEachType(t, r, map[string]func(*testing.T, *rand.Rand){
		"int8": testUnary[int8], "int16": testUnary[int16], "int32": testUnary[int32], "int64": testUnary[int64],
		"uint8": testUnary[uint8], "uint16": testUnary[uint16], "uint32": testUnary[uint32], "uint64": testUnary[uint64],
		"float32": testUnary[float32], "float64": testUnary[float64],
		"float16": testUnary[array.Float16], "bfloat16": testUnary[array.BFloat16],
	})
}

// TestLargeParallel crosses the parallel threshold and the non-temporal
// store size with dense and cropped operands.
func TestLargeParallel(t *testing.T) {
	n := 1 << 20
	if testing.Short() || raceEnabled {
		n = 1 << 17
	}
	r := rand.New(rand.NewPCG(14, 15))
	for _, layout := range []string{"dense", "crop"} {
		ext := []int{n/64 + 3, 64}
		if layout == "crop" {
			ext = []int{n/64 - 5, 63}
		}
		a := makeViewFast[float32](r, layout, ext)
		b := makeViewFast[float32](r, layout, ext)
		for _, op := range []BinaryOp{OpAdd, OpSub, OpMul, OpDiv} {
			d := array.New[float32](ext...)
			if err := Binary(d, a, b, op); err != nil {
				t.Fatal(err)
			}
			av, _ := a.HostReadOnly()
			bv, _ := b.HostReadOnly()
			dv, _ := d.HostReadOnly()
			for _, p := range [][]int{{0, 0}, {ext[0] - 1, ext[1] - 1}, {ext[0] / 2, 7}} {
				x, y := av.At(coordsOf(a, p)...), bv.At(coordsOf(b, p)...)
				if got, want := dv.At(p...), refBinary(op, x, y); got != want {
					t.Fatalf("%s %v at %v = %v, want %v", layout, op, p, got, want)
				}
			}
			dd := dv.Data()
			ad, bd := av.Data(), bv.Data()
			if layout == "dense" {
				for i := range dd {
					if dd[i] != refBinary(op, ad[i], bd[i]) {
						t.Fatalf("dense %v at %d", op, i)
					}
				}
			}
		}
	}
}

// makeViewFast fills through Data (for big arrays).
func makeViewFast[T Float](r *rand.Rand, layout string, ext []int) *array.Array[T] {
	a := makeView(r, layout, []int{1, 1}, func() T { return 0 })
	if layout == "crop" {
		a = array.New[T](ext[0]+4, ext[1]+2).Crop(0, 2, ext[0]).Crop(1, 1, ext[1])
	} else {
		a = array.New[T](ext...)
	}
	h, _ := a.Host()
	d := h.Data()
	for i := range d {
		d[i] = T(r.Float64() + 0.5)
	}
	return a
}

func TestAddCommutes(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	for range 20 {
		ext := []int{1 + r.IntN(40), 1 + r.IntN(5), 1 + r.IntN(3)}
		a := makeView(r, layouts[r.IntN(5)], ext, gen[float32](r, false))
		b := makeView(r, layouts[r.IntN(5)], ext, gen[float32](r, false))
		x, y := array.New[float32](ext...), array.New[float32](ext...)
		if err := Binary(x, a, b, OpAdd); err != nil {
			t.Fatal(err)
		}
		if err := Binary(y, b, a, OpAdd); err != nil {
			t.Fatal(err)
		}
		xv, _ := x.HostReadOnly()
		yv, _ := y.HostReadOnly()
		for i, v := range xv.Data() {
			if v != yv.Data()[i] {
				t.Fatalf("a+b != b+a at %d", i)
			}
		}
	}
}

func TestInPlace(t *testing.T) {
	a := array.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	b := array.FromSlice([]float64{10, 20, 30}, 3)
	if err := Binary(a, a, b, OpAdd); err != nil {
		t.Fatal(err)
	}
	v, _ := a.HostReadOnly()
	want := []float64{11, 22, 33, 14, 25, 36}
	for i, x := range v.Data() {
		if x != want[i] {
			t.Fatalf("in-place add: %v, want %v", v.Data(), want)
		}
	}
}

func TestShapeMismatch(t *testing.T) {
	d := array.New[float32](4, 3)
	// Messages print NumPy's shapes: extents (4, 3) are shape (3, 4).
	mustPanicShape(t, func() { Binary(d, array.New[float32](4, 2), d, OpAdd) }, "(2, 4)", "(3, 4)")
	mustPanicShape(t, func() { Binary(d, d, array.New[float32](4, 3, 2), OpAdd) }, "(2, 3, 4)", "(3, 4)")
	mustPanicShape(t, func() { Sum(array.New[float32](3), d, -2) }, "(3,)", "(3, 4)")
	mustPanicShape(t, func() { MatMul(array.New[float32](2, 2), d, d) }, "(3, 4)", "(2, 2)")
	mustPanicShape(t, func() { Compare(array.New[uint8](5), d, d, LT) }, "(3, 4)", "(5,)")
	if _, err := Value(Min, array.New[float32](0, 3)); !errors.Is(err, array.ErrShape) {
		t.Errorf("MinAll of an empty Array: %v, want ErrShape", err)
	}
}
