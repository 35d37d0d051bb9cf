package opencl

import (
	"errors"
	"fmt"

	"github.com/resident-go/resident/internal/cl"
)

// openGroup opens one Device on each of ids, which must share a platform,
// all in one context, each with its own in-order queue. Their buffers are
// usable by one another, so device.CopyBetween copies between them
// directly (CopyFromPeer). Each Device closes on its own; the context goes
// with the last. The Devices take the IDs over: each releases its own
// when it closes (sub-devices are reference-counted).
func openGroup(o Options, ids ...cl.DeviceID) ([]*Device, error) {
	o.defaults()
	if len(ids) == 0 {
		return nil, errors.New("opencl: opening a group: no devices")
	}
	ctx, err := cl.CreateContext(ids...)
	if err != nil {
		for _, id := range ids {
			cl.ReleaseDevice(id)
		}
		return nil, err
	}
	devs := make([]*Device, 0, len(ids))
	for i, id := range ids {
		c := cl.ContextOf(ctx.Handle(), ctx.Devices()...)
		if i > 0 {
			if err = cl.Retain(cl.KindContext, ctx.Handle()); err != nil {
				break
			}
		}
		var q *cl.CommandQueue
		if q, err = c.CreateQueue(id, 0); err != nil {
			c.Release()
			break
		}
		d := newDevice(o, id.Platform(), id, c, q)
		// Sub-devices are released on Close (clReleaseDevice is a no-op
		// on a root device, so roots need nothing).
		d.s.subID = id.IsSubDevice()
		devs = append(devs, d)
	}
	if err != nil {
		for _, d := range devs {
			d.Close()
		}
		for _, id := range ids[len(devs):] {
			cl.ReleaseDevice(id)
		}
		return nil, err
	}
	return devs, nil
}

// ErrCannotSplit is wrapped by Split's error when the device has no
// sub-devices of the size asked for (most GPUs), or there is none.
var ErrCannotSplit = errors.New("opencl: the device cannot be split")

// Split opens the device Open(o) would choose as parts Devices of one
// context, each with an equal share of its compute units (sub-devices):
// several devices on one CPU, for tests and benchmarks
// of placement.
func Split(o Options, parts int) ([]*Device, error) {
	if parts < 1 {
		return nil, fmt.Errorf("opencl: Split(%d): want at least one part", parts)
	}
	o.defaults()
	_, id, err := choose(&o)
	if err != nil {
		return nil, fmt.Errorf("%w: no device: %w", ErrCannotSplit, err)
	}
	return split(o, id, parts)
}

// split opens id as parts sub-devices of one context.
func split(o Options, id cl.DeviceID, parts int) ([]*Device, error) {
	subs, err := id.SubDevices(max(id.MaxComputeUnits()/max(parts, 1), 1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCannotSplit, err)
	}
	if len(subs) < parts {
		for _, s := range subs {
			cl.ReleaseDevice(s)
		}
		return nil, fmt.Errorf("%w: %s splits into %d devices, not %d", ErrCannotSplit, id.Name(), len(subs), parts)
	}
	for _, s := range subs[parts:] {
		cl.ReleaseDevice(s)
	}
	return openGroup(o, subs[:parts]...)
}

// Several opens n Devices to spread work over, in one context: the first
// n devices of the platform and type Open(o) would choose when it has that
// many (several GPUs), else that device split n ways (Split; PoCL's CPU
// device). An error wrapping ErrCannotSplit says neither is possible.
func Several(o Options, n int) ([]*Device, error) {
	if n < 1 {
		return nil, fmt.Errorf("opencl: Several(%d): want at least one device", n)
	}
	o.defaults()
	p, id, err := choose(&o)
	if err != nil {
		return nil, err
	}
	ids, err := p.Devices(id.Type())
	if err != nil {
		return nil, err
	}
	if len(ids) >= n {
		return openGroup(o, ids[:n]...)
	}
	devs, err := split(o, id, n)
	if err != nil {
		return nil, fmt.Errorf("%s has %d %s device(s), and: %w", p.Name(), len(ids), id.Type(), err)
	}
	return devs, nil
}
