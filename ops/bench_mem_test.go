package ops

import (
	"runtime"
	"sync"
	"testing"

	"github.com/resident-go/resident/array"
	"gorgonia.org/tensor"
)

const memN = 1 << 24

// parallelCopy copies src to dst with w goroutines, the all-core ceiling.
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

// benchCopy reports the copy of nbytes (read + write counted, as for the
// ops) with 1 goroutine and with all cores.
func benchCopy(b *testing.B, nbytes int) {
	src, dst := make([]byte, nbytes), make([]byte, nbytes)
	for i := range src {
		src[i] = byte(i)
	}
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		name := "copy/1core"
		if w > 1 {
			name = "copy/allcores"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(2 * nbytes))
			b.ReportAllocs()
			for b.Loop() {
				parallelCopy(dst, src, w)
			}
		})
	}
}

// BenchmarkAddF32 is float32 add on 2^24 elements (12 bytes moved per
// element) next to the copy of the same bytes and gorgonia tensor's Add.
func BenchmarkAddF32(b *testing.B) {
	benchCopy(b, 6*memN)
	x, y, d := array.New[float32](memN), array.New[float32](memN), array.New[float32](memN)
	xv, _ := x.Host()
	yv, _ := y.Host()
	for i, v := range xv.Data() {
		_ = v
		xv.Data()[i], yv.Data()[i] = float32(i), float32(2*i)
	}
	b.Run("ops", func(b *testing.B) {
		b.SetBytes(12 * memN)
		b.ReportAllocs()
		for b.Loop() {
			if err := Add(d, x, y); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tensor", func(b *testing.B) {
		tx := tensor.New(tensor.WithBacking(xv.Data()))
		ty := tensor.New(tensor.WithBacking(yv.Data()))
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
