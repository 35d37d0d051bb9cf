package halide_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/capture"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/internal/rt"
	tdraw "github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops"
)

// chainCase is a drawn chain of brighter calls over two images, a and b,
// each stage reading one and writing the other (or a crop of it): one
// replay adds every stage's k again, as a model on the host computes.
type chainCase struct {
	w, h   int
	ks     []uint8
	crop   []bool // the stage writes rows [y0, y0+n) of its output only
	y0, n  int
	recOff bool // replay through recorded steps (no command buffer)
}

func drawChain(r *rand.Rand) chainCase {
	// rows of 512 bytes: every crop's offset is aligned for a sub-buffer
	// (CL_DEVICE_MEM_BASE_ADDR_ALIGN: 128 bytes on PoCL, 512 on NVIDIA),
	// so each call is one kernel; unaligned ones add the glue's copies
	c := chainCase{w: 512 * (1 + r.IntN(2)), h: 1 + r.IntN(40), recOff: r.IntN(2) == 0}
	for range 1 + r.IntN(6) {
		c.ks = append(c.ks, uint8(r.IntN(9)))
		c.crop = append(c.crop, r.IntN(3) == 0)
	}
	c.y0 = r.IntN(c.h)
	c.n = 1 + r.IntN(c.h-c.y0)
	return c
}

// stageModel applies stage i of c to the host images (the source is a
// when i is even).
func (c chainCase) stageModel(i int, a, b []uint8) {
	src, dst := a, b
	if i%2 == 1 {
		src, dst = b, a
	}
	y0, y1 := 0, c.h
	if c.crop[i] {
		y0, y1 = c.y0, c.y0+c.n
	}
	for j := y0 * c.w; j < y1*c.w; j++ {
		dst[j] = uint8(min(int(src[j])+int(c.ks[i]), 255))
	}
}

// TestCaptureOpenCL records drawn chains of OpenCL pipeline calls (whole
// images and row crops, which the runtime turns into sub-buffers at each
// launch) and replays them through a command buffer or the recorded
// steps: the results are the model's after each replay, a replay queues
// one node per call, and closing the Graph releases every kernel and
// sub-buffer the recording held.
func TestCaptureOpenCL(t *testing.T) {
	r := rand.New(rand.NewPCG(tdraw.Seed(t), 35))
	for ci := range 12 {
		c := drawChain(r)
		t.Run(fmt.Sprint(ci), func(t *testing.T) {
			d, err := opencl.Open(opencl.Options{NoCommandBuffers: c.recOff})
			if err != nil {
				t.Skip("no OpenCL driver:", err)
			}
			defer d.Close()
			captureChain(t, r, c, d, brighter.BrighterPipeline, cmdBufKind(t, d))
		})
	}
}

// cmdBufKind is the Kind of d's Graphs of kernels: "OpenCL command
// buffer" where d has cl_khr_command_buffer and its Options allow them
// (PoCL 3.1), else "recorded replay" (NVIDIA's OpenCL), as a capture of
// one of the library's own ops shows.
func cmdBufKind(t *testing.T, d device.Device) string {
	x := array.New[float32](8)
	defer x.Close()
	if err := ops.On(d, x); err != nil {
		t.Fatal(err)
	}
	op := func() error { return ops.BinaryScalar(x, x, 1, ops.OpAdd) }
	if err := op(); err != nil {
		t.Fatal(err)
	}
	g, err := capture.Record(d, op)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	return g.Kind()
}

// TestCaptureCUDA: the same on CUDA, where the stream capture takes the
// runtime's launches into the graph (skipped without a GPU: the mock's
// kernels compute nothing).
func TestCaptureCUDA(t *testing.T) {
	r := rand.New(rand.NewPCG(tdraw.Seed(t), 36))
	d := cuDevice(t)
	for ci := range 12 {
		c := drawChain(r)
		t.Run(fmt.Sprint(ci), func(t *testing.T) { captureChain(t, r, c, d, brighter.BrighterCudaPipeline, "CUDA graph") })
	}
}

// captureChain runs c once eagerly on d, records it, replays it a drawn
// number of times and checks the images against the model, the Graph's
// kind and nodes, and what its Close releases.
func captureChain(t *testing.T, r *rand.Rand, c chainCase, d device.Device, p *halide.Pipeline, kind string) {
	_, isCL := d.(*opencl.Device)
	ownedBefore := rt.CLRecOwned()
	a, b := array.New[uint8](c.w, c.h), array.New[uint8](c.w, c.h)
	defer a.Close()
	defer b.Close()
	ha, _ := a.Host()
	hb, _ := b.Host()
	ma, mb := make([]uint8, c.w*c.h), make([]uint8, c.w*c.h)
	for i := range ma {
		ma[i], mb[i] = uint8(r.IntN(256)), uint8(r.IntN(256))
	}
	copy(ha.Data(), ma)
	copy(hb.Data(), mb)
	chain := func() error {
		for i, k := range c.ks {
			src, dst := a, b
			if i%2 == 1 {
				src, dst = b, a
			}
			if c.crop[i] {
				src, dst = src.Crop(1, c.y0, c.n), dst.Crop(1, c.y0, c.n)
			}
			if err := p.CallWith(halide.Options{Device: d}, src, k, dst); err != nil {
				return err
			}
		}
		return nil
	}
	// once eagerly (kernels built, both images on the device)
	if err := chain(); err != nil {
		t.Fatal(err)
	}
	for i := range c.ks {
		c.stageModel(i, ma, mb)
	}
	live := d.Stats().AllocsLive
	g, err := capture.Record(d, chain)
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	if g.Kind() != kind || g.Nodes() != len(c.ks) {
		t.Fatalf("%+v: a %s of %d nodes, want a %s of %d", c, g.Kind(), g.Nodes(), kind, len(c.ks))
	}
	if isCL {
		// a reference to each launch's kernel, and to the two
		// sub-buffers (input, output) of each crop at an offset
		refs := len(c.ks)
		for _, cr := range c.crop {
			if cr && c.y0 > 0 {
				refs += 2
			}
		}
		if n := rt.CLRecOwned() - ownedBefore; n != int64(refs) {
			t.Fatalf("%+v: the Graph holds %d kernel and cl_mem references, want %d", c, n, refs)
		}
	}
	for i := range c.ks { // Record ran the chain once
		c.stageModel(i, ma, mb)
	}
	for range r.IntN(3) {
		before := d.Stats()
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		// where the replay ran: on the device, one launch a call
		// (counted on OpenCL, whose replay queues each kernel), no
		// transfer
		st := d.Stats().Sub(before)
		if st.H2DCalls+st.D2HCalls != 0 || isCL && st.Launches != int64(len(c.ks)) {
			t.Fatalf("%+v: a replay made %d uploads, %d downloads and %d launches, want none, none and %d", c, st.H2DCalls, st.D2HCalls, st.Launches, len(c.ks))
		}
		for i := range c.ks {
			c.stageModel(i, ma, mb)
		}
	}
	checkModel(t, "a", a, ma)
	checkModel(t, "b", b, mb)
	if a.Device() != d {
		t.Fatalf("a is on %v after the replays, want %s", a.Device(), d.Name())
	}
	g.Close()
	if n := rt.CLRecOwned(); n != ownedBefore {
		t.Fatalf("%d recorded kernel and cl_mem references outstanding after Close, want %d", n, ownedBefore)
	}
	if n := d.Stats().AllocsLive; n != live {
		t.Fatalf("%d allocations live after Close, want %d", n, live)
	}
}

func checkModel(t *testing.T, name string, a *array.Array[uint8], want []uint8) {
	t.Helper()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	got := v.Data()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s[%d] = %d, want %d", name, i, got[i], want[i])
		}
	}
}

// TestCaptureOpenCLRefusals: a replay refuses an Array closed since the
// capture; a Record whose function fails after a pipeline call keeps
// nothing; a pipeline call that failed inside a capture fails Record even
// when the function drops its error.
func TestCaptureOpenCLRefusals(t *testing.T) {
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip("no OpenCL driver:", err)
	}
	defer d.Close()
	owned := rt.CLRecOwned()
	a, b := array.New[uint8](128, 4), array.New[uint8](128, 4)
	defer a.Close()
	if err := ops.On(d, a, b); err != nil {
		t.Fatal(err)
	}
	call := func() error { return brighter.BrighterPipeline.CallWith(halide.Options{Device: d}, a, uint8(1), b) }
	if err := call(); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("mine")
	if g, err := capture.Record(d, func() error { call(); return mine }); g != nil || err != mine {
		t.Fatalf("a failing Record: %v, %v", g, err)
	}
	if n := rt.CLRecOwned(); n != owned {
		t.Fatalf("%d references outstanding after a failed Record, want %d", n, owned)
	}
	// a call that fails inside (out of its input's bounds), its error
	// dropped by the function: Record still fails
	small := array.New[uint8](64, 4)
	defer small.Close()
	if err := ops.On(d, small); err != nil {
		t.Fatal(err)
	}
	if g, err := capture.Record(d, func() error {
		if err := brighter.BrighterPipeline.CallWith(halide.Options{Device: d}, small, uint8(1), b); err == nil {
			t.Error("brighter of a 64-wide input into a 128-wide output did not fail")
		}
		return nil
	}); g != nil || !errors.Is(err, capture.ErrCapture) {
		t.Fatalf("Record of a failed call: %v, %v: want ErrCapture", g, err)
	}
	if n := rt.CLRecOwned(); n != owned {
		t.Fatalf("%d references outstanding after a refused Record, want %d", n, owned)
	}
	g, err := capture.Record(d, call)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	b.Close()
	if err := g.Replay(); !errors.Is(err, capture.ErrCapture) {
		t.Fatalf("a replay after its output closed: %v, want ErrCapture", err)
	}
}

// TestCaptureScalar: a pipeline's scalar (brighter's k) changes between
// replays through Graph.Scalar on OpenCL, through the command buffer and
// the recorded launches, and on CUDA, whose graph holds Halide's launches
// as the driver captured them (their parameters read from the graph).
func TestCaptureScalar(t *testing.T) {
	type dev struct {
		d device.Device
		p *halide.Pipeline
	}
	var ds []dev
	for _, off := range []bool{false, true} {
		if d, err := opencl.Open(opencl.Options{NoCommandBuffers: off}); err == nil {
			defer d.Close()
			ds = append(ds, dev{d, brighter.BrighterPipeline})
		}
	}
	if d, err := halide.DefaultDevice("CUDA"); err == nil && !strings.Contains(strings.ToLower(d.Name()), "mock") {
		ds = append(ds, dev{d, brighter.BrighterCudaPipeline})
	}
	if len(ds) == 0 {
		t.Skip("no OpenCL or CUDA device")
	}
	for _, x := range ds {
		src := pattern(256, 3)
		in, out := array.New[uint8](256, 3), array.New[uint8](256, 3)
		h, _ := in.Host()
		copy(h.Data(), src)
		if err := ops.On(x.d, in, out); err != nil {
			t.Fatal(err)
		}
		call := func() error { return x.p.CallWith(halide.Options{Device: x.d}, in, uint8(37), out) }
		if err := call(); err != nil {
			t.Fatal(err)
		}
		g, err := capture.Record(x.d, call)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := g.Scalar(uint8(37))
		if err != nil || sc.Uses() != 1 {
			t.Fatalf("%s (%s): Scalar(uint8(37)): %v, %v uses", x.d.Name(), g.Kind(), err, sc)
		}
		for _, k := range []uint8{100, 3} {
			if err := sc.Set(k); err != nil {
				t.Fatal(err)
			}
			before := x.d.Stats()
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			if st := x.d.Stats().Sub(before); st.H2DCalls+st.D2HCalls != 0 { // the new k went to the kernel, not through a copy
				t.Fatalf("%s: a replay after Set made %d uploads and %d downloads, want none", x.d.Name(), st.H2DCalls, st.D2HCalls)
			}
			if out.Device() != x.d {
				t.Fatalf("out is on %v after the replay, want %s", out.Device(), x.d.Name())
			}
			checkBrightened(t, fmt.Sprintf("%s (%s) k=%d", x.d.Name(), g.Kind(), k), out, src, k)
		}
		g.Close()
		in.Close()
		out.Close()
	}
}

// BenchmarkBrighterChainReplay is the pinned chain of issue 35 unbanded
// ("pinned": upload a pinned n×n uint8 image, 8 brighter stages on the
// device, download the result into pinned memory) and its 8 stages alone
// ("resident"), each followed by a wait: "eager" calls everything each
// time, "replayed" records it once (capture.Record) and replays it
// (HALIDE_BENCH_SIZE as BenchmarkBrighterChain). On the default OpenCL
// device and, where there is one, the CUDA GPU.
//
//	go test -run '^$' -bench BrighterChainReplay ./halide
func BenchmarkBrighterChainReplay(b *testing.B) {
	n := benchSize()
	type dev struct {
		d device.Device
		p *halide.Pipeline
	}
	var ds []dev
	if d, err := halide.DefaultDevice("OpenCL"); err == nil {
		ds = append(ds, dev{d, brighter.BrighterPipeline})
	}
	if d, err := halide.DefaultDevice("CUDA"); err == nil && !strings.Contains(strings.ToLower(d.Name()), "mock") {
		ds = append(ds, dev{d, brighter.BrighterCudaPipeline})
	}
	for _, x := range ds {
		d := x.d
		in, err := array.NewIn[uint8](d.(device.HostAllocator), n, n)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := array.NewIn[uint8](d.(device.HostAllocator), n, n)
		t1, t2 := array.New[uint8](n, n), array.New[uint8](n, n)
		h, _ := in.Host()
		copy(h.Data(), pattern(n, n))
		stages := func(last *array.Array[uint8]) error {
			src, dst := in, t1
			for i := range 8 {
				if i == 7 {
					dst = last
				}
				if err := x.p.CallWith(halide.Options{Device: d}, src, uint8(1), dst); err != nil {
					return err
				}
				src, dst = dst, t2
				if src == t2 {
					dst = t1
				}
			}
			return nil
		}
		pinned := func() error {
			if err := ops.On(d, in); err != nil { // the upload
				return err
			}
			if err := stages(out); err != nil {
				return err
			}
			return out.CopyToHost() // the download
		}
		resident := func() error { return stages(t2) }
		for _, c := range []struct {
			name string
			work func() error
			up   bool // the source is new on the host each time
		}{{"pinned", pinned, true}, {"resident", resident, false}} {
			fresh := func() {
				if c.up {
					in.Host()
				} else if err := ops.On(d, in); err != nil {
					b.Fatal(err)
				}
			}
			eager := func() error {
				fresh()
				if err := c.work(); err != nil {
					return err
				}
				return d.Sync()
			}
			if err := eager(); err != nil { // kernels built, memory placed
				b.Fatal(err)
			}
			b.Run(d.Name()+"/"+c.name+"/eager", func(b *testing.B) {
				b.SetBytes(int64(n * n))
				for b.Loop() {
					if err := eager(); err != nil {
						b.Fatal(err)
					}
				}
			})
			fresh()
			g, err := capture.Record(d, c.work)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(d.Name()+"/"+c.name+"/replayed", func(b *testing.B) {
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
		}
		for _, a := range []*array.Array[uint8]{in, out, t1, t2} {
			a.Close()
		}
	}
}
