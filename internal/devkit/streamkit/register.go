package streamkit

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
)

// Register makes a backend's devices (type D) known to GateOf, with the
// gate of core(d), and to plumb.StreamsOf, with streams(d). Called from
// init only.
func Register[D device.Device](core func(D) *devkit.Core, streams func(D) (plumb.Streams, error)) {
	devkit.RegisterGate(func(d D) *devkit.Gate { return &core(d).Gate })
	plumb.RegisterStreams(func(d device.Device) (plumb.Streams, bool, error) {
		if x, ok := d.(D); ok {
			st, err := streams(x)
			return st, true, err
		}
		return nil, false, nil
	})
}
