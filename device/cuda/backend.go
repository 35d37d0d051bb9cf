package cuda

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/uffd"
)

// The package as the module's bridges (halide) find it, by API name.
func init() {
	plumb.RegisterBackend(plumb.Backend{
		API:    "CUDA",
		Lang:   Lang,
		Closed: ErrClosed,
		Owns:   func(d device.Device) bool { _, ok := d.(*Device); return ok },
		Default: func() (device.Device, error) {
			d, err := Default()
			if err != nil {
				return nil, err
			}
			return d, nil
		},
		ReadBack: func(a device.Allocation) (uffd.Source, uintptr) {
			s := a.Device().(*Device).s
			return uffd.NewSource(cu.ReadBack(), uintptr(s.ctx), uintptr(s.stream)), a.Native() + uintptr(a.Offset())
		},
	})
}
