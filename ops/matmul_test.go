package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

func randArray[T Float](r *rand.Rand, ext ...int) *array.Array[T] {
	a := array.New[T](ext...)
	h, _ := a.Host()
	d := h.Data()
	for i := range d {
		d[i] = T(r.Float64()*2 - 1)
	}
	return a
}

// naiveMatMul is the float64 triple loop the tests compare against.
func naiveMatMul[T Float](a, b *array.Array[T], z int) [][]float64 {
	av, _ := a.HostReadOnly()
	bv, _ := b.HostReadOnly()
	K, M, N := a.Dim(0).Extent, a.Dim(1).Extent, b.Dim(0).Extent
	at := func(v array.ReadView[T], x, y int, arr *array.Array[T]) float64 {
		c := []int{arr.Dim(0).Min + x, arr.Dim(1).Min + y}
		if arr.Rank() == 3 {
			zz := z
			if arr.Dim(2).Extent == 1 {
				zz = 0
			}
			c = append(c, arr.Dim(2).Min+zz)
		}
		return float64(v.At(c...))
	}
	out := make([][]float64, M)
	for i := range out {
		out[i] = make([]float64, N)
		for jj := 0; jj < N; jj++ {
			s := 0.0
			for p := 0; p < K; p++ {
				s += at(av, p, i, a) * at(bv, jj, p, b)
			}
			out[i][jj] = s
		}
	}
	return out
}

func checkMatMul[T Float](t *testing.T, name string, dst, a, b *array.Array[T], tol float64) {
	t.Helper()
	if err := MatMul(dst, a, b); err != nil {
		t.Fatal(err)
	}
	dv, _ := dst.HostReadOnly()
	nb := 1
	if dst.Rank() == 3 {
		nb = dst.Dim(2).Extent
	}
	for z := 0; z < nb; z++ {
		want := naiveMatMul(a, b, z)
		for i := range want {
			for jj := range want[i] {
				c := []int{dst.Dim(0).Min + jj, dst.Dim(1).Min + i}
				if dst.Rank() == 3 {
					c = append(c, dst.Dim(2).Min+z)
				}
				got := float64(dv.At(c...))
				if math.Abs(got-want[i][jj]) > tol*float64(a.Dim(0).Extent+1) {
					t.Fatalf("%s: (%d,%d,%d) = %v, want %v", name, jj, i, z, got, want[i][jj])
				}
			}
		}
	}
}

func TestMatMulShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{1, 1, 1}, {5, 7, 3}, {6, 8, 16}, {13, 300, 17}, {70, 33, 129}, {7, 0, 5}} {
		M, K, N := s[0], s[1], s[2]
		checkMatMul(t, "f64", array.New[float64](N, M), randArray[float64](r, K, M), randArray[float64](r, N, K), 1e-14)
		checkMatMul(t, "f32", array.New[float32](N, M), randArray[float32](r, K, M), randArray[float32](r, N, K), 1e-6)
	}
}
