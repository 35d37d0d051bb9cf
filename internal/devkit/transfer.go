package devkit

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/uffd"
)

// The frames of a backend's transfers: the gate, the ownership and range
// checks and the counting are here; the driver's copy is a callback.

// HostCall is one CopyIn or CopyOut as HostCopy hands it to the driver.
type HostCall struct {
	Op    string // "CopyIn" (Write) or "CopyOut"
	Write bool
	A     device.Allocation
	Off   int
	Host  []byte
	R     device.Region // as asked
	Rs    device.Region // R simplified
	Span  int           // bytes of Host from R's first to last byte
}

// HostCopy is CopyIn (write) and CopyOut: inside the gate, a as one of
// dev's live allocations x and r at byte off in it checked against host;
// move transfers the call and returns its error as the caller is to see
// it; then it counts.
func HostCopy[D Dev](c *Core, dev D, write bool, a device.Allocation, off int, host []byte, r device.Region,
	move func(x *Alloc[D], hc HostCall) error) error {
	if err := c.Enter(); err != nil {
		return err
	}
	defer c.Gate.Leave()
	x, err := Own(&c.Pool, dev, a)
	if err != nil {
		return err
	}
	hc := HostCall{Op: "CopyOut", Write: write, A: a, Off: off, Host: host, R: r}
	if write {
		hc.Op = "CopyIn"
	}
	hc.Rs, hc.Span, err = CheckRegion(c.Pkg, hc.Op, x.N, off, r, len(host))
	if err != nil || hc.Span == 0 {
		return err
	}
	if err := Settle(host[:hc.Span], write, r); err != nil {
		return fmt.Errorf("%s: %s on %s: %w", c.Pkg, hc.Op, c.Name, err)
	}
	if err := move(x, hc); err != nil {
		return err
	}
	c.Counters.Transfer(write, r.Bytes())
	return nil
}

// Copy is device.Device.Copy: inside the gate, both allocations dev's and
// live and r checked at both offsets; move queues the copy of rs (r
// simplified) from byte srcOff of xs to byte dstOff of xd; then it
// counts a D2D copy.
func Copy[D Dev](c *Core, dev D, dst device.Allocation, dstOff int, src device.Allocation, srcOff int, r device.Region,
	move func(xd, xs *Alloc[D], rs device.Region) error) error {
	if err := c.Enter(); err != nil {
		return err
	}
	defer c.Gate.Leave()
	xd, xs, rs, span, err := CopyPair(&c.Pool, dev, c.Pkg, dst, dstOff, src, srcOff, r)
	if err != nil || span == 0 {
		return err
	}
	if err := move(xd, xs, rs); err != nil {
		return fmt.Errorf("%s: Copy on %s: %w", c.Pkg, c.Name, err)
	}
	c.Counters.D2D(r.Bytes())
	return nil
}

// CopyFromPeer is device.PeerCopier's frame: src must be an allocation of
// another device of type D whose Core peer returns, with ok when it shares
// memory with dev (else false, nil: device.CopyBetween stages through the
// host). Inside both gates, with both allocations live, the byte ranges
// in bounds and src's device synchronized (its writes land first), move
// queues the copy of n bytes; then it counts a Peer copy.
func CopyFromPeer[D Dev](c *Core, dev D, dst device.Allocation, dstOff int, src device.Allocation, srcOff, n int,
	peer func(D) (pc *Core, ok bool), move func(xd, xs *Alloc[D]) error) (bool, error) {
	xs, ok := src.(*Alloc[D])
	if !ok {
		return false, nil
	}
	pc, ok := peer(xs.Dev)
	if !ok {
		return false, nil
	}
	for _, k := range []*Core{c, pc} { // both queues, both memories
		if err := k.Enter(); err != nil {
			return false, err
		}
		defer k.Gate.Leave()
	}
	xd, err := Own(&c.Pool, dev, dst)
	if err != nil {
		return false, err
	}
	if _, err := Own(&pc.Pool, xs.Dev, src); err != nil {
		return false, err
	}
	if dstOff < 0 || srcOff < 0 || n < 0 || n > xd.N-dstOff || n > xs.N-srcOff {
		return false, fmt.Errorf("%s: CopyFromPeer of %d bytes from %d of %d into %d of %d: %w", c.Pkg, n, srcOff, xs.N, dstOff, xd.N, device.ErrOutOfRange)
	}
	if err := xs.Dev.Sync(); err != nil {
		return false, err
	}
	if err := move(xd, xs); err != nil {
		return false, fmt.Errorf("%s: copy from %s to %s: %w", c.Pkg, pc.Name, c.Name, err)
	}
	c.Counters.Peer(n)
	return true, nil
}

// Settle makes host's dropped pages (internal/uffd) whole before a driver
// moves them, as it must never fault on a page whose fill goes through a
// driver: a CopyOut that writes every byte of them needs no fill.
func Settle(host []byte, write bool, r device.Region) error {
	return uffd.Settle(uintptr(unsafe.Pointer(unsafe.SliceData(host))), uintptr(len(host)), !write && r.Bytes() == len(host))
}
