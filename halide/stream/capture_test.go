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
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
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
		run := func() error { return s.Run(dst, src) }
		if err := run(); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("bands-%d/eager", bands), func(b *testing.B) {
			b.SetBytes(int64(n * n))
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
		b.Run(fmt.Sprintf("bands-%d/replayed", bands), func(b *testing.B) {
			b.SetBytes(int64(n * n))
			for b.Loop() {
				if err := g.Replay(); err != nil {
					b.Fatal(err)
				}
				if err := d.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(g.Nodes()), "nodes")
		})
		g.Close()
		s.Close()
	}
}
