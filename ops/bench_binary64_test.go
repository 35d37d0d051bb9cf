package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

// BenchmarkBinaryF64: float64 Binary ops and BinaryScalar(Mul), (Pow) by 2
// into a dst
// made once, over x in [−4, 4) and y in [0.5, 1.5) (Pow: y to the x), as
// BenchmarkMathF32 draws its float32 operands. bench/math64-numpy.sh runs
// NumPy's ufuncs on the same values beside it (bench/results/
// host-math64.txt).
func BenchmarkBinaryF64(b *testing.B) {
	ops := []struct {
		name string
		op   BinaryOp
	}{{"Add", OpAdd}, {"Sub", OpSub}, {"Mul", OpMul}, {"Div", OpDiv}, {"Minimum", OpMin},
		{"Maximum", OpMax}, {"Pow", OpPow}, {"Mod", OpMod}, {"MulScalar", OpMul}, {"PowScalar2", OpPow}}
	for _, n := range []int{1 << 16, 1 << 20, 1 << 24} {
		r := rand.New(rand.NewPCG(1, 2))
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i], ys[i] = r.Float64()*8-4, r.Float64()+0.5
		}
		x, y, d := array.FromSlice(xs, n), array.FromSlice(ys, n), array.New[float64](n)
		for _, o := range ops {
			b.Run(fmt.Sprintf("%s/n=%d", o.name, n), func(b *testing.B) {
				b.SetBytes(int64(24 * n))
				run := func() error { return Binary(d, x, y, o.op) }
				switch o.name {
				case "Pow":
					run = func() error { return Binary(d, y, x, o.op) }
				case "MulScalar", "PowScalar2": // x·2, x^2
					b.SetBytes(int64(16 * n))
					run = func() error { return BinaryScalar(d, x, 2, o.op) }
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		d.Close()
	}
}
