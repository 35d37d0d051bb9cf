package ops

// Benchmarks of the ops along a dimension on float32, the NumPy peer
// measured in the same command by bench/along_numpy.py (the same ops,
// sizes and layouts; figures in bench/results/host-reduce-numpy.txt):
//
//	go test -run '^$' -bench 'Along' -benchmem ./ops && env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/along_numpy.py
//
// MB/s counts the input's bytes once.

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

// alongSizes is the ladder: elements, as a square of side √n (the
// along-a-dimension ops reduce rows of that side) and as one vector.
var alongSizes = []int{1 << 16, 1 << 20, 1 << 24}

func benchInput(n int) *array.Array[float32] {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
	}
	side := 1
	for side*side < n {
		side *= 2
	}
	return array.FromSlice(xs, side, n/side)
}

func BenchmarkAlongAll(b *testing.B) {
	for _, n := range alongSizes {
		a := benchInput(n)
		all := map[string]func() error{
			"VarAll":          func() error { _, err := ValueOp(Var, a, 0); return err },
			"StdAll":          func() error { _, err := ValueOp(Std, a, 0); return err },
			"NormL1All":       func() error { _, err := ValueOp(Norm, a, NormL1); return err },
			"NormL2All":       func() error { _, err := ValueOp(Norm, a, NormL2); return err },
			"NormMaxAll":      func() error { _, err := ValueOp(Norm, a, NormMax); return err },
			"LogSumExpAll":    func() error { _, err := Value(LogSumExp, a); return err },
			"CountNonzeroAll": func() error { _, err := Value(CountNonzero, a); return err },
			"AnyAll":          func() error { _, err := Value(Any, a); return err },
		}
		for _, name := range []string{"VarAll", "StdAll", "NormL1All", "NormL2All", "NormMaxAll", "LogSumExpAll", "CountNonzeroAll", "AnyAll"} {
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := all[name](); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAlongDim reduces, scans or normalizes the rows (dimension 0,
// NumPy's last axis) of a √n×√n matrix.
func BenchmarkAlongDim(b *testing.B) {
	for _, n := range alongSizes {
		a := benchInput(n)
		side := a.Dim(0).Extent
		red := array.New[float32](a.Dim(1).Extent)
		full := array.New[float32](side, a.Dim(1).Extent)
		ops := []struct {
			name string
			fn   func() error
		}{
			{"Var", func() error { return Var(red, a, -1, 0) }},
			{"NormL2", func() error { return Norm(red, a, -1, NormL2) }},
			{"LogSumExp", func() error { return LogSumExp(red, a, -1) }},
			{"Softmax", func() error { return Softmax(full, a, -1) }},
			{"CumSum", func() error { return CumSum(full, a, -1) }},
			{"SortRows", func() error { return Sort(full, a, -1) }},
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("%s/n=%d", op.name, n), func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := op.fn(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAlongSort sorts one vector of n elements (np.sort of a 1-D
// array), its argsort, and its top 100.
func BenchmarkAlongSort(b *testing.B) {
	for _, n := range alongSizes {
		src := benchInput(n)
		xs := make([]float32, n)
		v, _ := src.HostReadOnly()
		copy(xs, v.Data())
		a := array.FromSlice(xs, n)
		dst := array.New[float32](n)
		idx := array.New[int64](n)
		top := array.New[float32](100)
		ops := []struct {
			name string
			fn   func() error
		}{
			{"Sort", func() error { return Sort(dst, a, -1) }},
			{"ArgSort", func() error { return ArgSort(idx, a, -1) }},
			{"TopK100", func() error { return TopK(top, nil, a, -1) }},
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("%s/n=%d", op.name, n), func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := op.fn(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
