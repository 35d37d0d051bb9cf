package opencl

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
)

var _ device.PeerCopier = (*Device)(nil)

// CopyFromPeer copies n bytes from src, an allocation of another Device of
// the same context (Split, Several), to dst on d with one clEnqueueCopyBuffer on
// d's queue, once src's device has finished its queued work. Devices with
// separate contexts cannot share buffers: it reports false for them, and
// device.CopyBetween stages through the host instead.
func (d *Device) CopyFromPeer(dst device.Allocation, dstOff int, src device.Allocation, srcOff, n int) (bool, error) {
	xs, ok := src.(*alloc)
	if !ok || xs.Dev.s.ctx.Handle() != d.s.ctx.Handle() {
		return false, nil
	}
	for _, s := range []*state{d.s, xs.Dev.s} { // both queues, both memories
		if err := s.Enter(); err != nil {
			return false, err
		}
		defer s.Gate.Leave()
	}
	xd, err := d.own(dst)
	if err != nil {
		return false, err
	}
	if _, err := xs.Dev.own(src); err != nil {
		return false, err
	}
	if dstOff < 0 || srcOff < 0 || n < 0 || n > xd.N-dstOff || n > xs.N-srcOff {
		return false, fmt.Errorf("opencl: CopyFromPeer of %d bytes from %d of %d into %d of %d: %w", n, srcOff, xs.N, dstOff, xd.N, device.ErrOutOfRange)
	}
	if err := xs.Dev.Sync(); err != nil { // the source's writes land first
		return false, err
	}
	q := d.s.queue.Handle()
	err = d.retryOOM(func() error {
		return cl.CopyMem(q, xs.Root.H, xd.Root.H, xs.Off+srcOff, xd.Off+dstOff, n, nil, nil)
	})
	if err == nil {
		err = cl.Flush(q)
	}
	if err != nil {
		return false, fmt.Errorf("opencl: copy from %s to %s: %w", xs.Dev.s.Name, d.s.Name, err)
	}
	d.s.Counters.Peer(n)
	return true, nil
}
