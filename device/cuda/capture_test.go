package cuda_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/capture"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
)

// TestCaptureMock (mock with NVRTC only) records transfers between
// pinned memory and the device, a copy, a memset and a kernel launch
// through the driver's stream capture, and checks that Record ran them
// once through the graph, that each Replay is one graph launch that moves
// the pinned memory as it is then and counts what the capture counted,
// that Scalar changes a kernel argument without recording again, that
// what a graph cannot replay is refused with the reason, that Close
// releases the graph and the memory it kept, and that a Device closed
// under a Graph refuses its replays with ErrClosed.
func TestCaptureMock(t *testing.T) {
	if !cudatest.InChild() {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	func() {
		d := open(t, cuda.Options{})
		p, err := d.Compile(`__kernel void mock_store(__global ulong *out, float f, int i) {}`, "")
		if err != nil {
			t.Fatal(err)
		}
		k, err := p.Kernel("mock_store")
		if err != nil {
			t.Fatal(err)
		}
		const n = 64
		blk, err := d.AllocHost(2 * n)
		if err != nil {
			t.Fatal(err)
		}
		defer blk.Free()
		in, out := blk.Bytes()[:n], blk.Bytes()[n:]
		dense := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
		a, _ := d.Malloc(n)
		b, _ := d.Malloc(n)
		st, _ := d.Malloc(64)
		tmp, _ := d.Malloc(n) // freed inside the capture: the graph keeps it
		for i := range in {
			in[i] = byte(i)
		}
		live := d.Stats().AllocsLive
		before := d.Stats()
		g, err := capture.Record(d, func() error {
			if err := d.CopyIn(a, 0, in, dense); err != nil {
				return err
			}
			if err := d.Copy(tmp, 0, a, 0, dense); err != nil {
				return err
			}
			if err := d.Copy(b, 0, tmp, 0, dense); err != nil {
				return err
			}
			if err := d.Memset(b, 0, 0xEE, 2); err != nil {
				return err
			}
			if err := d.Enqueue(k, device.Grid{Dims: 1, Global: [3]int{32}}, []any{device.Buffer(st.Native()), float32(0.125), int32(7)}); err != nil {
				return err
			}
			if err := d.Free(tmp); err != nil {
				return err
			}
			return d.CopyOut(out, b, 0, dense)
		})
		if err != nil {
			t.Fatal(err)
		}
		rec := d.Stats().Sub(before)
		if rec.H2DCalls != 1 || rec.D2HCalls != 1 || rec.D2DCalls != 2 || rec.Launches != 2 {
			t.Fatalf("the capture counted %v", rec)
		}
		if g.Nodes() != 6 {
			t.Errorf("%d steps recorded, want 6", g.Nodes())
		}
		if d.Stats().AllocsLive != live {
			t.Errorf("%d allocations live after the capture freed one, want %d (the graph keeps it)", d.Stats().AllocsLive, live)
		}
		check := func(when string, first byte, f float32) {
			t.Helper()
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			if out[0] != 0xEE || out[1] != 0xEE || out[2] != first+2 || out[n-1] != first+n-1 {
				t.Fatalf("%s: out = %v", when, out[:4])
			}
			w := make([]byte, 16)
			if err := d.ReadBytes(w, device.Buffer(st.Native()), 0); err != nil {
				t.Fatal(err)
			}
			if got := math.Float32frombits(binary.LittleEndian.Uint32(w)); got != f || binary.LittleEndian.Uint32(w[8:]) != 7 {
				t.Fatalf("%s: the kernel got %v and %d, want %v and 7", when, got, binary.LittleEndian.Uint32(w[8:]), f)
			}
		}
		check("after Record", 0, 0.125)
		sc, err := g.Scalar(float32(0.125))
		if err != nil || sc.Uses() != 1 {
			t.Fatalf("Scalar: %v", err)
		}
		if _, err := g.Scalar(float32(0.3)); !errors.Is(err, capture.ErrCapture) {
			t.Fatalf("Scalar of a value no argument has: %v", err)
		}
		if err := sc.Set(float32(2.5)); err != nil {
			t.Fatal(err)
		}
		if err := sc.Set(2.5); err == nil {
			t.Fatal("Set with a float64 for a float32")
		}
		for i := range in {
			in[i] = byte(i + 100)
		}
		before = d.Stats()
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		if got := d.Stats().Sub(before); got.Launches != rec.Launches || got.H2DBytes != rec.H2DBytes || got.D2HBytes != rec.D2HBytes {
			t.Errorf("a replay counted %v, the capture %v", got, rec)
		}
		check("after Replay", 100, 2.5)
		if n := testing.AllocsPerRun(50, func() { g.Replay() }); n != 0 {
			t.Errorf("a replay allocates %v times", n)
		}

		// refused: what the graph would not do again (ReadBytes answers
		// now, which a graph cannot: a recorded CopyOut of Go memory is
		// TestCaptureGoMock's)
		goMem := make([]byte, n)
		for name, fn := range map[string]func() error{
			"ReadBytes": func() error { return d.ReadBytes(goMem[:4], device.Buffer(a.Native()), 0) },
			"Sync":      d.Sync,
		} {
			g2, err := capture.Record(d, fn)
			if err == nil || !strings.Contains(err.Error(), "during a capture") {
				t.Errorf("Record of %s: %v", name, err)
				g2.Close()
			}
		}
		// pinned memory the graph moves, freed: refused
		blk2, err := d.AllocHost(n)
		if err != nil {
			t.Fatal(err)
		}
		g4, err := capture.Record(d, func() error { return d.CopyIn(a, 0, blk2.Bytes(), dense) })
		if err != nil {
			t.Fatal(err)
		}
		blk2.Free()
		if err := g4.Replay(); err == nil || !strings.Contains(err.Error(), "freed") {
			t.Fatalf("Replay after its pinned memory was freed: %v", err)
		}
		g4.Close()
		if err := errors.Join(g.Close(), g.Close()); err != nil {
			t.Fatal(err)
		}
		if err := g.Replay(); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Replay after Close: %v", err)
		}
		if d.Stats().AllocsLive != live-1 {
			t.Errorf("%d allocations live after Close, want %d", d.Stats().AllocsLive, live-1)
		}

		// a Device closed during a capture: Record fails with ErrClosed
		d2 := open(t, cuda.Options{})
		x2, _ := d2.Malloc(n)
		if _, err := capture.Record(d2, func() error {
			if err := d2.Memset(x2, 0, 1, n); err != nil {
				return err
			}
			return d2.Close()
		}); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Record of a function that closes the Device: %v", err)
		}

		// a Device closed under a Graph
		g3, err := capture.Record(d, func() error { return d.Copy(b, 0, a, 0, dense) })
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := g3.Replay(); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Replay after the Device's Close: %v", err)
		}
		if err := g3.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	cudatest.NoLeak(t, "a graph, or memory a graph kept")
}

// TestCaptureGoMock (mock only) records transfers of Go memory, dense
// and strided, both ways, and checks that each launch of the graph reads
// the Go memory as it is then and writes the downloads into it (the
// region's bytes only), that the graph's Close releases its staging, and
// that a capture that fails, or a Device closed during one or under its
// graph, leaves nothing behind.
func TestCaptureGoMock(t *testing.T) {
	if !cudatest.InChild() {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	const n = 64
	dense := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
	rows := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 8, Stride: 1}, {Extent: 4, Stride: 16}}} // 8 of each 16 bytes
	inRows := func(i int) bool { return i < 64 && i%16 < 8 }
	func() {
		d := open(t, cuda.Options{})
		a, _ := d.Malloc(n)
		b, _ := d.Malloc(n)
		c, _ := d.Malloc(n)
		in, out := make([]byte, n), make([]byte, n)
		sin, sout := make([]byte, n), make([]byte, n)
		for i := range sout {
			sout[i] = 0xFF
		}
		if err := d.Memset(c, 0, 0x11, n); err != nil {
			t.Fatal(err)
		}
		fill := func(k byte) {
			for i := range in {
				in[i], sin[i] = byte(i)+k, byte(2*i)+k
			}
		}
		fill(0)
		free0, _, _ := d.MemInfo()
		live := d.Stats().AllocsLive
		g, err := capture.Record(d, func() error {
			if err := d.CopyIn(a, 0, in, dense); err != nil {
				return err
			}
			if err := d.Copy(b, 0, a, 0, dense); err != nil {
				return err
			}
			if err := d.CopyOut(out, b, 0, dense); err != nil {
				return err
			}
			if err := d.CopyIn(c, 0, sin, rows); err != nil {
				return err
			}
			return d.CopyOut(sout, b, 0, rows)
		})
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string, k byte) {
			t.Helper()
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, n) // c, read eagerly
			if err := d.CopyOut(got, c, 0, dense); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				wantOut, wantS, wantC := byte(i)+k, byte(0xFF), byte(0x11)
				if inRows(i) {
					wantS, wantC = byte(i)+k, byte(2*i)+k
				}
				if out[i] != wantOut || sout[i] != wantS || got[i] != wantC {
					t.Fatalf("%s: byte %d: the dense download %d (want %d), the strided download %d (want %d), the strided upload %d (want %d)",
						when, i, out[i], wantOut, sout[i], wantS, got[i], wantC)
				}
			}
		}
		check("after Record", 0)
		if free, _, _ := d.MemInfo(); free >= free0 {
			t.Errorf("the graph holds no staging: %d bytes free before, %d after", free0, free)
		}
		for _, k := range []byte{100, 7, 200} {
			fill(k)
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("after the Replay with inputs +%d", k), k)
		}
		if n := testing.AllocsPerRun(20, func() { g.Replay() }); n != 0 {
			t.Errorf("a replay that stages allocates %v times", n)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		if free, _, _ := d.MemInfo(); free != free0 || d.Stats().AllocsLive != live {
			t.Errorf("after the graph's Close: %d bytes free (want %d), %d allocations live (want %d)", free, free0, d.Stats().AllocsLive, live)
		}

		// fn failing after staging: Record returns its error, and nothing stays
		boom := errors.New("boom")
		if _, err := capture.Record(d, func() error {
			if err := d.CopyIn(a, 0, in, dense); err != nil {
				return err
			}
			if err := d.CopyOut(sout, b, 0, rows); err != nil {
				return err
			}
			return boom
		}); err != boom {
			t.Fatalf("Record of a function that fails: %v", err)
		}
		if free, _, _ := d.MemInfo(); free != free0 {
			t.Errorf("after a failed Record: %d bytes free, want %d", free, free0)
		}

		// a Device closed under a graph that stages, and during a capture
		g2, err := capture.Record(d, func() error { return d.CopyIn(a, 0, in, dense) })
		if err != nil {
			t.Fatal(err)
		}
		d2 := open(t, cuda.Options{})
		x2, _ := d2.Malloc(n)
		if _, err := capture.Record(d2, func() error {
			if err := d2.CopyIn(x2, 0, in, dense); err != nil {
				return err
			}
			return d2.Close()
		}); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Record of a function that closes the Device: %v", err)
		}
		if err := errors.Join(d.Close(), g2.Close()); err != nil {
			t.Fatal(err)
		}
	}()
	runtime.GC() // a Pinner dropped with pins left panics here
	cudatest.NoLeak(t, "a graph's staging of Go memory")
}

// BenchmarkLaunchReplay times one tiny kernel + sync, launched
// (Enqueue) against replayed (one graph launch), at the driver level: on
// the mock (RESIDENT_CUDA_MOCK=1, LD_LIBRARY_PATH=the mock) it measures
// the host's own cost, the driver doing nothing; on a GPU, the whole.
func BenchmarkLaunchReplay(b *testing.B) {
	d, err := cuda.Open(cuda.Options{})
	if err != nil {
		b.Skip(err)
	}
	defer d.Close()
	p, err := d.Compile(`__kernel void tiny(__global int *a, float f) { a[get_global_id(0)] = (int)f; }`, "")
	if err != nil {
		b.Skip(err)
	}
	k, err := p.Kernel("tiny")
	if err != nil {
		b.Fatal(err)
	}
	a, _ := d.Malloc(256 * 4)
	defer d.Free(a)
	g1 := device.Grid{Dims: 1, Global: [3]int{256}}
	args := []any{device.Buffer(a.Native()), float32(1)}
	b.Run("eager", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := d.Enqueue(k, g1, args); err != nil {
				b.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
	g, err := capture.Record(d, func() error { return d.Enqueue(k, g1, args) })
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	b.Run("replay", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := g.Replay(); err != nil {
				b.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// captureFaults is TestCaptureMockFault's MOCKCUDA_FAIL: the first
// BeginCapture, the first instantiation, and the first and third graph
// launches fail, and the fourth cuLaunchHostFunc (the fifth Record's)
// answers as a driver without it.
const captureFaults = "cuStreamBeginCapture_v2:1,cuGraphInstantiateWithFlags:1,cuGraphLaunch:1,cuGraphLaunch:3,cuLaunchHostFunc:4"

// TestCaptureMockFault (mock with NVRTC only, captureFaults injected):
// BeginCapture, instantiation, Record's own launch and a replay's launch
// failing come back as errors wrapping *cuda.Error; the device works
// after each (the stream runs work again, a capture can be made); a
// driver without host functions refuses Go memory in a capture as before;
// and after Close nothing is left.
func TestCaptureMockFault(t *testing.T) {
	if !cudatest.InChild() || os.Getenv("MOCKCUDA_FAIL") != captureFaults {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	func() {
		d := open(t, cuda.Options{})
		a, _ := d.Malloc(64)
		b, _ := d.Malloc(64)
		dense := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 64, Stride: 1}}}
		goMem := make([]byte, 64)
		work := func() error { // Go memory too: its staging freed whichever way Record fails
			if err := d.CopyIn(a, 0, goMem, dense); err != nil {
				return err
			}
			return d.Copy(b, 0, a, 0, dense)
		}
		var ce *cuda.Error
		for _, what := range []string{"BeginCapture", "instantiation", "Record's launch"} {
			if g, err := capture.Record(d, work); !errors.As(err, &ce) || g != nil {
				t.Fatalf("Record with its %s failing: %v", what, err)
			}
			if err := d.Copy(a, 0, b, 0, dense); err != nil { // the stream runs work again
				t.Fatalf("after the %s failed: %v", what, err)
			}
		}
		g, err := capture.Record(d, work)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Replay(); !errors.As(err, &ce) {
			t.Fatalf("Replay with its launch failing: %v", err)
		}
		if err := g.Replay(); err != nil { // the fault was once
			t.Fatal(err)
		}
		if _, err := capture.Record(d, work); err == nil || !strings.Contains(err.Error(), "pinned memory only") {
			t.Fatalf("Record of an upload of Go memory without cuLaunchHostFunc: %v", err)
		}
		if err := errors.Join(g.Close(), d.Close()); err != nil {
			t.Fatal(err)
		}
	}()
	cudatest.NoLeak(t, "a graph or a capture")
}
