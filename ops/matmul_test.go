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
	K, M, N := a.Dim(0).Extent, a.Dim(1).Extent, b.Dim(0).Extent
	// plain float64 copies of batch z, read once through the views
	read := func(x *array.Array[T], w, h int) []float64 {
		v, _ := x.HostReadOnly()
		out := make([]float64, w*h)
		c := make([]int, x.Rank())
		if x.Rank() == 3 {
			c[2] = x.Dim(2).Min
			if x.Dim(2).Extent > 1 {
				c[2] += z
			}
		}
		for y := 0; y < h; y++ {
			for i := 0; i < w; i++ {
				c[0], c[1] = x.Dim(0).Min+i, x.Dim(1).Min+y
				out[y*w+i] = float64(v.At(c...))
			}
		}
		return out
	}
	av, bv := read(a, K, M), read(b, N, K)
	out := make([][]float64, M)
	for i := range out {
		out[i] = make([]float64, N)
		for jj := 0; jj < N; jj++ {
			s := 0.0
			for p := 0; p < K; p++ {
				s += av[i*K+p] * bv[p*N+jj]
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

// TestKernelVariants runs the kernels of every level this CPU has (AVX-512
// and AVX2 matmul, assembly and portable Go) in one test binary, so CI on
// an AVX-512 machine covers the AVX2 kernels too.
func TestKernelVariants(t *testing.T) {
	saveAsm, save512 := useAsm, useAVX512
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	for _, v := range []struct {
		name          string
		asm, avx512ok bool
	}{{"avx512", true, true}, {"avx2", true, false}, {"portable", false, false}} {
		if (v.asm && !hasAVX2) || (v.avx512ok && !hasAVX512) {
			continue
		}
		useAsm, useAVX512 = v.asm, v.avx512ok
		t.Run(v.name, func(t *testing.T) {
			TestMatMulShapes(t)
			r := rand.New(rand.NewPCG(5, 6))
			for _, n := range []int{1, 15, 16, 17, 1000} {
				a, b := randArray[float64](r, n), randArray[float64](r, n)
				d := array.New[float64](n)
				Binary(d, a, b, OpSub)
				av, _ := a.HostReadOnly()
				bv, _ := b.HostReadOnly()
				dv, _ := d.HostReadOnly()
				for i := range dv.Data() {
					if dv.Data()[i] != av.Data()[i]-bv.Data()[i] {
						t.Fatalf("%s Sub n=%d at %d", v.name, n, i)
					}
				}
				s, _ := Value(Sum, a)
				ref := 0.0
				for _, x := range av.Data() {
					ref += x
				}
				if math.Abs(s-ref) > 1e-12*float64(n) {
					t.Fatalf("%s SumAll n=%d: %v, want %v", v.name, n, s, ref)
				}
			}
		})
	}
}
