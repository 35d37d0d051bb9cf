package npy_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// go test -run '^$' -bench . ./array/interop/npy
func BenchmarkReadWrite(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16, 1 << 22} {
		a := array.New[float32](n/64, 64)
		var file bytes.Buffer
		if err := npy.Write(&file, a); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("Write/dense/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(4 * n))
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := npy.Write(&buf, a); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Write/strided/%d", n), func(b *testing.B) {
			c := a.Crop(0, 0, n/64-1).Transpose(0, 1) // neither C nor Fortran order
			b.ReportAllocs()
			b.SetBytes(int64(4 * c.Len()))
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := npy.Write(&buf, c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Read/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				if _, err := npy.Read[float32](bytes.NewReader(file.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
