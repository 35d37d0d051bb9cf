package opencl

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/devkit/streamkit"
	"github.com/resident-go/resident/internal/plumb"
)

// Package halide's plumbing, lent through internal/plumb.
func init() {
	plumb.OpenCL.Owns = func(d device.Device) bool { _, ok := d.(*Device); return ok }
	plumb.OpenCL.Pace = func(d device.Device) error { return d.(*Device).pace() }
	plumb.OpenCL.InFlight = func(d device.Device) int { return d.(*Device).inFlight() }
	plumb.OpenCL.SubBufferAlign = func(d device.Device) int { return d.(*Device).subBufferAlign() }
	streamkit.Register(func(d *Device) *devkit.Core { return &d.s.Core }, (*Device).streamsOf)
}
