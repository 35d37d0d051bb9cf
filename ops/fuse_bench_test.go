package ops_test

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
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
	places := benchPlaces()
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
					if err := ops.BinaryScalar(f, f, scale, ops.OpMul); err != nil {
						b.Fatal(err)
					}
					if _, err := ops.Value(ops.Sum, f); err != nil {
						b.Fatal(err)
					}
				}
			})
			img.Close()
			f.Close()
		}
	}
}

// BenchmarkFuseCall is the cost of one fused call at sizes from a few
// elements (where compiling the expression is the call) to a large image:
// cast → scale → add → sqrt of a uint8 and a float32 Array, into dst
// (Eval) and summed (EvalSumAll), on the host and resident on OpenCL.
// allocs/op is the compile's:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run '^$' -bench FuseCall -benchtime 200ms ./ops
//
// MB/s counts the bytes read (5 per element). On OpenCL each call is
// timed to its completion (Sync: Eval's launch is asynchronous, and
// queued work would be charged to the next benchmark), and launches/op
// and transfers/op are the device's counters: 1 launch for Eval and for
// EvalSumAll (2 with ReduceTuning.TwoPass), no transfer (its result read is a kernel buffer's, not
// counted).
func BenchmarkFuseCall(b *testing.B) {
	places := benchPlaces()
	for _, pl := range places {
		for _, n := range []int{16, 1 << 10, 1 << 14, 1 << 18} {
			u := array.New[uint8](n)
			f := array.New[float32](n)
			dst := array.New[float32](n)
			if pl.d != nil {
				if err := ops.On(pl.d, u, f, dst); err != nil {
					b.Fatal(err)
				}
			}
			e := ops.AsType[float32](ops.In(u)).Scale(0.5).Binary(ops.OpAdd, ops.In(f)).Unary(ops.OpSqrt)
			if err := ops.Eval(dst, e); err != nil { // builds the kernels, outside the timing
				b.Fatal(err)
			}
			if _, err := ops.EvalSumAll(e); err != nil {
				b.Fatal(err)
			}
			counted := func(b *testing.B, call func() error) {
				b.SetBytes(int64(5 * n))
				b.ReportAllocs()
				var before device.Stats
				if pl.d != nil {
					if err := pl.d.Sync(); err != nil {
						b.Fatal(err)
					}
					before = pl.d.Stats()
				}
				for b.Loop() {
					if err := call(); err != nil {
						b.Fatal(err)
					}
					if pl.d != nil {
						if err := pl.d.Sync(); err != nil {
							b.Fatal(err)
						}
					}
				}
				if pl.d != nil {
					st := pl.d.Stats().Sub(before)
					b.ReportMetric(float64(st.Launches)/float64(b.N), "launches/op")
					b.ReportMetric(float64(st.H2DCalls+st.D2HCalls)/float64(b.N), "transfers/op")
				}
			}
			b.Run(fmt.Sprintf("%s/Eval/%d", pl.name, n), func(b *testing.B) {
				counted(b, func() error { return ops.Eval(dst, e) })
			})
			b.Run(fmt.Sprintf("%s/EvalSumAll/%d", pl.name, n), func(b *testing.B) {
				counted(b, func() error { _, err := ops.EvalSumAll(e); return err })
			})
			u.Close()
			f.Close()
			dst.Close()
		}
	}
}

// benchPlace is where a benchmark runs: the host (d nil) or a device.
type benchPlace struct {
	name string
	d    device.Device
}

// benchPlaces are the host and, where there are, the OpenCL device and
// the CUDA one with kernels.
func benchPlaces() []benchPlace {
	places := []benchPlace{{"host", nil}}
	if d, err := opencl.Default(); err == nil {
		places = append(places, benchPlace{"opencl", d})
	}
	if d, err := cuda.Default(); err == nil && device.BuildsOpenCLC(d.Caps()) {
		places = append(places, benchPlace{"cuda", d})
	}
	return places
}

// BenchmarkFuseDense is a fused cast → scale → sum over a contiguous
// uint8 run that starts at a multiple of 4 elements (the device's dense
// path: a 4-vector a step) against the same run one element further on
// (each element with its N-D offsets), resident on the devices in one
// run; the host has one path, so its two lines match:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run '^$' -bench FuseDense -benchtime 200ms ./ops
//
// MB/s counts the run's bytes.
func BenchmarkFuseDense(b *testing.B) {
	const n = 1 << 24
	for _, pl := range benchPlaces() {
		img := array.New[uint8](n + 4)
		v, _ := img.Host()
		for i := range v.Data() {
			v.Data()[i] = uint8(i * 7)
		}
		if pl.d != nil {
			if err := ops.On(pl.d, img); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range []struct {
			name string
			off  int
		}{{"aligned", 0}, {"offset1", 1}} {
			e := ops.AsType[float32](ops.In(img.Crop(0, c.off, n).SetMin(0))).Scale(1.0 / 255)
			b.Run(fmt.Sprintf("%s/%s", pl.name, c.name), func(b *testing.B) {
				b.SetBytes(n)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ops.EvalSumAll(e); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		img.Close()
	}
}
