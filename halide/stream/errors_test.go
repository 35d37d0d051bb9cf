package stream_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/ops"
)

var errBoom = errors.New("boom")

// A step failing at any band: the error names the band and the step,
// nothing stays queued (no live event), the Stream still works for the
// next Run, and Close gives back every device buffer and pinned block,
// for Go and pinned memory.
func TestStepFails(t *testing.T) {
	d := dev(t)
	st, _, _ := plumb.StreamsOf(d)
	r := rand.New(rand.NewPCG(24, 3))
	b := must(t, brighter.BrighterPipeline, uint8(1))
	for _, pinned := range []bool{false, true} {
		for _, at := range []int{0, 2, 4} {
			var h device.HostAllocator
			if pinned {
				h = d
			}
			src := newArray(t, u8, h, []int{0, 0}, []int{40, 25}, r)
			dst := newArray(t, u8, h, []int{0, 0}, []int{40, 25}, r)
			want := newArray(t, u8, nil, []int{0, 0}, []int{40, 25}, r)
			calls, fail := 0, true
			boom := stream.Op("boom", func(out, in *array.Array[uint8]) error {
				calls++
				if fail && calls == at+1 {
					return errBoom
				}
				return b.Run(out, in)
			})
			unstreamed(t, []stream.Step{b, b}, []array.Type{u8, u8, u8}, want, src)
			base := d.Stats()
			s, err := stream.New(stream.Options{Bands: 5}, b, boom)
			if err != nil {
				t.Fatal(err)
			}
			// A traced Run fails as cleanly.
			err = s.RunContext(context.Background(), stream.RunOptions{Trace: &stream.Trace{}}, dst, src)
			if !errors.Is(err, errBoom) {
				t.Fatalf("pinned %v, failing at band %d: %v, want errBoom", pinned, at, err)
			}
			t.Log(err)
			if n := st.Live(); n != 0 {
				t.Errorf("%d events live after a failed Run", n)
			}
			fail = false
			if err := s.Run(dst, src); err != nil {
				t.Fatalf("Run after a failed one: %v", err)
			}
			if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
				t.Error("Run after a failed one differs from the unstreamed chain")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if a := d.Stats(); a.AllocsLive != base.AllocsLive {
				t.Errorf("%d device allocations live after Close, %d before", a.AllocsLive, base.AllocsLive)
			}
		}
	}
}

// Chains that cannot run are refused before anything moves.
func TestBadChains(t *testing.T) {
	d := dev(t)
	r := rand.New(rand.NewPCG(24, 4))
	bl := must(t, blur.BlurOpenclPipeline)
	br := must(t, brighter.BrighterPipeline, uint8(1))
	u8img := func() array.Buffer { return newArray(t, u8, nil, []int{0, 0}, []int{16, 16}, r) }
	u16img := func() array.Buffer { return newArray(t, u16, nil, []int{0, 0}, []int{16, 16}, r) }
	cases := []struct {
		name     string
		dst, src array.Buffer
		steps    []stream.Step
	}{
		{"no halo for a stencil", u16img(), u16img(), []stream.Step{bl}},
		{"source of another type", u8img(), u16img(), []stream.Step{br}},
		{"destination of another type", u16img(), u8img(), []stream.Step{br}},
		{"steps that do not follow on", u16img(), u8img(), []stream.Step{br, bl}},
		{"a host view", u8img(), func() array.Buffer { v, _ := u8img().(*array.Array[uint8]).Host(); return v }(), []stream.Step{br}},
		{"no steps", u8img(), u8img(), nil},
		{"a step without Run", u8img(), u8img(), []stream.Step{{Name: "nothing"}}},
		// A step that computes nothing on the device leaves its output
		// where it was: the stream cannot download it.
		{"a host step", u8img(), u8img(), []stream.Step{{Name: "host", Run: func(out, in array.Buffer) error { return nil }}}},
	}
	for _, c := range cases {
		before := d.Stats()
		err := stream.Run(c.dst, c.src, stream.Options{Bands: 3}, c.steps...)
		if !errors.Is(err, stream.ErrChain) {
			t.Errorf("%s: %v, want ErrChain", c.name, err)
			continue
		}
		if s := d.Stats().Sub(before); c.name != "a host step" && (s.H2DBytes != 0 || s.D2HBytes != 0) {
			t.Errorf("%s: moved %d B up and %d B down before refusing", c.name, s.H2DBytes, s.D2HBytes)
		}
	}
}

// A source whose newest elements are on the device comes home first, an
// automatic copy the transfer guard refuses.
func TestSourceOnDevice(t *testing.T) {
	d := dev(t)
	r := rand.New(rand.NewPCG(24, 5))
	br := must(t, brighter.BrighterPipeline, uint8(2))
	src := newArray(t, u8, nil, []int{0, 0}, []int{32, 8}, r).(*array.Array[uint8])
	mid := array.New[uint8](32, 8)
	defer mid.Close()
	if err := src.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if err := br.Run(mid, src); err != nil { // mid: newest on the device
		t.Fatal(err)
	}
	want := newArray(t, u8, nil, []int{0, 0}, []int{32, 8}, r)
	unstreamed(t, []stream.Step{br, br}, []array.Type{u8, u8, u8}, want, src)
	dst := array.New[uint8](32, 8)
	was := device.SetDeviceGuard(d, true)
	err := stream.Run(dst, mid, stream.Options{Bands: 2}, br)
	device.SetDeviceGuard(d, was)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("a device-newer source under the guard: %v, want ErrTransferGuard", err)
	}
	before := d.Stats()
	if err := stream.Run(dst, mid, stream.Options{Bands: 2}, br); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.D2HBytes != 2*32*8 || s.H2DBytes != 32*8 {
		t.Errorf("moved %d B down, %d B up; want the source home and the output down (%d), the input up (%d)", s.D2HBytes, s.H2DBytes, 2*32*8, 32*8)
	}
	if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
		t.Error("differs from the unstreamed chain")
	}
}

// A Stream on a Device of its own (not halide's default): the steps run
// there, its counters see every byte, and closing the Device under the
// Stream brings none of the band buffers home and makes the next Run an
// error, not a crash.
func TestOwnDevice(t *testing.T) {
	dev(t)
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	br := must(t, brighter.BrighterPipeline, uint8(4))
	// The model runs on the default device: it gets a source of its own,
	// equal to the stream's (an Array allocated on two devices is refused).
	src := newArray(t, u8, nil, []int{0, 0}, []int{33, 17}, rand.New(rand.NewPCG(24, 7)))
	ref := newArray(t, u8, nil, []int{0, 0}, []int{33, 17}, rand.New(rand.NewPCG(24, 7)))
	r := rand.New(rand.NewPCG(24, 8))
	dst := newArray(t, u8, d, []int{0, 0}, []int{33, 17}, r)
	want := newArray(t, u8, nil, []int{0, 0}, []int{33, 17}, r)
	unstreamed(t, []stream.Step{br, br}, []array.Type{u8, u8, u8}, want, ref)
	s, err := stream.New(stream.Options{Device: d, Bands: 4}, br, br)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Run(dst, src); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.H2DBytes != 33*17 || st.D2HBytes != 33*17 || st.Launches == 0 {
		t.Errorf("own device counted %v: want the image up and down and the calls", st)
	}
	if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
		t.Fatal("differs from the unstreamed chain")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := d.Stats().D2HBytes; got != st.D2HBytes {
		t.Errorf("Close brought %d B of band buffers home", got-st.D2HBytes)
	}
	if err := s.Run(dst, src); err == nil {
		t.Error("Run on a closed Device succeeded")
	} else {
		t.Log(err)
	}
}

// Options out of range are refused by New and Run before anything is
// allocated or moved.
func TestBadOptions(t *testing.T) {
	d := dev(t)
	br := must(t, brighter.BrighterPipeline, uint8(1))
	r := rand.New(rand.NewPCG(24, 10))
	src := newArray(t, u8, nil, []int{0, 0}, []int{16, 16}, r)
	dst := newArray(t, u8, nil, []int{0, 0}, []int{16, 16}, r)
	for _, o := range []stream.Options{{Bands: -1}, {Slots: -3}, {Bands: -2, Slots: -1}} {
		if s, err := stream.New(o, br); !errors.Is(err, stream.ErrChain) {
			if s != nil {
				s.Close()
			}
			t.Errorf("New(%+v): %v, want ErrChain", o, err)
		}
		before := d.Stats()
		err := stream.Run(dst, src, o, br)
		if !errors.Is(err, stream.ErrChain) {
			t.Errorf("Run with %+v: %v, want ErrChain", o, err)
			continue
		}
		t.Log(err)
		if s := d.Stats().Sub(before); s.AllocsTotal != 0 || s.H2DBytes != 0 || s.D2HBytes != 0 {
			t.Errorf("Run with %+v: %d allocations, %d B up, %d B down before refusing", o, s.AllocsTotal, s.H2DBytes, s.D2HBytes)
		}
	}
}

// A destination that shares host memory with its source is refused
// before anything is allocated or moved: the bands' downloads would
// overwrite source elements later bands still upload. Views of one
// Array whose elements lie apart are not refused.
func TestSharedMemory(t *testing.T) {
	d := dev(t)
	br := must(t, brighter.BrighterPipeline, uint8(1))
	r := rand.New(rand.NewPCG(24, 11))
	a := newArray(t, u8, nil, []int{0, 0}, []int{16, 16}, r).(*array.Array[uint8])
	blk, err := d.AllocHost(16 * 16)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Free()
	over := func() *array.Array[uint8] {
		b, err := array.NewOver[uint8](blk, 16, 16)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	p, q := over(), over() // two Arrays over one pinned block
	cases := []struct {
		name     string
		dst, src array.Buffer
	}{
		{"the same Array", a, a},
		{"a crop of the source", a.Crop(1, 4, 8), a},
		{"rows that overlap", a.Crop(1, 2, 8).SetMin(0, 0), a.Crop(1, 0, 10)},
		{"two Arrays over one block", p, q},
	}
	for _, c := range cases {
		before := d.Stats()
		err := stream.Run(c.dst, c.src, stream.Options{Bands: 2}, br)
		if !errors.Is(err, stream.ErrChain) {
			t.Errorf("%s: %v, want ErrChain", c.name, err)
			continue
		}
		t.Log(err)
		if s := d.Stats().Sub(before); s.AllocsTotal != 0 || s.H2DBytes != 0 || s.D2HBytes != 0 {
			t.Errorf("%s: %d allocations, %d B up, %d B down before refusing", c.name, s.AllocsTotal, s.H2DBytes, s.D2HBytes)
		}
	}
	if err := stream.Run(a.Crop(1, 8, 8).SetMin(0, 0), a.Crop(1, 0, 8), stream.Options{Bands: 2}, br); err != nil {
		t.Errorf("rows of one Array that do not overlap: %v", err)
	}
}

// A step that panics: the panic reaches Run's caller, and by then Run has
// freed the device buffers it made and left no event live.
func TestStepPanics(t *testing.T) { stepPanics(t, dev(t)) }

func stepPanics(t *testing.T, d device.Device) {
	st, _, err := plumb.StreamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 12))
	for _, h := range []device.HostAllocator{nil, d.(device.HostAllocator)} {
		for _, at := range []int{0, 2} {
			src := newArray(t, u8, h, []int{0, 0}, []int{40, 25}, r)
			dst := newArray(t, u8, h, []int{0, 0}, []int{40, 25}, r)
			calls := 0
			bad := stream.Op("panics", func(out, in *array.Array[uint8]) error {
				if calls++; calls == at+1 {
					panic(errBoom)
				}
				return ops.Copy(out, in)
			})
			base := d.Stats()
			func() {
				defer func() {
					if p := recover(); p != errBoom {
						t.Errorf("pinned %v, panicking at band %d: recovered %v, want errBoom", h != nil, at, p)
					}
				}()
				stream.Run(dst, src, stream.Options{Device: d, Bands: 4}, stream.Op("copy", ops.Copy[uint8]), bad)
			}()
			if a := d.Stats(); a.AllocsLive != base.AllocsLive {
				t.Errorf("pinned %v, panicking at band %d: %d device allocations live after the panic, %d before", h != nil, at, a.AllocsLive, base.AllocsLive)
			}
			if n := st.Live(); n != 0 {
				t.Errorf("pinned %v, panicking at band %d: %d events live after the panic", h != nil, at, n)
			}
		}
	}
}
