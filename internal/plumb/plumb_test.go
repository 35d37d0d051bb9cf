package plumb

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
)

func TestCheckAutomatic(t *testing.T) {
	was := guard.Set(true)
	defer guard.Set(was)
	if err := CheckAutomatic(nil, "upload of x"); !errors.Is(err, device.ErrTransferGuard) || !strings.Contains(err.Error(), "upload of x") {
		t.Fatalf("guard on: %v", err)
	}
	guard.Set(false)
	if err := CheckAutomatic(nil, "y"); err != nil {
		t.Fatalf("guard off: %v", err)
	}
}
