package array_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// The module has one closed and one range sentinel: array's wrap them,
// without repeating their text.
func TestSentinelsWrapTheModules(t *testing.T) {
	for _, c := range []struct {
		err, base error
		text      string
	}{
		{array.ErrClosed, device.ErrClosed, "array: used after Close"},
		{array.ErrOutOfRange, device.ErrOutOfRange, "array: out of range"},
	} {
		if !errors.Is(c.err, c.base) || c.err.Error() != c.text {
			t.Errorf("%q: wraps %v: %v", c.err, c.base, errors.Is(c.err, c.base))
		}
	}
	a := array.New[float32](2)
	a.Close()
	if _, err := a.Crop(0, 0, 1).Host(); !errors.Is(err, device.ErrClosed) || !errors.Is(err, array.ErrClosed) {
		t.Errorf("use after Close: %v, want an error wrapping array.ErrClosed and device.ErrClosed", err)
	}
}
