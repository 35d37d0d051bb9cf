package device_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// TestCopyBetweenBadArguments: a negative count or offset, or a nil
// allocation, is an error wrapping ErrOutOfRange, never a silent no-op or a
// nil dereference; a zero count of valid arguments moves nothing.
func TestCopyBetweenBadArguments(t *testing.T) {
	d0, d1 := sim.New("a", 1<<20), sim.New("b", 1<<20)
	src, err := d0.Malloc(64)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := d1.Malloc(64)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name              string
		dst, src          device.Allocation
		dstOff, srcOff, n int
	}{
		{"negative count", dst, src, 0, 0, -1},
		{"most negative count", dst, src, 0, 0, -1 << 63},
		{"negative dst offset", dst, src, -1, 0, 8},
		{"negative src offset", dst, src, 0, -8, 8},
		{"negative offset, zero count", dst, src, -1, 0, 0},
		{"nil dst", nil, src, 0, 0, 8},
		{"nil src", dst, nil, 0, 0, 8},
		{"nil both, zero count", nil, nil, 0, 0, 0},
		{"past the end", dst, src, 60, 0, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := device.CopyBetween(c.dst, c.dstOff, c.src, c.srcOff, c.n)
			if !errors.Is(err, device.ErrOutOfRange) || p != device.PathNone {
				t.Errorf("CopyBetween = %v, %v; want PathNone and an error wrapping ErrOutOfRange", p, err)
			}
		})
	}
	if p, err := device.CopyBetween(dst, 0, src, 0, 0); err != nil || p != device.PathNone {
		t.Errorf("zero bytes: %v, %v; want PathNone, nil", p, err)
	}
	if p, err := device.CopyBetween(dst, 8, src, 0, 56); err != nil || p != device.PathStaged {
		t.Errorf("56 bytes: %v, %v; want staged, nil", p, err)
	}
}
