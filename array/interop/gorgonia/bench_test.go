package gorgonia_test

import (
	"fmt"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
)

// Zero-copy conversions cost the same at every size:
//
//	go test -run '^$' -bench . ./array/interop/gorgonia
func BenchmarkConvert(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16, 1 << 22} {
		a := array.New[float32](n/64, 64)
		d := tensor.New(tensor.WithShape(64, n/64), tensor.WithBacking(make([]float32, n)))
		b.Run(fmt.Sprintf("ToDense/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rg.ToDense(a); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("FromDense/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rg.FromDense[float32](d); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("ToDenseCopy/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				if _, err := rg.ToDenseCopy(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
