package halide_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
)

// The bridge's codes for a closed device, a foreign device and the
// transfer guard match the module's sentinels too.
func TestCodesMatchModuleSentinels(t *testing.T) {
	for _, c := range []struct {
		code halide.Code
		base error
	}{
		{halide.ErrDeviceClosed, device.ErrClosed},
		{halide.ErrForeignDevice, device.ErrForeign},
		{halide.ErrTransferGuard, device.ErrTransferGuard},
	} {
		err := error(&halide.Error{Pipeline: "p", Code: int(c.code), Msg: "m"})
		if !errors.Is(err, c.base) || !errors.Is(err, c.code) {
			t.Errorf("code %d: errors.Is(%v) = %v, want true", c.code, c.base, errors.Is(err, c.base))
		}
	}
	if errors.Is(&halide.Error{Code: int(halide.ErrBadType)}, device.ErrClosed) {
		t.Error("a bad-type error matches device.ErrClosed")
	}
}
