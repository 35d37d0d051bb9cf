package sim_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

func row(n int) device.Region {
	return device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
}

func TestTransfersAndCrops(t *testing.T) {
	d := sim.New("t", 0)
	a, _ := d.Malloc(16)
	src := []byte("0123456789abcdef")
	if err := d.CopyIn(a, 0, src, row(16)); err != nil {
		t.Fatal(err)
	}
	c, err := d.Crop(a, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	// A strided region: 2 rows of 3 bytes, 4 apart, from the crop.
	out := make([]byte, 7)
	r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 3, Stride: 1}, {Extent: 2, Stride: 4}}}
	if err := d.CopyOut(out, c, 1, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, []byte("567\x009ab")) {
		t.Fatalf("strided copy out %q", out)
	}
	b, _ := d.Malloc(16)
	if err := d.Copy(b, 0, c, 0, row(8)); err != nil {
		t.Fatal(err)
	}
	if got := b.(*sim.Alloc).Mem()[:8]; string(got) != "456789ab" {
		t.Fatalf("device copy %q", got)
	}
	s := d.Stats()
	if s.H2DBytes != 16 || s.D2HBytes != 6 || s.D2DBytes != 8 || s.AllocsLive != 2 {
		t.Fatalf("stats %v", s)
	}
	d.Free(a)
	if d.Stats().AllocsLive != 2 {
		t.Fatal("root freed while its crop lives")
	}
	d.Free(c)
	d.Free(c) // twice: no-op
	if d.Stats().AllocsLive != 1 {
		t.Fatal("root not freed after its crop")
	}
	d.Close()
	if d.Stats().AllocsLive != 0 {
		t.Fatal("Close left allocations")
	}
}

func TestErrors(t *testing.T) {
	d, other := sim.New("t", 64), sim.New("o", 0)
	a, _ := d.Malloc(16)
	foreign, _ := other.Malloc(16)
	tests := []struct {
		name string
		err  func() error
	}{
		{"over the limit", func() error { _, err := d.Malloc(100); return err }},
		{"negative size", func() error { _, err := d.Malloc(-1); return err }},
		{"foreign allocation", func() error { return d.CopyIn(foreign, 0, make([]byte, 4), row(4)) }},
		{"foreign free", func() error { return d.Free(foreign) }},
		{"crop outside", func() error { _, err := d.Crop(a, 8, 16); return err }},
		{"region past the allocation", func() error { return d.CopyIn(a, 8, make([]byte, 16), row(16)) }},
		{"region past the host slice", func() error { return d.CopyOut(make([]byte, 2), a, 0, row(4)) }},
		{"bad region", func() error { return d.CopyIn(a, 0, nil, device.Region{ElemSize: 0}) }},
	}
	for _, tt := range tests {
		if tt.err() == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	d.Close()
	if _, err := d.Malloc(1); !errors.Is(err, sim.ErrClosed) {
		t.Errorf("Malloc after Close: %v", err)
	}
	if err := d.CopyIn(a, 0, make([]byte, 4), row(4)); !errors.Is(err, sim.ErrClosed) {
		t.Errorf("CopyIn after Close: %v", err)
	}
}

// TestUseDuringCloseWrapsClosed: a transfer racing a Close whose hook
// frees its allocation fails with an error wrapping device.ErrClosed,
// never as a plain use after Free (own read freed twice, and a hook's free
// could land between the reads: closerace seed 372196).
func TestUseDuringCloseWrapsClosed(t *testing.T) {
	rounds := 1000
	if testing.Short() {
		rounds = 100
	}
	buf := make([]byte, 8)
	r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 8, Stride: 1}}}
	for i := range rounds {
		d := sim.New("close", 0)
		a, err := d.Malloc(8)
		if err != nil {
			t.Fatal(err)
		}
		d.OnClose(func() { _ = d.Free(a) })
		errc, going := make(chan error, 1), make(chan struct{})
		go func() {
			for n := 0; ; n++ {
				if n == 1 {
					close(going)
				}
				if err := d.CopyOut(buf, a, 0, r); err != nil {
					errc <- err
					return
				}
			}
		}()
		<-going
		_ = d.Close()
		if err := <-errc; !errors.Is(err, device.ErrClosed) {
			t.Fatalf("round %d: %v does not wrap device.ErrClosed", i, err)
		}
	}
}
