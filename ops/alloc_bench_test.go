package ops_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// BenchmarkNew2: the allocating form against the dst-first op into a dst
// made once (the peer), on the host: the price of a new result. best-ns/op
// is the fastest call (a loaded machine's steadier figure).
//
//	go test -run '^$' -bench 'New2|Concatenate' -benchmem ./ops
func BenchmarkNew2(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
		x, y := array.New[float32](n), array.New[float32](n)
		b.Run(fmt.Sprintf("dst-first/%d", n), func(b *testing.B) {
			dst := array.New[float32](n)
			b.SetBytes(int64(12 * n))
			b.ReportAllocs()
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				t0 := time.Now()
				if err := ops.Binary(dst, x, y, ops.OpAdd); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns/op")
			dst.Close()
		})
		b.Run(fmt.Sprintf("New2/%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			b.ReportAllocs()
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				t0 := time.Now()
				c, err := ops.New2Op(ops.Binary, x, y, ops.OpAdd)
				if err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0))
				c.Close()
			}
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns/op")
		})
	}
}

// BenchmarkConcatenate: joining two halves along the outer axis against
// one Copy of the same bytes (the peer).
func BenchmarkConcatenate(b *testing.B) {
	for _, n := range []int{1 << 6, 1 << 9} {
		x, y := array.Zeros[float32](n, n), array.Zeros[float32](n, n)
		b.Run(fmt.Sprintf("Copy/%d", n), func(b *testing.B) {
			dst := array.Zeros[float32](2*n, n)
			b.SetBytes(int64(16 * n * n))
			b.ReportAllocs()
			for b.Loop() {
				if err := ops.Copy(dst.Crop(1, 0, n), x); err != nil {
					b.Fatal(err)
				}
				if err := ops.Copy(dst.Crop(1, n, n), y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Concatenate/%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n * n))
			b.ReportAllocs()
			for b.Loop() {
				c, err := ops.Concatenate(0, x, y)
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}

// BenchmarkAllocForms: each allocating form against its dst-first op
// into a dst made once (the peer), in one run, at 2^16, 2^20 and 2^24
// float32, in the loop a NumPy user writes: a new result each iteration,
// dropped ("drop": the collector finds it) or closed ("close"). The
// forms: New2(Add), New1(Neg) and NewReduce(Sum) along the last axis of
// (n/256, 256). best-ns/op is the fastest call.
//
//	go test -run '^$' -bench AllocForms -benchmem ./ops
func BenchmarkAllocForms(b *testing.B) {
	timed := func(b *testing.B, bytes int, call func() *array.Array[float32], closeIt bool) {
		b.SetBytes(int64(bytes))
		b.ReportAllocs()
		best := time.Duration(math.MaxInt64)
		for b.Loop() {
			t0 := time.Now()
			c := call()
			best = min(best, time.Since(t0))
			if closeIt {
				c.Close()
			}
		}
		b.ReportMetric(float64(best.Nanoseconds()), "best-ns/op")
	}
	must := func(c *array.Array[float32], err error) *array.Array[float32] {
		if err != nil {
			panic(err)
		}
		return c
	}
	for _, lg := range []int{16, 20, 24} {
		n := 1 << lg
		x, y := array.Full[float32](1.5, n), array.Full[float32](2, n) // touched: no zero pages
		m := must(x.Reshape(n/256, 256))
		forms := []struct {
			name  string
			bytes int
			dst   *array.Array[float32]
			first func(dst *array.Array[float32]) error
			alloc func() (*array.Array[float32], error)
		}{
			{"Add", 12 * n, array.New[float32](n),
				func(d *array.Array[float32]) error { return ops.Binary(d, x, y, ops.OpAdd) },
				func() (*array.Array[float32], error) { return ops.New2Op(ops.Binary, x, y, ops.OpAdd) }},
			{"Neg", 8 * n, array.New[float32](n),
				func(d *array.Array[float32]) error { return ops.Unary(d, x, ops.OpNeg) },
				func() (*array.Array[float32], error) { return ops.New1Op(ops.Unary, x, ops.OpNeg) }},
			{"Sum", 4*n + 4*n/256, array.New[float32](n / 256),
				func(d *array.Array[float32]) error { return ops.Sum(d, m, -1) },
				func() (*array.Array[float32], error) { return ops.NewReduce(ops.Sum, m, -1) }},
		}
		for _, f := range forms {
			b.Run(fmt.Sprintf("%s/2^%d/dst-first", f.name, lg), func(b *testing.B) {
				timed(b, f.bytes, func() *array.Array[float32] {
					if err := f.first(f.dst); err != nil {
						panic(err)
					}
					return f.dst
				}, false)
			})
			b.Run(fmt.Sprintf("%s/2^%d/drop", f.name, lg), func(b *testing.B) {
				timed(b, f.bytes, func() *array.Array[float32] { return must(f.alloc()) }, false)
			})
			b.Run(fmt.Sprintf("%s/2^%d/close", f.name, lg), func(b *testing.B) {
				timed(b, f.bytes, func() *array.Array[float32] { return must(f.alloc()) }, true)
			})
			f.dst.Close()
		}
		x.Close()
		y.Close()
	}
}
