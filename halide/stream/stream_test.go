package stream_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/ops"
)

func dev(t testing.TB) *opencl.Device {
	t.Helper()
	d, err := halide.DefaultDevice("OpenCL")
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	return d.(*opencl.Device)
}

// must is the Step of a pipeline, or the test's end.
func must(t testing.TB, p *halide.Pipeline, scalars ...any) stream.Step {
	t.Helper()
	s, err := stream.Pipeline(p, scalars...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chain is a test chain: its steps, the source's and output's element
// types, and the halo its first step needs on each side of a band in
// both dimensions.
type chain struct {
	name     string
	steps    func(t testing.TB) []stream.Step
	src, dst array.Type
	halo     int
}

var (
	u8  = array.TypeOf[uint8]()
	u16 = array.TypeOf[uint16]()
)

var chains = []chain{
	{"brighter×3", func(t testing.TB) []stream.Step {
		b := must(t, brighter.BrighterPipeline, uint8(3))
		return []stream.Step{b, b, b}
	}, u8, u8, 0},
	// Two stencils: each band reads two more rows on each side.
	{"blur∘blur", func(t testing.TB) []stream.Step {
		b := must(t, blur.BlurOpenclPipeline)
		return []stream.Step{b, b}
	}, u16, u16, 2},
	// A pipeline, then ops through float32 and back.
	{"brighter→f32→×0.5→u16", func(t testing.TB) []stream.Step {
		return []stream.Step{
			must(t, brighter.BrighterPipeline, uint8(5)),
			stream.Op("f32", ops.CastWrap[float32, uint8]),
			stream.Op("half", func(out, in *array.Array[float32]) error { return ops.BinaryScalar(out, in, 0.5, ops.OpMul) }),
			stream.Op("u16", ops.CastWrap[uint16, float32]),
		}
	}, u8, u16, 0},
	// An op before a stencil: the halo passes through the op.
	{"u16→blur→×3", func(t testing.TB) []stream.Step {
		return []stream.Step{
			stream.Op("u16", ops.CastWrap[uint16, uint8]),
			must(t, blur.BlurOpenclPipeline),
			stream.Op("×3", func(out, in *array.Array[uint16]) error { return ops.BinaryScalar(out, in, 3, ops.OpMul) }),
		}
	}, u8, u16, 1},
}

// newArray is a mins/extents Array of t over Go memory (h nil) or h's
// pinned memory, filled from r; the test closes it.
func newArray(t testing.TB, typ array.Type, h device.HostAllocator, mins, ext []int, r *rand.Rand) array.Buffer {
	t.Helper()
	var b array.Buffer
	switch typ {
	case u8:
		b = mk[uint8](t, h, mins, ext, r)
	case u16:
		b = mk[uint16](t, h, mins, ext, r)
	default:
		t.Fatalf("no test Arrays of %v", typ)
	}
	return b
}

func mk[T uint8 | uint16](t testing.TB, h device.HostAllocator, mins, ext []int, r *rand.Rand) *array.Array[T] {
	t.Helper()
	var a *array.Array[T]
	if h == nil {
		// closed when the test ends, not by the collector: a device copy
		// freed mid-test would throw off the tests that count allocations
		a = array.NewWithMins[T](mins, ext)
		t.Cleanup(func() { a.Close() })
	} else {
		root, err := array.NewIn[T](h, ext...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		a = root.SetMin(mins...)
	}
	v, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	for i, d := 0, v.Data(); i < len(d); i++ {
		d[i] = T(r.Uint32())
	}
	return a
}

// hostBytes is b's elements as bytes, brought home explicitly.
func hostBytes(t testing.TB, b array.Buffer) []byte {
	t.Helper()
	type homer interface{ CopyToHost() error }
	if err := b.(homer).CopyToHost(); err != nil {
		t.Fatal(err)
	}
	r := b.Raw()
	return append([]byte(nil), r.HostBytes()[:r.Len()*r.Type().Bytes()]...)
}

// unstreamed is the model: the steps called once each on whole Arrays
// (regions from the same Needs), with the library's automatic residency.
func unstreamed(t testing.TB, steps []stream.Step, types []array.Type, dst, src array.Buffer) {
	t.Helper()
	n := len(steps)
	regs := make([][]array.Dim, n+1)
	regs[n] = dst.Raw().Dims()
	for i := n - 1; i >= 0; i-- {
		regs[i] = regs[i+1]
		if steps[i].Needs != nil {
			var err error
			if regs[i], err = steps[i].Needs(regs[i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	cur := src
	for i, s := range steps {
		out := dst
		if i < n-1 {
			mins, ext := array.Box(regs[i+1])
			b, err := array.NewOf(types[i+1], mins, ext)
			if err != nil {
				t.Fatal(err)
			}
			out = b
			defer b.(interface{ Close() error }).Close()
		}
		if err := s.Run(out, cur); err != nil {
			t.Fatalf("unstreamed step %d (%s): %v", i, s.Name, err)
		}
		cur = out
	}
}

func chainTypes(c chain, steps []stream.Step) []array.Type {
	ts := []array.Type{c.src}
	for _, s := range steps {
		t := ts[len(ts)-1]
		if s.Out != (array.Type{}) {
			t = s.Out
		}
		ts = append(ts, t)
	}
	return ts
}

// Streamed chains equal the unstreamed chain exactly, for chains, sizes,
// band counts (1, ones that do not divide the rows, more than the rows),
// slots and host memories drawn at random; the device moves exactly each
// band's input region (halo included) up and the output down, one
// transfer each way per band, and leaves no event behind.
func TestMatchesUnstreamed(t *testing.T) {
	matches(t, dev(t), chains, 48, 1)
}

// matches runs n chains drawn from cs on d against the unstreamed model.
func matches(t *testing.T, d device.Device, cs []chain, n int, seed uint64) {
	st, _, err := plumb.StreamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	ha := d.(device.HostAllocator)
	r := rand.New(rand.NewPCG(24, seed))
	for i := range n {
		c := cs[i%len(cs)]
		w, h := 1+r.IntN(70), 1+r.IntN(40)
		bands := []int{1, 1 + r.IntN(h), h + 1 + r.IntN(5), 1 + r.IntN(8)}[r.IntN(4)]
		slots := r.IntN(5) // 0: the default
		var srcMem, dstMem device.HostAllocator
		if r.IntN(2) == 1 {
			srcMem = ha
		}
		if r.IntN(2) == 1 {
			dstMem = ha
		}
		first, last := []float64{0, r.Float64()}[r.IntN(2)], []float64{0, r.Float64()}[r.IntN(2)]
		traced := r.IntN(3) == 0
		name := fmt.Sprintf("%d:%s/%dx%d/bands=%d/first=%.2f/last=%.2f/slots=%d/pinned=%v,%v/trace=%v", i, c.name, w, h, bands, first, last, slots, srcMem != nil, dstMem != nil, traced)
		t.Run(name, func(t *testing.T) {
			steps := c.steps(t)
			hl := c.halo
			src := newArray(t, c.src, srcMem, []int{-hl, -hl}, []int{w + 2*hl, h + 2*hl}, r)
			dst := newArray(t, c.dst, dstMem, []int{0, 0}, []int{w, h}, r)
			want := newArray(t, c.dst, nil, []int{0, 0}, []int{w, h}, r)
			unstreamed(t, steps, chainTypes(c, steps), want, src)
			before := d.Stats()
			sm, err := stream.New(stream.Options{Device: d, Bands: bands, First: first, Last: last, Slots: slots}, steps...)
			if err != nil {
				t.Fatal(err)
			}
			var tr *stream.Trace
			if traced {
				tr = new(stream.Trace)
			}
			if err := errors.Join(sm.RunContext(context.Background(), stream.RunOptions{Trace: tr}, dst, src), sm.Close()); err != nil {
				t.Fatal(err)
			}
			s := d.Stats().Sub(before)
			if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
				t.Fatal("streamed output differs from the unstreamed chain's")
			}
			nb := int64(min(bands, h))
			in := int64(h+2*hl*int(nb)) * int64(w+2*hl) * int64(c.src.Bytes())
			out := int64(w*h) * int64(c.dst.Bytes())
			if s.H2DBytes != in || s.D2HBytes != out || s.H2DCalls != nb || s.D2HCalls != nb {
				t.Errorf("moved H2D %d B in %d calls, D2H %d B in %d; want %d B and %d B in %d calls each", s.H2DBytes, s.H2DCalls, s.D2HBytes, s.D2HCalls, in, out, nb)
			}
			if dst.Raw().DeviceDirty() || dst.Raw().HostDirty() && dst.Raw().Device() == nil {
				t.Error("the destination is not left newest on the host")
			}
			if n := st.Live(); n != 0 {
				t.Errorf("%d events left live", n)
			}
			if tr != nil {
				_, timed := st.(plumb.Timer)
				checkTrace(t, tr, int(nb), timed)
			}
		})
	}
}

// checkTrace checks a Run's trace against the order the Run imposes: the
// host queues the bands one after another within the Run; on a timed
// device each band's upload ends before its compute begins, which ends
// before its download begins, and each queue runs its parts in band
// order. Untimed, the device spans stay zero.
func checkTrace(t *testing.T, tr *stream.Trace, bands int, timed bool) {
	t.Helper()
	if len(tr.Bands) != bands || tr.Timed != timed {
		t.Fatalf("trace of %d bands, timed %v; want %d, %v", len(tr.Bands), tr.Timed, bands, timed)
	}
	ordered := func(what string, ds ...time.Duration) {
		for i := range ds {
			if ds[i] < 0 || i > 0 && ds[i] < ds[i-1] {
				t.Errorf("trace: %s out of order: %v", what, ds)
				return
			}
		}
	}
	var prev stream.BandTrace
	for k, b := range tr.Bands {
		ordered(fmt.Sprintf("band %d queued", k), prev.Queued.End, b.Queued.Begin, b.Queued.End, tr.Host)
		if !timed {
			if b.Up != (stream.Span{}) || b.Compute != (stream.Span{}) || b.Down != (stream.Span{}) {
				t.Errorf("untimed trace has device times in band %d: %+v", k, b)
			}
			continue
		}
		parts := append([]time.Duration{b.Up.Begin, b.Up.End, b.Compute.Begin}, b.Steps...)
		ordered(fmt.Sprintf("band %d parts", k), append(parts, b.Compute.End, b.Down.Begin, b.Down.End)...)
		ordered(fmt.Sprintf("uploads %d–%d", k-1, k), prev.Up.End, b.Up.Begin)
		ordered(fmt.Sprintf("computes %d–%d", k-1, k), prev.Compute.End, b.Compute.Begin)
		ordered(fmt.Sprintf("downloads %d–%d", k-1, k), prev.Down.End, b.Down.Begin)
		prev = b
	}
	var sb strings.Builder
	if _, err := tr.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	if n, err := tr.WriteTo(&failAfter{sb.Len() / 2}); err == nil || n > int64(sb.Len()/2) {
		t.Errorf("writing the trace to a writer that fails half-way: %d bytes, %v; want its error", n, err)
	}
	if lines := strings.Count(sb.String(), "\n"); lines != bands+2+2*b2i(timed) {
		t.Errorf("trace table has %d lines, want %d:\n%s", lines, bands+2+2*b2i(timed), sb.String())
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A Stream keeps its buffers between Runs; like operands reuse them (no
// new device allocation), and Close gives every one back.
func TestReuse(t *testing.T) {
	d := dev(t)
	r := rand.New(rand.NewPCG(24, 2))
	c := chains[1]
	steps := c.steps(t)
	s, err := stream.New(stream.Options{Bands: 5}, steps...)
	if err != nil {
		t.Fatal(err)
	}
	var srcs, dsts, wants []array.Buffer
	for range 3 {
		srcs = append(srcs, newArray(t, u16, nil, []int{-2, -2}, []int{64 + 4, 48 + 4}, r))
		dsts = append(dsts, newArray(t, u16, d, []int{0, 0}, []int{64, 48}, r))
		wants = append(wants, newArray(t, u16, nil, []int{0, 0}, []int{64, 48}, r))
		unstreamed(t, steps, chainTypes(c, steps), wants[len(wants)-1], srcs[len(srcs)-1])
	}
	base := d.Stats()
	for i := range 3 {
		src, dst, want := srcs[i], dsts[i], wants[i]
		before := d.Stats()
		if err := s.Run(dst, src); err != nil {
			t.Fatal(err)
		}
		if i > 0 && d.Stats().AllocsTotal != before.AllocsTotal {
			t.Errorf("run %d allocated %d device buffers, want none", i, d.Stats().AllocsTotal-before.AllocsTotal)
		}
		if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
			t.Fatalf("run %d differs from the unstreamed chain", i)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if live := d.Stats().AllocsLive; live != base.AllocsLive {
		t.Errorf("%d device allocations live after Close, %d before", live, base.AllocsLive)
	}
	if err := s.Close(); err != nil {
		t.Error("second Close:", err)
	}
	if err := s.Run(nil, nil); !errors.Is(err, stream.ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
}

// Bands of several MiB in Go memory take the parallel staging copies.
func TestLargeStaged(t *testing.T) {
	d := dev(t)
	r := rand.New(rand.NewPCG(24, 6))
	c := chains[0]
	steps := c.steps(t)
	const w, h = 2048, 1537
	src := newArray(t, u8, nil, []int{0, 0}, []int{w, h}, r)
	dst := newArray(t, u8, nil, []int{0, 0}, []int{w, h}, r)
	want := newArray(t, u8, nil, []int{0, 0}, []int{w, h}, r)
	unstreamed(t, steps, chainTypes(c, steps), want, src)
	before := d.Stats()
	if err := stream.Run(dst, src, stream.Options{Bands: 2}, steps...); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.H2DBytes != w*h || s.D2HBytes != w*h {
		t.Errorf("moved %d B up, %d B down; want %d each", s.H2DBytes, s.D2HBytes, w*h)
	}
	if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
		t.Fatal("streamed output differs from the unstreamed chain's")
	}
}

// failAfter is a writer that takes n bytes and then fails.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errBoom
	}
	f.n -= len(p)
	return len(p), nil
}
