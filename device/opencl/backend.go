package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/uffd"
)

// The package as the module's bridges (halide) find it, by API name.
func init() {
	plumb.RegisterBackend(plumb.Backend{
		API:     "OpenCL",
		Lang:    "OpenCL C",
		Closed:  ErrClosed,
		Owns:    func(d device.Device) bool { _, ok := d.(*Device); return ok },
		Default: func() (device.Device, error) { return asDevice(Default()) },
		Select: func(names ...string) (device.Device, error) {
			var o Options
			if len(names) > 0 {
				o.Platform = names[0]
			}
			if len(names) > 1 && names[1] != "" {
				t, err := ParseDeviceType(names[1])
				if err != nil {
					return nil, fmt.Errorf("device type: %w", err)
				}
				o.Type = t
			}
			return asDevice(Open(o))
		},
		Pace:           func(d device.Device) error { return d.(*Device).pace() },
		SubBufferAlign: func(d device.Device) int { return d.(*Device).subBufferAlign() },
		ReadBack: func(a device.Allocation) (uffd.Source, uintptr) {
			return uffd.NewSource(cl.ReadBack(), a.Device().(*Device).s.queue.Handle(), a.Native()), uintptr(a.Offset())
		},
	})
}

// asDevice keeps a failed open's nil from becoming a non-nil interface.
func asDevice(d *Device, err error) (device.Device, error) {
	if err != nil {
		return nil, err
	}
	return d, nil
}
