package cuda

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
)

var _ device.PeerCopier = (*Device)(nil)

// CopyFromPeer copies n bytes from src, an allocation of another Device
// of the same CUDA context (two Devices opened on one GPU share its
// primary context), to dst on d: src's stream is waited for, then one
// device-to-device copy is queued on d's stream, counted as Peer. Other
// allocations (another GPU, another API) report false, and
// device.CopyBetween stages through the host.
func (d *Device) CopyFromPeer(dst device.Allocation, dstOff int, src device.Allocation, srcOff, n int) (bool, error) {
	xs, ok := src.(*alloc)
	if !ok || xs.Dev.s.ctx != d.s.ctx {
		return false, nil
	}
	for _, s := range []*state{d.s, xs.Dev.s} { // both streams, both memories
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
		return false, fmt.Errorf("cuda: CopyFromPeer of %d bytes from %d of %d into %d of %d: %w", n, srcOff, xs.N, dstOff, xd.N, device.ErrOutOfRange)
	}
	if err := xs.Dev.Sync(); err != nil { // the source's writes land first
		return false, err
	}
	if err := cu.DtoD(d.s.ctx, at(xd, dstOff), at(xs, srcOff), n, d.s.stream); err != nil {
		return false, fmt.Errorf("cuda: copy from %s to %s: %w", xs.Dev.s.Name, d.s.Name, err)
	}
	d.s.Counters.Peer(n)
	return true, nil
}
