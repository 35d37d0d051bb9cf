package stream_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/internal/plumb"
)

// A Run cancelled before it starts or while it queues band k (a step
// cancels its ctx): it returns an error wrapping context.Canceled, queues
// no band after k, leaves no event live, the next Run of the Stream works,
// and Close gives back every device allocation; the package RunContext
// leaves none either.
func TestRunContextCancel(t *testing.T) {
	d := dev(t)
	st, _, _ := plumb.StreamsOf(d)
	r := rand.New(rand.NewPCG(24, 9))
	b := must(t, brighter.BrighterPipeline, uint8(1))
	for _, pinned := range []bool{false, true} {
		var h device.HostAllocator
		if pinned {
			h = d
		}
		src := newArray(t, u8, h, []int{0, 0}, []int{40, 25}, r)
		dst := newArray(t, u8, h, []int{0, 0}, []int{40, 25}, r)
		want := newArray(t, u8, nil, []int{0, 0}, []int{40, 25}, r)
		unstreamed(t, []stream.Step{b, b}, []array.Type{u8, u8, u8}, want, src)
		for _, at := range []int{-1, 0, 2} { // -1: cancelled before the Run
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			canceller := stream.Op("cancel", func(out, in *array.Array[uint8]) error {
				if calls == at {
					cancel()
				}
				calls++
				return b.Run(out, in)
			})
			if at < 0 {
				cancel()
			}
			base := d.Stats()
			s, err := stream.New(stream.Options{Bands: 5}, b, canceller)
			if err != nil {
				t.Fatal(err)
			}
			err = s.RunContext(ctx, stream.RunOptions{Trace: &stream.Trace{}}, dst, src)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("pinned %v, cancelled at band %d: %v, want context.Canceled", pinned, at, err)
			}
			if calls != at+1 {
				t.Errorf("pinned %v, cancelled at band %d: the step ran %d times, want %d (no band queued after)", pinned, at, calls, at+1)
			}
			if n := st.Live(); n != 0 {
				t.Errorf("%d events live after a cancelled Run", n)
			}
			at = -2 // the step cancels no more
			if err := s.RunContext(context.Background(), stream.RunOptions{}, dst, src); err != nil {
				t.Fatalf("Run after a cancelled one: %v", err)
			}
			if !bytes.Equal(hostBytes(t, dst), hostBytes(t, want)) {
				t.Error("Run after a cancelled one differs from the unstreamed chain")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if a := d.Stats(); a.AllocsLive != base.AllocsLive {
				t.Errorf("%d device allocations live after Close, %d before", a.AllocsLive, base.AllocsLive)
			}
			cancel()
		}
		base := d.Stats()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := stream.RunContext(ctx, dst, src, stream.Options{Bands: 3}, b); !errors.Is(err, context.Canceled) {
			t.Errorf("package RunContext, cancelled: %v", err)
		}
		if a := d.Stats(); a.AllocsLive != base.AllocsLive || st.Live() != 0 {
			t.Errorf("package RunContext left %d allocations (%d before), %d events", a.AllocsLive, base.AllocsLive, st.Live())
		}
	}
}

// RunOptions.Trace is filled by its Run alone: a Run without it leaves it
// as it was.
func TestRunOptionsTrace(t *testing.T) {
	d := dev(t)
	r := rand.New(rand.NewPCG(24, 10))
	b := must(t, brighter.BrighterPipeline, uint8(1))
	src := newArray(t, u8, d, []int{0, 0}, []int{40, 25}, r)
	dst := newArray(t, u8, d, []int{0, 0}, []int{40, 25}, r)
	s, err := stream.New(stream.Options{Bands: 4}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mine stream.Trace
	if err := s.RunContext(context.Background(), stream.RunOptions{Trace: &mine}, dst, src); err != nil {
		t.Fatal(err)
	}
	if len(mine.Bands) != 4 {
		t.Errorf("RunOptions.Trace has %d bands, want 4", len(mine.Bands))
	}
	mine = stream.Trace{}
	if err := s.Run(dst, src); err != nil {
		t.Fatal(err)
	}
	if len(mine.Bands) != 0 {
		t.Errorf("a Run without the Trace filled it: %d bands", len(mine.Bands))
	}
}

// A ctx carrying the transfer guard (device.WithGuard) refuses the
// source's automatic copy home for that Run alone, before anything moves.
func TestRunContextGuard(t *testing.T) {
	d := dev(t)
	r := rand.New(rand.NewPCG(24, 11))
	br := must(t, brighter.BrighterPipeline, uint8(2))
	src := newArray(t, u8, nil, []int{0, 0}, []int{32, 8}, r).(*array.Array[uint8])
	mid := array.New[uint8](32, 8)
	defer mid.Close()
	dst := array.New[uint8](32, 8)
	defer dst.Close()
	if err := src.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if err := br.Run(mid, src); err != nil { // mid: newest on the device
		t.Fatal(err)
	}
	before := d.Stats()
	err := stream.RunContext(device.WithGuard(context.Background()), dst, mid, stream.Options{Bands: 2}, br)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("a device-newer source under WithGuard: %v, want ErrTransferGuard", err)
	}
	if s := d.Stats().Sub(before); s.D2HBytes != 0 || s.H2DBytes != 0 {
		t.Errorf("the refused Run moved %d B down, %d B up", s.D2HBytes, s.H2DBytes)
	}
	if err := stream.RunContext(context.Background(), dst, mid, stream.Options{Bands: 2}, br); err != nil {
		t.Fatalf("the same Run without the guard: %v", err)
	}
}
