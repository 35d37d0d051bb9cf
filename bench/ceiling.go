package bench

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// measureCeiling times H2D, D2H and D2D copies of one image between host
// memory of kind mem and the device, and within the device.
func (r *runner) measureCeiling(mem Memory) (Ceiling, error) {
	dev := r.cfg.Device
	host, err := r.newImage(mem)
	if err != nil {
		return Ceiling{}, err
	}
	defer host.Close()
	reg := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: host.Len(), Stride: 1}}}
	hv, err := host.Host()
	if err != nil {
		return Ceiling{}, err
	}
	src := hv.Data()
	a, err := dev.Malloc(r.bytes)
	if err != nil {
		return Ceiling{}, fmt.Errorf("bench: ceiling allocation: %w", err)
	}
	defer dev.Free(a)
	b, err := dev.Malloc(r.bytes)
	if err != nil {
		return Ceiling{}, fmt.Errorf("bench: ceiling allocation: %w", err)
	}
	defer dev.Free(b)

	// Sync after each copy so the time is the copy's, not its enqueueing.
	timed := func(op func() error) (Timing, error) {
		ds, err := measure(r.cfg.Warmup, r.cfg.CeilingReps, func() error {
			if err := op(); err != nil {
				return err
			}
			return dev.Sync()
		})
		return Summarize(ds), err
	}
	c := Ceiling{Memory: mem}
	if c.H2D, err = timed(func() error { return dev.CopyIn(a, 0, src, reg) }); err != nil {
		return c, err
	}
	if c.D2H, err = timed(func() error { return dev.CopyOut(src, a, 0, reg) }); err != nil {
		return c, err
	}
	if c.D2D, err = timed(func() error { return dev.Copy(b, 0, a, 0, reg) }); err != nil {
		return c, err
	}
	n := float64(r.bytes)
	c.H2DGBps = gbps(n, c.H2D.Median)
	c.D2HGBps = gbps(n, c.D2H.Median)
	c.HostDeviceGBps = gbps(2*n, c.H2D.Median+c.D2H.Median)
	c.D2DGBps = gbps(2*n, c.D2D.Median)
	return c, nil
}
