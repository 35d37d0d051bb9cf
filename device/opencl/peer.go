package opencl

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

var _ device.PeerCopier = (*Device)(nil)

// CopyFromPeer copies n bytes from src, an allocation of another Device of
// the same context (Split, Several), to dst on d with one clEnqueueCopyBuffer on
// d's queue, once src's device has finished its queued work. Devices with
// separate contexts cannot share buffers: it reports false for them, and
// device.CopyBetween stages through the host instead.
func (d *Device) CopyFromPeer(dst device.Allocation, dstOff int, src device.Allocation, srcOff, n int) (bool, error) {
	q := d.s.queue.Handle()
	return devkit.CopyFromPeer(&d.s.Core, d, dst, dstOff, src, srcOff, n,
		func(o *Device) (*devkit.Core, bool) { return &o.s.Core, o.s.ctx.Handle() == d.s.ctx.Handle() },
		func(xd, xs *alloc) error {
			err := d.retryOOM(func() error {
				return cl.CopyMem(q, xs.Root.H, xd.Root.H, xs.Off+srcOff, xd.Off+dstOff, n, nil, nil)
			})
			if err == nil {
				err = cl.Flush(q)
			}
			return err
		})
}
