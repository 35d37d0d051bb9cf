package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
	"gonum.org/v1/gonum/mat"
)

func BenchmarkMatMul(b *testing.B) {
	const n = 1024
	r := rand.New(rand.NewPCG(3, 4))
	flops := 2 * float64(n) * n * n
	b.Run("f64/ops", func(b *testing.B) {
		a, c, d := randArray[float64](r, n, n), randArray[float64](r, n, n), array.New[float64](n, n)
		b.ReportAllocs()
		for b.Loop() {
			MatMul(d, a, c)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("f32/ops", func(b *testing.B) {
		a, c, d := randArray[float32](r, n, n), randArray[float32](r, n, n), array.New[float32](n, n)
		b.ReportAllocs()
		for b.Loop() {
			MatMul(d, a, c)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("f64/gonum", func(b *testing.B) {
		x, y := make([]float64, n*n), make([]float64, n*n)
		for i := range x {
			x[i], y[i] = r.Float64(), r.Float64()
		}
		a, c := mat.NewDense(n, n, x), mat.NewDense(n, n, y)
		var d mat.Dense
		d.Mul(a, c)
		b.ReportAllocs()
		for b.Loop() {
			d.Mul(a, c)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
