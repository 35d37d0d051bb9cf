package plumb

import (
	"sync"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/uffd"
)

// Backend is a device package as the module's bridges see it. The package
// registers it at init (RegisterBackend); a bridge finds it by API name
// (device.Native's API) and never imports the package.
type Backend struct {
	// API is device.Native's API of the package's devices: "OpenCL",
	// "CUDA". It is the registry's key.
	API string
	// Lang is the kernel language of its devices (device.Caps.Lang).
	Lang string
	// Closed is the package's closed sentinel; it wraps device.ErrClosed.
	Closed error
	// Owns reports whether d is one of the package's devices (a device
	// that merely reports API is not).
	Owns func(d device.Device) bool
	// Default is the package's default device, opened once and kept open.
	Default func() (device.Device, error)
	// Select opens a device by the names a runtime's C setters chose
	// (OpenCL: platform name, device type); nil where there are none.
	Select func(names ...string) (device.Device, error)
	// Pace bounds the commands in flight on d's queue; nil: no pacing.
	Pace func(d device.Device) error
	// SubBufferAlign is the byte multiple an allocation's offset needs
	// for the runtime to take it as it is (an OpenCL sub-buffer origin);
	// nil: any offset.
	SubBufferAlign func(d device.Device) int
	// ReadBack is where a page fill (internal/uffd's Drop) reads the
	// allocation a: the source and the offset of a's first byte in it;
	// nil: no fills.
	ReadBack func(a device.Allocation) (uffd.Source, uintptr)
}

var backends struct {
	mu    sync.RWMutex
	byAPI map[string]Backend
}

// RegisterBackend adds b, replacing one of the same API. Called from init.
func RegisterBackend(b Backend) {
	backends.mu.Lock()
	defer backends.mu.Unlock()
	if backends.byAPI == nil {
		backends.byAPI = map[string]Backend{}
	}
	backends.byAPI[b.API] = b
}

// BackendOf is the backend registered for api.
func BackendOf(api string) (Backend, bool) {
	backends.mu.RLock()
	defer backends.mu.RUnlock()
	b, ok := backends.byAPI[api]
	return b, ok
}

// BackendFor is the backend that owns d: d is a device.Native whose API
// is registered and whose package claims d.
func BackendFor(d device.Device) (Backend, bool) {
	n, ok := d.(device.Native)
	if !ok {
		return Backend{}, false
	}
	b, ok := BackendOf(n.API())
	if !ok || b.Owns == nil || !b.Owns(d) {
		return Backend{}, false
	}
	return b, true
}
