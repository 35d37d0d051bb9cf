package ops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

// srcValues returns test values of S: edge cases and random bits.
func srcValues[S array.Elem](r *rand.Rand) []S {
	var out []S
	switch kindOf[S]() {
	case kFloat, kHalf:
		negZero := math.Copysign(0, -1)
		for _, f := range []float64{0, negZero, 1, -1, 2.5, -2.7, 127.9, 128.2, -129.5, 255.5, 300.9, 65504, 65536.4, -40000,
			1e10, -1e10, 3e38, -3e38, 1e20, -9.3e18, 1.8e19, math.Inf(1), math.Inf(-1), math.NaN(),
			// Float16 rounding: ties to even, the overflow edge, subnormals
			2049, 65519.99, 65520, -65520, 6.1e-5, 1e-5, -6e-8, 0x1p-25, 0x1.8p-24, 0x1p-26,
			// BFloat16's largest, the tie above it; float32 and float64 subnormals
			3.3895e38, 3.3961776e38, 1e-40, -1e-310} {
			if kindOf[S]() == kHalf {
				out = append(out, fromF32[S](float32(f)))
			} else {
				out = append(out, S(f))
			}
		}
		for range 40 {
			f := r.NormFloat64() * math.Pow(2, float64(r.IntN(70)))
			if kindOf[S]() == kHalf {
				out = append(out, fromF32[S](float32(f)))
			} else {
				out = append(out, S(f))
			}
		}
	default:
		for range 60 {
			out = append(out, S(r.Uint64()>>r.IntN(64)))
			out = append(out, S(-int64(r.Uint64()>>r.IntN(64))))
		}
		for _, v := range []int64{0, 1, 2049, 65519, 65520, -65520, 1<<24 + 1, -(1<<53 + 1), math.MaxInt64, math.MinInt64} {
			out = append(out, S(v))
		}
		out = append(out, S(r.Uint64()|1<<63))
	}
	return out
}

// refCast converts one value with math/big, independently of cast.go.
func refCast[D, S array.Elem](x S, sat bool) D {
	sk, dk := kindOf[S](), kindOf[D]()
	var f float64
	var bi *big.Int
	if sk == kFloat || sk == kHalf {
		f = asF64(x)
	} else if sk == kSigned {
		bi = big.NewInt(int64(x))
	} else {
		bi = new(big.Int).SetUint64(uint64(x))
	}
	if dk == kFloat || dk == kHalf {
		if bi != nil {
			f, _ = new(big.Float).SetInt(bi).Float64()
		}
		if sat && !math.IsInf(f, 0) && f == f {
			lim := math.MaxFloat64
			switch {
			case dk == kHalf:
				lim = 65504
				if _, bf := any(D(0)).(array.BFloat16); bf {
					lim = float64(array.BFloat16(0x7f7f).Float32())
				}
			case sizeOf[D]() == 4:
				lim = math.MaxFloat32
			}
			f = math.Max(-lim, math.Min(f, lim))
		}
		if dk == kHalf {
			return fromF32[D](float32(f))
		}
		if sizeOf[D]() == 4 {
			return D(float32(f))
		}
		return D(f)
	}
	bits := uint(sizeOf[D]() * 8)
	if bi == nil {
		if f != f || (math.IsInf(f, 0) && !sat) {
			return 0
		}
		if math.IsInf(f, 0) {
			f = math.Copysign(1e300, f)
		}
		bi, _ = new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
	}
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), bits)
	if dk == kSigned {
		lo.Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
		hi.Lsh(big.NewInt(1), bits-1)
	}
	hi.Sub(hi, big.NewInt(1))
	if sat {
		if bi.Cmp(lo) < 0 {
			bi = lo
		}
		if bi.Cmp(hi) > 0 {
			bi = hi
		}
	}
	m := new(big.Int).Mod(bi, new(big.Int).Lsh(big.NewInt(1), bits)) // wrap
	return D(m.Uint64())
}

func testCastPair[D, S array.Elem](t *testing.T, r *rand.Rand) {
	xs := srcValues[S](r)
	src := array.FromSlice(xs, len(xs))
	for _, sat := range []bool{false, true} {
		dst := makeView(r, layouts[r.IntN(len(layouts))], []int{len(xs)}, func() D { return 0 })
		var err error
		if sat {
			err = CastSaturate(dst, src)
		} else {
			err = CastWrap(dst, src)
		}
		if err != nil {
			t.Fatal(err)
		}
		dv, _ := dst.HostReadOnly()
		for i, x := range xs {
			got, want := dv.At(dst.Dim(0).Min+i), refCast[D](x, sat)
			if !same(got, want) {
				t.Fatalf("cast %s → %s (saturate %v) of %v: got %v, want %v", typeName[S](), typeName[D](), sat, x, got, want)
			}
		}
	}
}

func testCastFrom[S array.Elem](t *testing.T, r *rand.Rand) {
	testCastPair[int8, S](t, r)
	testCastPair[int16, S](t, r)
	testCastPair[int32, S](t, r)
	testCastPair[int64, S](t, r)
	testCastPair[uint8, S](t, r)
	testCastPair[uint16, S](t, r)
	testCastPair[uint32, S](t, r)
	testCastPair[uint64, S](t, r)
	testCastPair[float32, S](t, r)
	testCastPair[float64, S](t, r)
	testCastPair[array.Float16, S](t, r)
	testCastPair[array.BFloat16, S](t, r)
}

func TestCastAllPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 31))
	forEachType(t, r, map[string]func(*testing.T, *rand.Rand){
		"int8": testCastFrom[int8], "int16": testCastFrom[int16], "int32": testCastFrom[int32], "int64": testCastFrom[int64],
		"uint8": testCastFrom[uint8], "uint16": testCastFrom[uint16], "uint32": testCastFrom[uint32], "uint64": testCastFrom[uint64],
		"float32": testCastFrom[float32], "float64": testCastFrom[float64],
		"float16": testCastFrom[array.Float16], "bfloat16": testCastFrom[array.BFloat16],
	})
}
