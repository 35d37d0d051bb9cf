package stream_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/capture"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	tdraw "github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/ops"
)

// TestCaptureStream records drawn streamed chains (bands, slots, cuts,
// stages) of brighter over pinned images and replays them: a replay
// leaves the chain's output for the source as it is then (the model: each
// stage adds its k, saturating), equal to an eager Run's; a closed Stream
// makes the next replay fail; no event stays live. On the default OpenCL
// device (PoCL here: the recorded queue work) and on a CUDA GPU (one
// graph; the mock runs no kernels and records one stream).
func TestCaptureStream(t *testing.T) {
	ds := brighterDevices()
	if len(ds) == 0 {
		t.Skip("no OpenCL device or CUDA GPU")
	}
	for _, x := range ds {
		t.Run(x.api, func(t *testing.T) { captureStream(t, x.d, x.p) })
	}
}

func captureStream(t *testing.T, d device.Device, pipe *halide.Pipeline) {
	hd := d.(device.HostAllocator)
	st, _, _ := plumb.StreamsOf(d)
	r := rand.New(rand.NewPCG(tdraw.Seed(t), 37))
	for c := range 6 {
		w, h := 64+r.IntN(300), 4+r.IntN(60)
		o := stream.Options{Device: d, Bands: 1 + r.IntN(6), Slots: 1 + r.IntN(3)}
		if r.IntN(2) == 0 {
			o.Last = 0.25
		}
		var ks []uint8
		var steps []stream.Step
		for range 1 + r.IntN(4) {
			k := uint8(r.IntN(7))
			ks = append(ks, k)
			steps = append(steps, must(t, pipe, k))
		}
		name := fmt.Sprintf("case %d (%d×%d, %+v, ks %v)", c, w, h, o, ks)
		src, err := array.NewIn[uint8](hd, w, h)
		if err != nil {
			t.Fatal(err)
		}
		dst, _ := array.NewIn[uint8](hd, w, h)
		s, err := stream.New(o, steps...)
		if err != nil {
			t.Fatal(err)
		}
		fill := func() []uint8 {
			v, _ := src.Host()
			want := make([]uint8, w*h)
			for i := range want {
				x := uint8(r.IntN(256))
				v.Data()[i] = x
				for _, k := range ks {
					x = uint8(min(int(x)+int(k), 255))
				}
				want[i] = x
			}
			return want
		}
		check := func(what string, want []uint8) {
			t.Helper()
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			v, _ := dst.HostReadOnly()
			for i := range want {
				if v.Data()[i] != want[i] {
					t.Fatalf("%s, %s: dst[%d] = %d, want %d", name, what, i, v.Data()[i], want[i])
				}
			}
		}
		want := fill()
		if err := s.Run(dst, src); err != nil { // eager: kernels loaded, buffers made
			t.Fatal(err)
		}
		check("eager", want)
		want = fill()
		g, err := capture.Record(d, func() error { return s.Run(dst, src) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check("recorded", want)
		for rep := range 1 + r.IntN(3) {
			want = fill()
			replayMoves(t, d, g, w*h, w*h)
			check(fmt.Sprintf("replay %d (%s of %d nodes)", rep, g.Kind(), g.Nodes()), want)
		}
		want = fill() // an eager Run after the replays
		if err := s.Run(dst, src); err != nil {
			t.Fatal(err)
		}
		check("eager after", want)
		if n := st.Live(); n != 0 {
			t.Fatalf("%s: %d events live", name, n)
		}
		s.Close()
		if err := g.Replay(); !errors.Is(err, capture.ErrCapture) {
			t.Fatalf("%s: a replay after the Stream closed: %v, want ErrCapture", name, err)
		}
		g.Close()
		src.Close()
		dst.Close()
	}
}

// TestCaptureStreamMixed records issue 35's mixed chain streamed (brighter,
// then each band's float32 sum: a Reduce step whose output is one element
// a band, on pinned memory) and replays it over new sources: each
// replay's sums are the model's (exact: every sum is below 2^24).
func TestCaptureStreamMixed(t *testing.T) {
	r := rand.New(rand.NewPCG(tdraw.Seed(t), 38))
	for _, x := range brighterDevices() {
		t.Run(x.api, func(t *testing.T) {
			d := x.d
			hd := d.(device.HostAllocator)
			w, h, bands := 64+r.IntN(200), 8+r.IntN(40), 1+r.IntN(4)
			k := uint8(r.IntN(9))
			src, err := array.NewIn[uint8](hd, w, h)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			sums, _ := array.NewIn[float32](hd, bands)
			defer sums.Close()
			o := stream.Options{Device: d, Bands: bands, Last: []float64{0, 0.25}[r.IntN(2)]}
			sum := stream.Reduce("sum", src.Dims(), o.Cut(), func(out *array.Array[float32], in *array.Array[uint8]) error {
				return ops.EvalSum(out, ops.AsType[float32](ops.In(in)))
			})
			s, err := stream.New(o, must(t, x.p, k), sum)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			fill := func() []float32 {
				v, _ := src.Host()
				want := make([]float32, bands)
				for b := range bands {
					band := o.Cut().Band(src.Dims(), b)
					for y := band[1].Min; y < band[1].Min+band[1].Extent; y++ {
						for i := range w {
							e := uint8(r.IntN(256))
							v.Set(e, i, y)
							want[b] += float32(min(int(e)+int(k), 255))
						}
					}
				}
				return want
			}
			check := func(what string, want []float32) {
				t.Helper()
				if err := d.Sync(); err != nil {
					t.Fatal(err)
				}
				v, _ := sums.HostReadOnly()
				for b := range want {
					if v.Data()[b] != want[b] {
						t.Fatalf("%s (%d×%d, %d bands, k %d): band %d's sum %v, want %v", what, w, h, bands, k, b, v.Data()[b], want[b])
					}
				}
			}
			want := fill()
			if err := s.Run(sums, src); err != nil {
				t.Fatal(err)
			}
			check("eager", want)
			want = fill()
			g, err := capture.Record(d, func() error { return s.Run(sums, src) })
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			check("recorded", want)
			for rep := range 3 {
				want = fill()
				replayMoves(t, d, g, w*h, 4*bands)
				check(fmt.Sprintf("replay %d (%s)", rep, g.Kind()), want)
			}
		})
	}
}

// replayMoves replays g and checks what it moved, as the device counts
// it: up bytes to the device and down bytes home, every band's once.
func replayMoves(t *testing.T, d device.Device, g *capture.Graph, up, down int) {
	t.Helper()
	before := d.Stats()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	if st := d.Stats().Sub(before); st.H2DBytes != int64(up) || st.D2HBytes != int64(down) {
		t.Fatalf("a replay (%s) moved %d bytes up and %d down, want %d and %d", g.Kind(), st.H2DBytes, st.D2HBytes, up, down)
	}
}

// onDevice is a device the capture tests and benchmarks run on, with its
// brighter pipeline.
type onDevice struct {
	api string
	d   device.Device
	p   *halide.Pipeline
}

// brighterDevices are the default OpenCL device and a CUDA GPU, where
// they open (the mock runs no kernels).
func brighterDevices() []onDevice {
	var ds []onDevice
	for _, api := range []string{"OpenCL", "CUDA"} {
		d, err := halide.DefaultDevice(api)
		if err != nil || strings.Contains(strings.ToLower(d.Name()), "mock") {
			continue
		}
		p := brighter.BrighterPipeline
		if api == "CUDA" {
			p = brighter.BrighterCudaPipeline
		}
		ds = append(ds, onDevice{api, d, p})
	}
	return ds
}

// TestCaptureStreamRefused: where a streamed Run cannot be replayed (the
// package function Run; Go memory; a Trace), Record fails wrapping
// ErrCapture, leaving no event live.
func TestCaptureStreamRefused(t *testing.T) {
	for _, x := range brighterDevices() {
		d, p := x.d, x.p
		st, _, _ := plumb.StreamsOf(d)
		hd := d.(device.HostAllocator)
		src, _ := array.NewIn[uint8](hd, 64, 8)
		dst, _ := array.NewIn[uint8](hd, 64, 8)
		goDst := array.New[uint8](64, 8)
		step := must(t, p, uint8(1))
		s, err := stream.New(stream.Options{Device: d}, step)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Run(dst, src); err != nil {
			t.Fatal(err)
		}
		runs := map[string]func() error{
			"the package Run":      func() error { return stream.Run(dst, src, stream.Options{Device: d}, step) },
			"a Run into Go memory": func() error { return s.Run(goDst, src) },
			"a traced Run": func() error {
				return s.RunContext(context.Background(), stream.RunOptions{Trace: &stream.Trace{}}, dst, src)
			},
		}
		for what, run := range runs {
			g, err := capture.Record(d, run)
			if g != nil || !errors.Is(err, capture.ErrCapture) {
				t.Errorf("%s: Record of %s: %v, %v: want ErrCapture", d.Name(), what, g, err)
			}
			if n := st.Live(); n != 0 {
				t.Errorf("%s: %s: %d events live", d.Name(), what, n)
			}
		}
		s.Close()
		src.Close()
		dst.Close()
		goDst.Close()
	}
}

// BenchmarkStreamedReplay is issue 35's brighter chain (8 stages over a
// pinned 4096² uint8 image, into pinned memory) streamed in 2, 4, 8 and
// 16 bands, eager against replayed (capture.Record of the Stream's Run),
// each followed by a sync, on the default OpenCL device and a CUDA GPU
// (HALIDE_BENCH_SIZE: another size, 1024 on PoCL).
//
//	go test -run '^$' -bench StreamedReplay ./halide/stream
func BenchmarkStreamedReplay(b *testing.B) {
	n := 4096
	if v, err := strconv.Atoi(os.Getenv("HALIDE_BENCH_SIZE")); err == nil && v > 0 {
		n = v
	}
	for _, x := range brighterDevices() {
		b.Run(x.api, func(b *testing.B) { benchStreamed(b, x.d, x.p, n) })
	}
}

func benchStreamed(b *testing.B, d device.Device, p *halide.Pipeline, n int) {
	hd := d.(device.HostAllocator)
	src, err := array.NewIn[uint8](hd, n, n)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, _ := array.NewIn[uint8](hd, n, n)
	defer dst.Close()
	var steps []stream.Step
	for range 8 {
		steps = append(steps, must(b, p, uint8(1)))
	}
	for _, bands := range []int{2, 4, 8, 16} {
		s, err := stream.New(stream.Options{Device: d, Bands: bands}, steps...)
		if err != nil {
			b.Fatal(err)
		}
		eagerReplayed(b, d, fmt.Sprintf("bands-%d", bands), n*n, func() error { return s.Run(dst, src) })
		s.Close()
	}
}

// eagerReplayed times run eagerly as name/eager, then records it and
// times its replays as name/replayed, each followed by a sync; bytes is
// what SetBytes counts.
func eagerReplayed(b *testing.B, d device.Device, name string, bytes int, run func() error) {
	if err := run(); err != nil { // kernels built, buffers made
		b.Fatal(err)
	}
	b.Run(name+"/eager", func(b *testing.B) {
		b.SetBytes(int64(bytes))
		for b.Loop() {
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	g, err := capture.Record(d, run)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	b.Run(name+"/replayed", func(b *testing.B) {
		b.SetBytes(int64(bytes))
		for b.Loop() {
			if err := errors.Join(g.Replay(), d.Sync()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(g.Nodes()), "nodes")
	})
}

// BenchmarkMixedReplay is issue 35's mixed chain (brighter, then each
// band's float32 sum, over a pinned 4096² uint8 image: 16 MiB up, a few
// bytes down) streamed in 2 and 4 bands (the last a quarter band), eager
// against replayed, beside the bare 16 MiB upload the goal compares with
// (HALIDE_BENCH_SIZE: another size).
//
//	go test -run '^$' -bench MixedReplay ./halide/stream
func BenchmarkMixedReplay(b *testing.B) {
	n := 4096
	if v, err := strconv.Atoi(os.Getenv("HALIDE_BENCH_SIZE")); err == nil && v > 0 {
		n = v
	}
	for _, x := range brighterDevices() {
		b.Run(x.api, func(b *testing.B) {
			d := x.d
			hd := d.(device.HostAllocator)
			src, err := array.NewIn[uint8](hd, n, n)
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			b.Run("upload", func(b *testing.B) {
				b.SetBytes(int64(n * n))
				for b.Loop() {
					src.Host() // new on the host
					if err := errors.Join(ops.On(d, src), d.Sync()); err != nil {
						b.Fatal(err)
					}
				}
			})
			for _, bands := range []int{2, 4} {
				o := stream.Options{Device: d, Bands: bands, Last: 0.25}
				sums, _ := array.NewIn[float32](hd, bands)
				sum := stream.Reduce("sum", src.Dims(), o.Cut(), func(out *array.Array[float32], in *array.Array[uint8]) error {
					return ops.EvalSum(out, ops.AsType[float32](ops.In(in)))
				})
				s, err := stream.New(o, must(b, x.p, uint8(1)), sum)
				if err != nil {
					b.Fatal(err)
				}
				eagerReplayed(b, d, fmt.Sprintf("bands-%d", bands), n*n, func() error { return s.Run(sums, src) })
				s.Close()
				sums.Close()
			}
		})
	}
}
