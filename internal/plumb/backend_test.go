package plumb

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// native is a sim device that reports a device API.
type native struct {
	*sim.Device
	api string
}

func (n native) API() string                 { return n.api }
func (n native) Handles() (uintptr, uintptr) { return 0, 0 }

// A backend is found by its API name, and owns only its own devices: a
// device that merely reports the API is not its.
func TestBackendRegistry(t *testing.T) {
	const api = "test-api"
	closed := errors.Join(errors.New("test: closed"), device.ErrClosed)
	mine := native{sim.New("mine", 0), api}
	other := native{sim.New("other", 0), api}
	defer mine.Close()
	defer other.Close()
	if _, ok := BackendOf(api); ok {
		t.Fatal("found before registration")
	}
	RegisterBackend(Backend{API: api, Closed: closed, Owns: func(d device.Device) bool { return d == device.Device(mine) }})
	b, ok := BackendOf(api)
	if !ok || b.API != api || !errors.Is(b.Closed, device.ErrClosed) {
		t.Fatalf("BackendOf(%q) = %+v, %v", api, b, ok)
	}
	if _, ok := BackendFor(mine); !ok {
		t.Error("BackendFor(its own device) = false")
	}
	if _, ok := BackendFor(other); ok {
		t.Error("BackendFor(a device only reporting the API) = true")
	}
	if _, ok := BackendFor(sim.New("plain", 0)); ok {
		t.Error("BackendFor(a device with no API) = true")
	}
}
