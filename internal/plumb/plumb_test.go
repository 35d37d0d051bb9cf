package plumb

import (
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
)

func TestCheckAutomatic(t *testing.T) {
	was := device.SetGuard(true)
	defer device.SetGuard(was)
	if err := CheckAutomatic(nil, "upload of x"); !errors.Is(err, device.ErrTransferGuard) || !strings.Contains(err.Error(), "upload of x") {
		t.Fatalf("guard on: %v", err)
	}
	device.SetGuard(false)
	if err := CheckAutomatic(nil, "y"); err != nil {
		t.Fatalf("guard off: %v", err)
	}
}
