package cuda

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

var _ device.PeerCopier = (*Device)(nil)

// CopyFromPeer copies n bytes from src, an allocation of another Device
// of the same CUDA context (two Devices opened on one GPU share its
// primary context), to dst on d: src's stream is waited for, then one
// device-to-device copy is queued on d's stream, counted as Peer. Other
// allocations (another GPU, another API) report false, and
// device.CopyBetween stages through the host.
func (d *Device) CopyFromPeer(dst device.Allocation, dstOff int, src device.Allocation, srcOff, n int) (bool, error) {
	return devkit.CopyFromPeer(&d.s.Core, d, dst, dstOff, src, srcOff, n,
		func(o *Device) (*devkit.Core, bool) { return &o.s.Core, o.s.ctx == d.s.ctx },
		func(xd, xs *alloc) error { return cu.DtoD(d.s.ctx, at(xd, dstOff), at(xs, srcOff), n, d.s.stream) })
}
