package device_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// FuzzRegion gives transfers Regions and offsets anywhere in int64: each is
// refused with ErrOutOfRange or moves bytes inside both sides, never panicking
// or hanging.
func FuzzRegion(f *testing.F) {
	f.Add(int64(2), int64(1), int64(1<<62+1), int64(4), int64(0), int64(1))
	f.Add(int64(4), int64(1<<62), int64(1), int64(1<<62), int64(8), int64(2))
	f.Add(int64(3), int64(8), int64(2), int64(16), int64(-1), int64(1))
	f.Fuzz(func(t *testing.T, e0, s0, e1, s1, off, es int64) {
		r := device.Region{ElemSize: int(es), Shape: []device.Span{{Extent: int(e0), Stride: int(s0)}, {Extent: int(e1), Stride: int(s1)}}}
		d := sim.New("fuzz", 0)
		a, _ := d.Malloc(256)
		host := make([]byte, 256)
		err := d.CopyIn(a, int(off), host, r)
		if err == nil {
			if r.Fits(int(off), 256) != nil {
				t.Fatalf("CopyIn took %v at %d, which does not fit", r, off)
			}
			return
		}
		if !errors.Is(err, device.ErrOutOfRange) {
			t.Fatalf("CopyIn of %v at %d: %v, want ErrOutOfRange", r, off, err)
		}
	})
}
