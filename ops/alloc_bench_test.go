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
				if err := ops.Add(dst, x, y); err != nil {
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
				c, err := ops.New2(ops.Add, x, y)
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
