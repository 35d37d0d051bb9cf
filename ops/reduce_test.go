package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

// sumTol is the documented tolerance of a float sum of values whose
// absolute values add up to mag, for T.
func sumTol[T array.Elem](mag float64, n int) float64 {
	switch kindOf[T]() {
	case kHalf:
		if _, bf := any(T(0)).(array.BFloat16); bf {
			return mag * 0x1p-8
		}
		return mag * 0x1p-11
	case kFloat:
		if sizeOf[T]() == 4 {
			return mag * 0x1p-24
		}
		return mag * float64(2*bitsLen(n)+40) * 0x1p-53
	}
	return 0
}

func bitsLen(n int) int {
	b := 0
	for n > 0 {
		b++
		n >>= 1
	}
	return b
}

func asF64[T array.Elem](x T) float64 {
	if kindOf[T]() == kHalf {
		return float64(toF32(x))
	}
	return float64(x)
}

// refReduce folds xs like the op's definition, in float64 for floats and
// wrapping T arithmetic for integers; it returns the value and (for the
// arguments) the index of the first extreme.
func refReduce[T array.Elem](op reduceOp, xs []T) (float64, T, int) {
	k := kindOf[T]()
	isF := k == kFloat || k == kHalf
	switch op {
	case redSum, redMean:
		var s float64
		var w T
		for _, x := range xs {
			s += asF64(x)
			w += x
		}
		if op == redMean {
			s /= float64(len(xs))
			if !isF {
				return s, T(math.Trunc(s)), 0
			}
		}
		return s, w, 0
	case redProd:
		p := 1.0
		var w T = 1
		for _, x := range xs {
			p *= asF64(x)
			w *= x
		}
		return p, w, 0
	}
	bi := 0
	for i, x := range xs {
		if better(op, k, x, xs[bi]) {
			bi = i
		}
	}
	return asF64(xs[bi]), xs[bi], bi
}

func checkReduced[T array.Elem](t *testing.T, what string, op reduceOp, got T, xs []T) {
	t.Helper()
	want, wantT, _ := refReduce(op, xs)
	k := kindOf[T]()
	if k == kSigned || k == kUnsigned || op == redMin || op == redMax {
		if !same(got, wantT) {
			t.Fatalf("%s %s %s: got %v, want %v", typeName[T](), reduceNames[op], what, got, wantT)
		}
		return
	}
	mag := 0.0
	for _, x := range xs {
		mag += math.Abs(asF64(x))
	}
	tol := sumTol[T](mag, len(xs))
	if op == redMean {
		tol /= float64(len(xs))
	}
	if op == redProd {
		tol = math.Abs(want) * 1e-12
		if k == kHalf || sizeOf[T]() == 4 {
			tol = math.Abs(want) * 0x1p-7
		}
		if k == kHalf {
			tol = math.Max(tol, 0x1p-24) // Float16's smallest subnormal
		}
	}
	if d := math.Abs(asF64(got) - want); !(d <= tol) && !(math.IsNaN(want) && asF64(got) != asF64(got)) {
		t.Fatalf("%s %s %s: got %v, want %v (|Δ| %g > tol %g)", typeName[T](), reduceNames[op], what, got, want, d, tol)
	}
}

func testReduce[T array.Elem](t *testing.T, r *rand.Rand) {
	for _, ext := range [][]int{{7}, {5, 4}, {300, 3}, {3, 4, 5}, {1, 6}} {
		for op := redSum; op <= redArgMax; op++ {
			g := gen[T](r, false)
			if op == redProd && kindOf[T]() == kFloat {
				g = func() T { return T(0.5 + r.Float64()) }
			} else if op == redProd && kindOf[T]() == kHalf {
				g = func() T { return fromF32[T](float32(0.5 + r.Float64())) }
			}
			a := makeView(r, layouts[r.IntN(len(layouts))], ext, g)
			av, _ := a.HostReadOnly()
			for dim := range ext {
				oext := append(append([]int(nil), ext[:dim]...), ext[dim+1:]...)
				// the values along dim at an output position
				along := func(opos []int) []T {
					pos := append(append(append([]int(nil), opos[:dim]...), 0), opos[dim:]...)
					xs := make([]T, ext[dim])
					for i := range xs {
						pos[dim] = i
						xs[i] = av.At(coordsOf(a, pos)...)
					}
					return xs
				}
				if op == redArgMin || op == redArgMax {
					d := makeView(r, layouts[r.IntN(len(layouts))], oext, func() int64 { return 0 })
					if err := reduce(op, d, a, dim); err != nil {
						t.Fatal(err)
					}
					dv, _ := d.HostReadOnly()
					forEachPos(oext, func(opos []int) {
						_, _, wi := refReduce(op, along(opos))
						if got := dv.At(coordsOf(d, opos)...); got != int64(wi+a.Dim(dim).Min) {
							t.Fatalf("%s %s dim %d at %v: %d, want %d", typeName[T](), reduceNames[op], dim, opos, got, wi+a.Dim(dim).Min)
						}
					})
					continue
				}
				d := makeView(r, layouts[r.IntN(len(layouts))], oext, func() T { return 0 })
				if err := reduce(op, d, a, dim); err != nil {
					t.Fatal(err)
				}
				dv, _ := d.HostReadOnly()
				forEachPos(oext, func(opos []int) {
					checkReduced(t, "along a dim", op, dv.At(coordsOf(d, opos)...), along(opos))
				})
			}
			// every element
			var xs []T
			forEachPos(ext, func(pos []int) { xs = append(xs, av.At(coordsOf(a, pos)...)) })
			switch op {
			case redArgMin, redArgMax:
				c, err := reduceAllArg(op, a)
				if err != nil {
					t.Fatal(err)
				}
				want, _, _ := refReduce(op, xs)
				if got := asF64(av.At(c...)); got != want && !(got != got && want != want) {
					t.Fatalf("%s %sAll: element at %v is %v, want %v", typeName[T](), reduceNames[op], c, got, want)
				}
			default:
				got, err := reduceAllValue(op, a)
				if err != nil {
					t.Fatal(err)
				}
				checkReduced(t, "all", op, got, xs)
			}
		}
	}
}

func TestReduceAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 21))
	forEachType(t, r, map[string]func(*testing.T, *rand.Rand){
		"int8": testReduce[int8], "int16": testReduce[int16], "int32": testReduce[int32], "int64": testReduce[int64],
		"uint8": testReduce[uint8], "uint16": testReduce[uint16], "uint32": testReduce[uint32], "uint64": testReduce[uint64],
		"float32": testReduce[float32], "float64": testReduce[float64],
		"float16": testReduce[array.Float16], "bfloat16": testReduce[array.BFloat16],
	})
}

// TestSumAccuracy sums many float32 values of mixed magnitude, dense and
// strided, in parallel, against a float64 reference.
func TestSumAccuracy(t *testing.T) {
	n := 1 << 21
	if testing.Short() || raceEnabled {
		n = 1 << 17
	}
	r := rand.New(rand.NewPCG(22, 23))
	for _, layout := range []string{"dense", "crop"} {
		a32 := makeViewFast[float32](r, layout, []int{n / 32, 32})
		a64 := makeViewFast[float64](r, layout, []int{n / 32, 32})
		for _, v := range []*array.Array[float64]{a64} {
			h, _ := v.Host()
			d := h.Data()
			for i := range d {
				d[i] = (r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(12)-6))
			}
		}
		check := func(name string, got, ref, mag, tol float64) {
			if math.Abs(got-ref) > tol*mag {
				t.Fatalf("%s %s: sum %v, reference %v: |Δ|/Σ|x| = %g > %g", layout, name, got, ref, math.Abs(got-ref)/mag, tol)
			}
		}
		v32, _ := a32.HostReadOnly()
		var ref, mag float64
		forEachPos([]int{n / 32, 32}, func(p []int) {
			x := float64(v32.At(coordsOf(a32, p)...))
			ref += x
			mag += math.Abs(x)
		})
		s32, _ := Value(Sum, a32)
		check("float32", float64(s32), ref, mag, 0x1p-24)
		v64, _ := a64.HostReadOnly()
		// reference: float64 pairs of Kahan-compensated sums
		var s, c float64
		mag = 0
		forEachPos([]int{n / 32, 32}, func(p []int) {
			x := v64.At(coordsOf(a64, p)...)
			y := x - c
			tt := s + y
			c = (tt - s) - y
			s = tt
			mag += math.Abs(x)
		})
		s64, _ := Value(Sum, a64)
		check("float64", s64, s, mag, float64(bitsLen(n)+40)*0x1p-53)
	}
}

// TestSumProperty: the sum over all dimensions equals the sum of the sums
// along dimension 0, then 1, within the tolerance.
func TestSumProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 25))
	for range 10 {
		ext := []int{1 + r.IntN(100), 1 + r.IntN(30), 1 + r.IntN(4)}
		a := makeView(r, layouts[r.IntN(5)], ext, gen[float64](r, false))
		all, err := Value(Sum, a)
		if err != nil {
			t.Fatal(err)
		}
		s0 := array.New[float64](ext[1], ext[2])
		if err := Sum(s0, a, -1); err != nil {
			t.Fatal(err)
		}
		s01 := array.New[float64](ext[2])
		if err := Sum(s01, s0, -1); err != nil {
			t.Fatal(err)
		}
		total, err := Value(Sum, s01)
		if err != nil {
			t.Fatal(err)
		}
		mag := 0.0
		av, _ := a.HostReadOnly()
		forEachPos(ext, func(p []int) { mag += math.Abs(av.At(coordsOf(a, p)...)) })
		if math.Abs(all-total) > mag*1e-14 {
			t.Fatalf("sum all %v, sum of sums %v", all, total)
		}
	}
}

func TestReduceKeepDims(t *testing.T) {
	a := array.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 3, 2)
	d := array.New[int32](1, 2)
	if err := Sum(d, a, -1); err != nil {
		t.Fatal(err)
	}
	v, _ := d.HostReadOnly()
	if v.At(0, 0) != 6 || v.At(0, 1) != 15 {
		t.Fatalf("keepdims sum: %v", v.Data())
	}
}
