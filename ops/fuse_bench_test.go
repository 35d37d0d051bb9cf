package ops_test

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
)

// BenchmarkFuseMixed is the mixed chain's tail, cast → scale → sum of a
// uint8 image, fused (EvalSumAll: one pass) against op by op (CastWrap,
// MulScalar, SumAll: a float32 image written, read and written, read), on
// the host and resident on OpenCL (PoCL in CI), in one run:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run '^$' -bench FuseMixed -benchtime 200ms ./ops
//
// MB/s counts the image's bytes.
func BenchmarkFuseMixed(b *testing.B) {
	const scale = float32(1.0 / 255)
	places := []struct {
		name string
		d    device.Device
	}{{"host", nil}}
	if d, err := opencl.Default(); err == nil {
		places = append(places, struct {
			name string
			d    device.Device
		}{"opencl", d})
	}
	for _, pl := range places {
		for _, n := range []int{512, 1024, 2048, 4096} {
			img := image(n, n)
			f := array.New[float32](n, n)
			if pl.d != nil {
				if err := ops.On(pl.d, img, f); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%s/%d²/fused", pl.name, n), func(b *testing.B) {
				b.SetBytes(int64(n * n))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ops.EvalSumAll(ops.AsType[float32](ops.In(img)).Scale(scale)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/%d²/op-by-op", pl.name, n), func(b *testing.B) {
				b.SetBytes(int64(n * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := ops.CastWrap(f, img); err != nil {
						b.Fatal(err)
					}
					if err := ops.MulScalar(f, f, scale); err != nil {
						b.Fatal(err)
					}
					if _, err := ops.SumAll(f); err != nil {
						b.Fatal(err)
					}
				}
			})
			img.Close()
			f.Close()
		}
	}
}
