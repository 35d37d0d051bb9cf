package cuda_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/sim"
)

// TestOpen: either a device that names itself and computes in "CUDA", or
// an error wrapping ErrNoCUDA (then the other tests skip).
func TestOpen(t *testing.T) {
	d, err := cuda.Open(cuda.Options{})
	if err != nil {
		if !errors.Is(err, cuda.ErrNoCUDA) {
			t.Fatalf("error does not wrap ErrNoCUDA: %v", err)
		}
		t.Skipf("no CUDA here: %v", err)
	}
	defer d.Close()
	c := d.Caps()
	t.Logf("%s: %+v", d.Name(), c)
	if d.Name() == "" || c.Lang != cuda.Lang || c.Units < 1 || !device.Computes(d) {
		t.Fatalf("name %q caps %+v", d.Name(), c)
	}
	if _, err := cuda.Open(cuda.Options{Ordinal: 1 << 20}); !errors.Is(err, cuda.ErrNoCUDA) {
		t.Fatalf("Open of a device that is not there: %v, want ErrNoCUDA", err)
	}
	free, total, err := d.MemInfo()
	if err != nil || free <= 0 || total < free {
		t.Fatalf("MemInfo = %d, %d, %v", free, total, err)
	}
}

// transferCase is a Region at an offset in an allocation, in Go or pinned
// memory, through staging or not.
type transferCase struct {
	name string
	off  int
	r    device.Region
}

func transferCases() []transferCase {
	sp := func(e, s int) device.Span { return device.Span{Extent: e, Stride: s} }
	if raceEnabled { // the byte-by-byte checks of the 40 MiB cases take minutes
		return slices.DeleteFunc(allTransferCases(sp), func(c transferCase) bool { return c.r.SpanBytes() > 8<<20 })
	}
	return allTransferCases(sp)
}

func allTransferCases(sp func(e, s int) device.Span) []transferCase {
	return []transferCase{
		{"dense-small", 0, device.Region{ElemSize: 4, Shape: []device.Span{sp(1000, 1)}}},
		{"dense-offset", 12, device.Region{ElemSize: 2, Shape: []device.Span{sp(333, 1)}}},
		{"dense-4MiB", 64, device.Region{ElemSize: 4, Shape: []device.Span{sp(1<<20, 1)}}},
		{"dense-40MiB", 0, device.Region{ElemSize: 8, Shape: []device.Span{sp(5<<20, 1)}}},
		{"rows", 8, device.Region{ElemSize: 4, Shape: []device.Span{sp(100, 1), sp(300, 128)}}},
		{"rows-wide", 0, device.Region{ElemSize: 1, Shape: []device.Span{sp(3<<20, 1), sp(9, 4<<20)}}},
		{"column", 4, device.Region{ElemSize: 4, Shape: []device.Span{sp(1, 1), sp(5000, 7)}}},
		{"box3d", 0, device.Region{ElemSize: 2, Shape: []device.Span{sp(30, 1), sp(20, 40), sp(10, 1000)}}},
		{"transposed", 0, device.Region{ElemSize: 4, Shape: []device.Span{sp(64, 200), sp(200, 1)}}},
		{"rank5", 16, device.Region{ElemSize: 1, Shape: []device.Span{sp(3, 1), sp(2, 4), sp(2, 9), sp(2, 20), sp(3, 41)}}},
		{"empty", 0, device.Region{ElemSize: 4, Shape: []device.Span{sp(0, 1)}}},
	}
}

// TestTransfers moves every case in and out, from Go memory and from
// pinned memory, with staging on and off, and checks the Region's bytes
// against the host's, the bytes between its rows untouched on the way
// out, and the counters.
func TestTransfers(t *testing.T) {
	for _, o := range []cuda.Options{{}, {NoStaging: true}, {StagingChunk: 1 << 20, StagingMin: 1, StagingMinD2H: 1}} {
		d := open(t, o)
		for _, pinned := range []bool{false, true} {
			for _, tc := range transferCases() {
				t.Run(fmt.Sprintf("staging=%v/pinned=%v/%s", !o.NoStaging, pinned, tc.name), func(t *testing.T) {
					testTransfer(t, d, tc, pinned)
				})
			}
		}
	}
}

func testTransfer(t *testing.T, d *cuda.Device, tc transferCase, pinned bool) {
	span := tc.r.SpanBytes()
	mk := func() []byte {
		if !pinned || span == 0 {
			return make([]byte, span)
		}
		blk, err := d.AllocHost(span)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { blk.Free() })
		return blk.Bytes()[:span]
	}
	src, dst := mk(), mk()
	rng := rand.New(rand.NewPCG(uint64(span), 7))
	for i := range src {
		src[i] = byte(rng.Uint32())
		dst[i] = 0xEE
	}
	a, err := d.Malloc(tc.off + span)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(a)
	before := d.Stats()
	if err := d.CopyIn(a, tc.off, src, tc.r); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyOut(dst, a, tc.off, tc.r); err != nil {
		t.Fatal(err)
	}
	in := make([]bool, span)
	tc.r.Simplify().Rows(func(off, n int) {
		for i := off; i < off+n; i++ {
			in[i] = true
		}
	})
	for i := range dst {
		if in[i] && dst[i] != src[i] || !in[i] && dst[i] != 0xEE {
			t.Fatalf("byte %d (in the region: %v) = %#x, sent %#x", i, in[i], dst[i], src[i])
		}
	}
	s := d.Stats().Sub(before)
	n := int64(tc.r.Bytes())
	if n > 0 && (s.H2DCalls != 1 || s.H2DBytes != n || s.D2HCalls != 1 || s.D2HBytes != n) {
		t.Fatalf("counters %v, want one H2D and one D2H of %d bytes", s, n)
	}
}

// TestCopyAndCrop copies a strided Region between two allocations, one a
// crop, and reads it back.
func TestCopyAndCrop(t *testing.T) {
	d := open(t, cuda.Options{})
	r := device.Region{ElemSize: 4, Shape: []device.Span{{Extent: 50, Stride: 1}, {Extent: 40, Stride: 64}}}
	span := r.SpanBytes()
	src := make([]byte, span)
	for i := range src {
		src[i] = byte(i * 13)
	}
	a, _ := d.Malloc(span)
	root, _ := d.Malloc(span + 4096)
	b, err := d.Crop(root, 4096, span)
	if err != nil {
		t.Fatal(err)
	}
	if b.Native() != root.Native() || b.Offset() != 4096 {
		t.Fatalf("crop: native %#x offset %d, root %#x", b.Native(), b.Offset(), root.Native())
	}
	if err := d.CopyIn(a, 0, src, r); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	if err := d.Copy(b, 0, a, 0, r); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.D2DCalls != 1 || s.D2DBytes != int64(r.Bytes()) {
		t.Fatalf("counters %v", s)
	}
	got := make([]byte, span)
	if err := d.CopyOut(got, b, 0, r); err != nil {
		t.Fatal(err)
	}
	r.Simplify().Rows(func(off, n int) {
		if !bytes.Equal(got[off:off+n], src[off:off+n]) {
			t.Fatalf("row at %d differs", off)
		}
	})
	if _, err := d.Crop(root, 4096, span+1); !errors.Is(err, device.ErrOutOfRange) {
		t.Fatalf("crop past the end: %v", err)
	}
	if err := d.CopyIn(a, 4, src, r); !errors.Is(err, device.ErrOutOfRange) {
		t.Fatalf("region past the end: %v", err)
	}
	if err := d.Memset(a, 0, 7, span); err != nil {
		t.Fatal(err)
	}
	dense := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: span, Stride: 1}}}
	if err := d.CopyOut(got, a, 0, dense); err != nil {
		t.Fatal(err)
	}
	if got[0] != 7 || got[span-1] != 7 {
		t.Fatalf("after Memset: %d %d", got[0], got[span-1])
	}
	for _, x := range []device.Allocation{b, root, a} {
		if err := d.Free(x); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCache: a freed block serves the next allocation of its bin; with
// NoCache nothing is kept; Close frees what is live and cached.
func TestCache(t *testing.T) {
	d := open(t, cuda.Options{})
	a, _ := d.Malloc(1 << 20)
	d.Free(a)
	before := d.Stats()
	b, err := d.Malloc(1<<20 - 100)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.CacheHits != 1 || s.CacheMisses != 0 || s.AllocsLive != 1 || s.BytesLive != 1<<20-100 {
		t.Fatalf("second Malloc of the bin: %v", s)
	}
	d.Free(b)
	d.Free(b) // twice: a no-op
	if s := d.Stats(); s.AllocsLive != 0 || s.CachedBytes != 1<<20 {
		t.Fatalf("after Free: %v", s)
	}
	if err := d.ReleaseCache(); err != nil || d.Stats().CachedBytes != 0 {
		t.Fatalf("ReleaseCache: %v %v", err, d.Stats())
	}
	n := open(t, cuda.Options{NoCache: true})
	x, _ := n.Malloc(4096)
	n.Free(x)
	if s := n.Stats(); s.CachedBytes != 0 || s.CacheHits != 0 {
		t.Fatalf("NoCache kept a block: %v", s)
	}
}

// TestClose: Close is idempotent, frees what is live, and every later use
// returns ErrClosed; pinned blocks still held are freed after it.
func TestClose(t *testing.T) {
	d := open(t, cuda.Options{})
	a, _ := d.Malloc(1000)
	blk, err := d.AllocHost(4096)
	if err != nil {
		t.Fatal(err)
	}
	hooked := 0
	d.OnClose(func() { hooked++ })
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if hooked != 1 || !d.Closed() {
		t.Fatalf("hook ran %d times, closed %v", hooked, d.Closed())
	}
	if s := d.Stats(); s.AllocsLive != 0 || s.BytesLive != 0 || s.CachedBytes != 0 {
		t.Fatalf("after Close: %v", s)
	}
	if _, err := d.Malloc(10); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Malloc after Close: %v", err)
	}
	if err := d.CopyIn(a, 0, make([]byte, 10), device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 10, Stride: 1}}}); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("CopyIn after Close: %v", err)
	}
	if err := d.Sync(); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Sync after Close: %v", err)
	}
	blk.Bytes()[4095] = 1 // still valid until Free
	if err := blk.Free(); err != nil {
		t.Fatal(err)
	}
	if err := blk.Free(); err != nil {
		t.Fatalf("second Free: %v", err)
	}
}

// TestForeign: another device's allocation is refused, nothing moves.
func TestForeign(t *testing.T) {
	d := open(t, cuda.Options{})
	s := sim.New("other", 0)
	x, _ := s.Malloc(64)
	if err := d.Free(x); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("Free of a sim allocation: %v", err)
	}
	if err := d.CopyOut(make([]byte, 64), x, 0, device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 64, Stride: 1}}}); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("CopyOut of a sim allocation: %v", err)
	}
	if st := d.Stats(); st.D2HCalls != 0 {
		t.Fatalf("moved: %v", st)
	}
}

// TestConcurrent: goroutines share one Device, each moving its own data
// in and out (staged, direct and pinned) and allocating, and every byte
// comes back.
func TestConcurrent(t *testing.T) {
	d := open(t, cuda.Options{StagingMin: 64 << 10, StagingMinD2H: 64 << 10})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			n := (g + 1) * 100 << 10
			r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
			src, back := make([]byte, n), make([]byte, n)
			for i := range src {
				src[i] = byte(i*g + 1)
			}
			for range 5 {
				a, err := d.Malloc(n)
				if err == nil {
					err = d.CopyIn(a, 0, src, r)
				}
				if err == nil {
					err = d.CopyOut(back, a, 0, r)
				}
				if err == nil && !bytes.Equal(src, back) {
					err = fmt.Errorf("goroutine %d: data differs", g)
				}
				if err != nil {
					errs <- err
					return
				}
				d.Free(a)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := d.Stats(); s.AllocsLive != 0 || s.H2DCalls != 40 || s.D2HCalls != 40 {
		t.Fatalf("counters %v", s)
	}
}
