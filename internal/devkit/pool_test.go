package devkit_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/devkit"
)

// TestPool walks a root through crops, frees, the cache and Close,
// against the counters.
func TestPool(t *testing.T) {
	var c devkit.Counters
	p := &devkit.Pool{Counters: &c, ErrClosed: device.ErrClosed, ErrForeign: device.ErrForeign}
	p.SetCacheLimit(1 << 20)
	d, other := sim.New("a", 0), sim.New("b", 0)
	a, ok := devkit.Track(p, d, &devkit.Root{H: 7, Size: 4096, User: 4000})
	if !ok || a.Bytes() != 4000 || a.Native() != 7 || c.Snapshot().AllocsLive != 1 {
		t.Fatalf("Track: %v %+v %v", ok, a, c.Snapshot())
	}
	cr, err := devkit.Crop(p, d, a, 100, 50)
	if err != nil || cr.Offset() != 100 || cr.Bytes() != 50 || cr.Native() != 7 {
		t.Fatalf("Crop: %v %+v", err, cr)
	}
	if _, err := devkit.Crop(p, d, a, 3990, 11); !errors.Is(err, device.ErrOutOfRange) {
		t.Fatalf("Crop past the end: %v", err)
	}
	if _, err := devkit.Own(p, other, a); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("Own by another device: %v", err)
	}
	if r, err := devkit.Free(p, d, a); r != nil || err != nil || c.Snapshot().AllocsLive != 1 {
		t.Fatalf("Free of the root while a crop lives: %v %v %v", r, err, c.Snapshot())
	}
	if _, err := devkit.Own(p, d, a); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("Own after Free: %v", err)
	}
	if r, err := devkit.Free(p, d, cr); r != nil || err != nil {
		t.Fatalf("last Free: %v %v (the block goes to the cache)", r, err)
	}
	if s := c.Snapshot(); s.AllocsLive != 0 || s.CachedBytes != 4096 {
		t.Fatalf("after the last Free: %v", s)
	}
	if h, hit, err := p.Take(4096, true); h != 7 || !hit || err != nil {
		t.Fatalf("Take: %d %v %v", h, hit, err)
	}
	b, _ := devkit.Track(p, d, &devkit.Root{H: 9, Size: 512, User: 10, Adopted: true})
	if r, _ := devkit.Free(p, d, b); r == nil || r.H != 9 {
		t.Fatal("an adopted root is released, never cached")
	}
	e, _ := devkit.Track(p, d, &devkit.Root{H: 11, Size: 512, User: 10})
	live, cached := p.Close()
	if len(live) != 1 || live[0].H != 11 || len(cached) != 0 || c.Snapshot().AllocsLive != 0 {
		t.Fatalf("Close: %v %v %v", live, cached, c.Snapshot())
	}
	if r, err := devkit.Free(p, d, e); r != nil || err != nil {
		t.Fatal("Free after Close must do nothing")
	}
	if _, _, err := p.Take(512, true); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Take after Close: %v", err)
	}
	if _, ok := devkit.Track(p, d, &devkit.Root{H: 12}); ok {
		t.Fatal("Track after Close")
	}
}
