package device

import "fmt"

// Path says how CopyBetween moved data from one device to another.
type Path uint8

const (
	PathNone   Path = iota // nothing moved
	PathDirect             // device to device, without the host (one context, or peer access)
	PathStaged             // down into host staging memory, then up
)

func (p Path) String() string {
	return [...]string{"none", "direct", "staged through host"}[p]
}

// PeerCopier is implemented by devices that can copy from another device's
// allocation without the host.
type PeerCopier interface {
	// CopyFromPeer copies n bytes at srcOff in src, an allocation of
	// another device, to dstOff in dst, an allocation of this one, after
	// the work queued on src's device; counted in this device's Peer
	// counters. It reports false, having done nothing, when the two
	// devices cannot reach each other.
	CopyFromPeer(dst Allocation, dstOff int, src Allocation, srcOff, n int) (bool, error)
}

// stagingChunk bounds the host memory CopyBetween stages through.
const stagingChunk = 64 << 20

// CopyBetween copies n bytes from srcOff in src to dstOff in dst, which
// live on two different devices: directly when dst's device can reach
// src's (PeerCopier), else through host staging memory in chunks (pinned
// when dst's device offers it), counted as downloads on src's device and
// uploads on dst's. It returns the path taken; on error dst's bytes are
// unspecified and src's unchanged.
func CopyBetween(dst Allocation, dstOff int, src Allocation, srcOff, n int) (Path, error) {
	if dst == nil || src == nil {
		return PathNone, fmt.Errorf("device: CopyBetween: %w: a nil Allocation (dst %v, src %v): pass two live allocations", ErrOutOfRange, dst != nil, src != nil)
	}
	if n < 0 || dstOff < 0 || srcOff < 0 || n > dst.Bytes()-dstOff || n > src.Bytes()-srcOff {
		return PathNone, fmt.Errorf("device: CopyBetween of %d bytes from %d of %d into %d of %d: %w", n, srcOff, src.Bytes(), dstOff, dst.Bytes(), ErrOutOfRange)
	}
	if n == 0 {
		return PathNone, nil
	}
	dd, sd := dst.Device(), src.Device()
	if dd == nil || sd == nil {
		return PathNone, fmt.Errorf("device: CopyBetween: %w: an Allocation without a Device: pass allocations made by a Device's Malloc", ErrOutOfRange)
	}
	if p, ok := dd.(PeerCopier); ok {
		done, err := p.CopyFromPeer(dst, dstOff, src, srcOff, n)
		if err != nil {
			return PathDirect, fmt.Errorf("device: copy from %s to %s: %w", sd.Name(), dd.Name(), err)
		}
		if done {
			return PathDirect, nil
		}
	}
	chunk := min(n, stagingChunk)
	var buf []byte
	if h, ok := dd.(HostAllocator); ok {
		if blk, err := h.AllocHost(chunk); err == nil {
			defer blk.Free()
			buf = blk.Bytes()[:chunk]
		}
	}
	if buf == nil {
		buf = make([]byte, chunk)
	}
	for off := 0; off < n; off += chunk {
		m := min(chunk, n-off)
		r := Region{ElemSize: 1, Shape: []Span{{Extent: m, Stride: 1}}}
		if err := sd.CopyOut(buf[:m], src, srcOff+off, r); err != nil {
			return PathStaged, fmt.Errorf("device: staging from %s: %w", sd.Name(), err)
		}
		if err := dd.CopyIn(dst, dstOff+off, buf[:m], r); err != nil {
			return PathStaged, fmt.Errorf("device: staging to %s: %w", dd.Name(), err)
		}
		if err := dd.Sync(); err != nil { // the upload may read buf until it completes
			return PathStaged, err
		}
	}
	return PathStaged, nil
}
