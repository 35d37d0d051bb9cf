package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
)

// BenchmarkMathF32: the elementwise math ops on float32, a ladder of sizes
// up to 2^24 elements, the peer of bench/numpy_math.py (NumPy's ufuncs
// with out=, the same ops, sizes and value ranges). bench/math-numpy.sh
// runs both in one go and prints the ratios (bench/results/
// host-math-numpy.txt). MB/s counts bytes read plus written; best-ns/op
// is the fastest single call. random and standard_normal are the float32
// fills (RandUniform, RandNormal), NumPy's Generator.random and
// standard_normal. less, isnan, isinf, isfinite, where, clip,
// multiply_scalar, astype_f64 and astype_i32 are the elementwise ops with
// other result types or scalar operands: Compare (into uint8, NumPy's
// bool), the class tests, Where (its mask half ones, at drawn places, as
// NumPy's), Clip, BinaryScalar and CastWrap to float64 and int32; copyto
// and fill are Copy and Fill.
func BenchmarkMathF32(b *testing.B) {
	type mathOp struct {
		name string
		bin  bool
		run  func(d, x, y *array.Array[float32]) error
	}
	var u8 *array.Array[uint8]    // the uint8 results, made per size
	var f64 *array.Array[float64] // astype_f64's
	var i32 *array.Array[int32]   // astype_i32's
	var cm *array.Array[uint8]    // where's mask: 0 or 1, drawn
	un := func(op UnaryOp) func(d, x, y *array.Array[float32]) error {
		return func(d, x, _ *array.Array[float32]) error { return Unary(d, x, op) }
	}
	bin := func(op BinaryOp) func(d, x, y *array.Array[float32]) error {
		return func(d, x, y *array.Array[float32]) error { return Binary(d, x, y, op) }
	}
	ops := []mathOp{
		{"sin", false, un(OpSin)},
		{"exp", false, un(OpExp)},
		{"tanh", false, un(OpTanh)},
		{"sigmoid", false, un(OpSigmoid)},
		{"floor", false, un(OpFloor)},
		{"round", false, un(OpRound)},
		{"pow", true, bin(OpPow)},
		{"add", true, bin(OpAdd)},
		{"maximum", true, bin(OpMax)},
		{"mod", true, bin(OpMod)},
		// the rest of Unary's NumPy ufuncs, on z in [−0.5, 0.5) (inside
		// arcsin's domain) or, for log and sqrt, y
		{"abs", false, un(OpAbs)},
		{"negative", false, un(OpNeg)},
		{"sqrt", false, un(OpSqrt)},
		{"log", false, un(OpLog)},
		{"log1p", false, un(OpLog1p)},
		{"expm1", false, un(OpExpm1)},
		{"tan", false, un(OpTan)},
		{"arcsin", false, un(OpAsin)},
		{"arccos", false, un(OpAcos)},
		{"arctan", false, un(OpAtan)},
		{"sinh", false, un(OpSinh)},
		{"cosh", false, un(OpCosh)},
		{"sign", false, un(OpSign)},
		{"cos", false, un(OpCos)},
		{"ceil", false, un(OpCeil)},
		{"trunc", false, un(OpTrunc)},
		{"relu", false, un(OpRelu)},
		{"softplus", false, un(OpSoftplus)},
		{"subtract", true, bin(OpSub)},
		{"multiply", true, bin(OpMul)},
		{"divide", true, bin(OpDiv)},
		{"minimum", true, bin(OpMin)},
		{"less", true, func(_, x, y *array.Array[float32]) error { return Compare(u8, x, y, LT) }},
		{"isnan", false, func(_, x, _ *array.Array[float32]) error { return IsNaN(u8, x) }},
		{"clip", false, func(d, x, _ *array.Array[float32]) error { return Clip(d, x, -1, 1) }},
		{"multiply_scalar", false, func(d, x, _ *array.Array[float32]) error { return BinaryScalar(d, x, 2, OpMul) }},
		{"astype_f64", false, func(_, x, _ *array.Array[float32]) error { return CastWrap(f64, x) }},
		{"astype_i32", false, func(_, x, _ *array.Array[float32]) error { return CastWrap(i32, x) }},
		{"isinf", false, func(_, x, _ *array.Array[float32]) error { return IsInf(u8, x) }},
		{"isfinite", false, func(_, x, _ *array.Array[float32]) error { return IsFinite(u8, x) }},
		{"where", true, func(d, x, y *array.Array[float32]) error { return Where(d, cm, x, y) }},
		{"copyto", false, func(d, x, _ *array.Array[float32]) error { return Copy(d, x) }},
		{"fill", false, func(d, _, _ *array.Array[float32]) error { return Fill(d, 1.5) }},
		// NumPy's Generator.random and standard_normal into out=
		{"random", false, func(d, _, _ *array.Array[float32]) error { return RandUniform(d, 1, 0) }},
		{"standard_normal", false, func(d, _, _ *array.Array[float32]) error { return RandNormal(d, 1, 0) }},
	}
	for _, n := range []int{1 << 16, 1 << 20, 1 << 24} {
		// x in [−4, 4) (Pow's base in [0.5, 1.5)), y in [0.5, 1.5), z = y − 1
		x, y, z, d := array.New[float32](n), array.New[float32](n), array.New[float32](n), array.New[float32](n)
		u8, f64, i32, cm = array.New[uint8](n), array.New[float64](n), array.New[int32](n), array.New[uint8](n)
		ch, _ := cm.Host()
		cr := rand.New(rand.NewPCG(3, 4))
		for i := range n { // half ones, at drawn places (Perm's n ints took 128 MiB at 2^24)
			ch.Set(uint8(cr.Uint32()&1), i)
		}
		xh, _ := x.Host()
		yh, _ := y.Host()
		zh, _ := z.Host()
		r := rand.New(rand.NewPCG(1, 2))
		xs, ys, zs := xh.Data(), yh.Data(), zh.Data()
		for i := range xs {
			xs[i], ys[i] = r.Float32()*8-4, r.Float32()+0.5
			zs[i] = ys[i] - 1
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("%s/n=%d", op.name, n), func(b *testing.B) {
				a1, a2 := x, y
				moved := 8
				if op.bin {
					moved = 12
				}
				switch op.name {
				case "pow":
					a1, a2 = y, x
				case "log", "sqrt":
					a1 = y
				case "log1p", "expm1", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "sign", "abs", "negative", "relu":
					a1 = z
				}
				switch {
				case strings.HasPrefix(op.name, "rand") || strings.HasPrefix(op.name, "standard"):
					moved = 4
				case op.name == "less":
					moved = 9
				case op.name == "isnan" || op.name == "isinf" || op.name == "isfinite":
					moved = 5
				case op.name == "where":
					moved = 13
				case op.name == "fill":
					moved = 4
				case op.name == "astype_f64":
					moved = 12
				}
				b.SetBytes(int64(moved * n))
				b.ReportAllocs()
				// best-ns/op: the fastest call, the statistic NumPy's
				// side reports (its best of several runs); on a loaded
				// machine the mean (ns/op) counts the time the OS took.
				best := time.Duration(math.MaxInt64)
				for b.Loop() {
					t0 := time.Now()
					if err := op.run(d, a1, a2); err != nil {
						b.Fatal(err)
					}
					best = min(best, time.Since(t0))
				}
				b.ReportMetric(float64(best.Nanoseconds()), "best-ns/op")
			})
		}
		x.Close()
		y.Close()
		z.Close()
		d.Close()
		u8.Close()
		cm.Close()
		f64.Close()
		i32.Close()
	}
}
