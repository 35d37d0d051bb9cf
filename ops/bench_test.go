package ops

// Benchmarks, each next to its peer and ceiling in the same run:
//
//	go test -run '^$' -bench . -benchmem ./ops
//
// MB/s counts bytes moved: reads plus writes (copy moves 2 bytes per byte
// copied, add 12 per float32 element, sum 4 or 8 per element read).

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gorgonia.org/tensor"
)

const memN = 1 << 24

// parallelCopy copies src to dst with w goroutines.
func parallelCopy(dst, src []byte, w int) {
	if w == 1 {
		copy(dst, src)
		return
	}
	var wg sync.WaitGroup
	n := len(src)
	for c := range w {
		lo, hi := n*c/w&^63, n*(c+1)/w&^63
		if c == w-1 {
			hi = n
		}
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	wg.Wait()
}

// benchCopy is the ceiling: a copy moving moved bytes (read + write), on
// one core and on all of them; the faster is the ceiling.
func benchCopy(b *testing.B, moved int) {
	src, dst := make([]byte, moved/2), make([]byte, moved/2)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src)
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		name := "copy-1core"
		if w > 1 {
			name = "copy-allcores"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(moved))
			for b.Loop() {
				parallelCopy(dst, src, w)
			}
		})
	}
}

func filled[T Float](n int) (*array.Array[T], []T) {
	a := array.New[T](n)
	h, _ := a.Host()
	d := h.Data()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range d {
		d[i] = T(r.Float64())
	}
	return a, d
}

// BenchmarkAddF32: float32 add of 2^24 elements (12 bytes moved each)
// against the copy of the same bytes and gorgonia tensor's Add.
func BenchmarkAddF32(b *testing.B) {
	benchCopy(b, 12*memN)
	x, xd := filled[float32](memN)
	y, yd := filled[float32](memN)
	d := array.New[float32](memN)
	b.Run("ops.Add", func(b *testing.B) {
		b.SetBytes(12 * memN)
		b.ReportAllocs()
		for b.Loop() {
			if err := Binary(d, x, y, OpAdd); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tensor.Add", func(b *testing.B) {
		tx := tensor.New(tensor.WithBacking(xd))
		ty := tensor.New(tensor.WithBacking(yd))
		tr := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(memN))
		b.SetBytes(12 * memN)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tx.Add(ty, tensor.WithReuse(tr)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSum: float32 and float64 sums of 2^24 elements against the copy
// of the same bytes and gonum's floats.Sum (float64; for float32 on the
// same number of bytes).
func BenchmarkSum(b *testing.B) {
	benchCopy(b, 8*memN)
	x32, _ := filled[float32](memN)
	x64, d64 := filled[float64](memN)
	var sink float64
	b.Run("ops.Value(Sum)-f32", func(b *testing.B) {
		b.SetBytes(4 * memN)
		b.ReportAllocs()
		for b.Loop() {
			s, _ := Value(Sum, x32)
			sink += float64(s)
		}
	})
	b.Run("ops.Value(Sum)-f64", func(b *testing.B) {
		b.SetBytes(8 * memN)
		b.ReportAllocs()
		for b.Loop() {
			s, _ := Value(Sum, x64)
			sink += s
		}
	})
	b.Run("floats.Sum-f64", func(b *testing.B) {
		b.SetBytes(8 * memN)
		b.ReportAllocs()
		for b.Loop() {
			sink += floats.Sum(d64)
		}
	})
	b.Run("floats.Sum-f64-halfn", func(b *testing.B) { // the bytes of the float32 sum
		b.SetBytes(4 * memN)
		for b.Loop() {
			sink += floats.Sum(d64[:memN/2])
		}
	})
	_ = sink
}

// BenchmarkMatMul: 1024² on random data against gonum's mat.Dense.Mul.
func BenchmarkMatMul(b *testing.B) {
	const n = 1024
	r := rand.New(rand.NewPCG(3, 4))
	flops := 2 * float64(n) * n * n
	gflops := func(b *testing.B) {
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	a, c, d := randArray[float64](r, n, n), randArray[float64](r, n, n), array.New[float64](n, n)
	b.Run("ops.MatMul-f64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MatMul(d, a, c)
		}
		gflops(b)
	})
	a32, c32, d32 := randArray[float32](r, n, n), randArray[float32](r, n, n), array.New[float32](n, n)
	b.Run("ops.MatMul-f32", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MatMul(d32, a32, c32)
		}
		gflops(b)
	})
	x, y := make([]float64, n*n), make([]float64, n*n)
	for i := range x {
		x[i], y[i] = r.Float64()*2-1, r.Float64()*2-1
	}
	ga, gc := mat.NewDense(n, n, x), mat.NewDense(n, n, y)
	var gd mat.Dense
	gd.Mul(ga, gc)
	b.Run("gonum.Mul-f64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gd.Mul(ga, gc)
		}
		gflops(b)
	})
}

// BenchmarkTranspose: transposing copy of a 2048² float32 Array against a
// dense copy of the same bytes.
func BenchmarkTranspose(b *testing.B) {
	const n = 2048
	benchCopy(b, 8*n*n)
	src2 := array.New[float32](n, n)
	h, _ := src2.Host()
	for i := range h.Data() {
		h.Data()[i] = float32(i)
	}
	tr := src2.Transpose(0, 1)
	dst := array.New[float32](n, n)
	b.Run("ops.Copy-transposed", func(b *testing.B) {
		b.SetBytes(8 * n * n)
		b.ReportAllocs()
		for b.Loop() {
			Copy(dst, tr)
		}
	})
	b.Run("ops.Copy-dense", func(b *testing.B) {
		b.SetBytes(8 * n * n)
		b.ReportAllocs()
		for b.Loop() {
			Copy(dst, src2)
		}
	})
}

// BenchmarkClock estimates the core clock from a chain of dependent
// one-cycle integer operations (8 per iteration), the fastest of many short
// runs (so that other load on the machine does not count), for the FMA
// peak: cores × GHz × 16 float64 FLOP/cycle with AVX2 (32 with AVX-512).
func BenchmarkClock(b *testing.B) {
	x := uint64(1)
	const iters = 1 << 16
	best := time.Hour
	for b.Loop() {
		for range 50 {
			start := time.Now()
			x = chain(x, 0x9e3779b97f4a7c15, iters)
			best = min(best, time.Since(start))
		}
	}
	b.ReportMetric(8*iters/float64(best.Nanoseconds()), "GHz")
	if x == 42 {
		b.Log(x)
	}
}

// chain runs n iterations of 8 dependent one-cycle operations on x.
//
//go:noinline
func chain(x, y uint64, n int) uint64 {
	for i := uint64(0); i < uint64(n); i++ {
		x += i
		x ^= y
		x += i
		x ^= y
		x += i
		x ^= y
		x += i
		x ^= y
	}
	return x
}

// BenchmarkValueLadder: Value(Sum, a) at small sizes, where its 0-D dst
// (pooled) and Fill could show against the reduction itself.
func BenchmarkValueLadder(b *testing.B) {
	for _, n := range []int{64, 1 << 10, 1 << 16} {
		x, _ := filled[float32](n)
		var sink float32
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			b.ReportAllocs()
			for b.Loop() {
				s, _ := Value(Sum, x)
				sink += s
			}
		})
		x.Close()
	}
}
