package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// forRuns cuts a simplified Region into pieces that one copy call moves:
// consecutive rows a constant pitch apart (at least the row, at most
// maxPitch) join one 2-D piece; limit > 0 caps a piece's bytes (rows
// longer than limit are cut into segments). Stage is left 0.
func forRuns(r device.Region, maxPitch, limit int, fn func(devkit.Piece) error) error {
	var cur devkit.Piece
	var err error
	flush := func() {
		if cur.Rows > 0 && err == nil {
			err = fn(cur)
		}
		cur = devkit.Piece{}
	}
	r.Rows(func(off, n int) {
		if err != nil {
			return
		}
		if limit > 0 && n > limit {
			flush()
			for seg := 0; seg < n && err == nil; seg += limit {
				err = fn(devkit.Piece{Off: off + seg, RowBytes: min(limit, n-seg), Rows: 1, Pitch: n})
			}
			return
		}
		fits := limit <= 0 || (cur.Rows+1)*n <= limit
		switch {
		case cur.Rows == 1 && fits && off-cur.Off >= n && off-cur.Off <= maxPitch:
			cur.Pitch, cur.Rows = off-cur.Off, 2
		case cur.Rows > 1 && fits && off == cur.Off+cur.Rows*cur.Pitch:
			cur.Rows++
		default:
			flush()
			cur = devkit.Piece{Off: off, RowBytes: n, Rows: 1, Pitch: n}
		}
	})
	flush()
	return err
}

// moveHost is CopyIn and CopyOut's transfer. During a capture, Go memory
// goes through a staging block of the graph's (stageGo); pinned memory
// is moved as it is, and a replay checks that it is still allocated.
func (d *Device) moveHost(x *alloc, c devkit.HostCall) error {
	host := c.Host[:c.Span]
	if d.s.recording() != nil && !d.s.Pinned(host) {
		if err := d.s.stageGo(c.Write, at(x, c.Off), host, c.Rs); err != nil {
			if errors.Is(err, &cu.Error{Code: cu.ErrorNotSupported}) {
				return d.s.refuse(c.Op + " of Go memory (a graph moves pinned memory only, this driver having no cuLaunchHostFunc: make the Array with array.NewIn(dev, …))")
			}
			return fmt.Errorf("cuda: %s of Go memory on %s during a capture: %w", c.Op, d.s.Name, err)
		}
		d.record(c.Op, nil, nil, x.Root.H)
		return nil
	}
	if err := d.s.transfer(c.Write, at(x, c.Off), host, c.Rs); err != nil {
		return fmt.Errorf("cuda: %s on %s: %w", c.Op, d.s.Name, err)
	}
	if d.s.recording() != nil { // not boxing a hostRange on every call
		d.record(c.Op, nil, hostRange{uintptr(unsafe.Pointer(&host[0])), c.Span}, x.Root.H)
	}
	return nil
}

// transfer moves a simplified Region between host and dev, waiting for it.
func (s *state) transfer(write bool, dev cu.DevicePtr, host []byte, r device.Region) error {
	pinned := s.Pinned(host)
	dense := len(r.Shape) == 1
	least := s.opts.StagingMinD2H
	if write {
		least = s.opts.StagingMin
	}
	if !pinned && !s.opts.NoStaging && (!dense || r.Bytes() >= least) {
		return s.staged(write, dev, host, r)
	}
	err := s.queueCopy(write, dev, host, r, pinned)
	if s.recording() != nil {
		return err // recorded, not run: pinned memory the graph moves at each launch
	}
	// Wait even after an error: copies already queued may still read or
	// write host.
	if e := cu.StreamSync(s.ctx, s.stream); err == nil {
		err = e
	}
	runtime.KeepAlive(host)
	return err
}

// queueCopy queues the copies of a simplified Region between host and
// dev on the stream, 2-D where host is pinned.
func (s *state) queueCopy(write bool, dev cu.DevicePtr, host []byte, r device.Region, pinned bool) error {
	base := unsafe.Pointer(&host[0])
	return forRuns(r, s.maxPitch, 0, func(p devkit.Piece) error {
		h := unsafe.Add(base, p.Off)
		dp := dev + cu.DevicePtr(p.Off)
		switch {
		case p.Rows == 1 && write:
			return cu.HtoD(s.ctx, dp, h, p.RowBytes, s.stream)
		case p.Rows == 1:
			return cu.DtoH(s.ctx, h, dp, p.RowBytes, s.stream)
		case !pinned: // Go memory, row by row: the 1-D calls are the ones documented for pageable memory
			for y := range p.Rows {
				hy, dy := unsafe.Add(h, y*p.Pitch), dp+cu.DevicePtr(y*p.Pitch)
				var err error
				if write {
					err = cu.HtoD(s.ctx, dy, hy, p.RowBytes, s.stream)
				} else {
					err = cu.DtoH(s.ctx, hy, dy, p.RowBytes, s.stream)
				}
				if err != nil {
					return err
				}
			}
			return nil
		case write:
			return cu.Copy2DHtoD(s.ctx, dp, p.Pitch, h, p.Pitch, p.RowBytes, p.Rows, s.stream)
		default:
			return cu.Copy2DDtoH(s.ctx, h, p.Pitch, dp, p.Pitch, p.RowBytes, p.Rows, s.stream)
		}
	})
}

// Copy copies a Region between two allocations of this device; the copy
// is queued on the stream, and later work on it sees the result.
func (d *Device) Copy(dst device.Allocation, dstOff int, src device.Allocation, srcOff int, r device.Region) error {
	return devkit.Copy(&d.s.Core, d, dst, dstOff, src, srcOff, r, func(xd, xs *alloc, rs device.Region) error {
		s := d.s
		do, so := at(xd, dstOff), at(xs, srcOff)
		err := forRuns(rs, s.maxPitch, 0, func(p devkit.Piece) error {
			off := cu.DevicePtr(p.Off)
			if p.Rows == 1 {
				return cu.DtoD(s.ctx, do+off, so+off, p.RowBytes, s.stream)
			}
			return cu.Copy2DDtoD(s.ctx, do+off, p.Pitch, so+off, p.Pitch, p.RowBytes, p.Rows, s.stream)
		})
		if err == nil {
			d.record("Copy", nil, nil, xd.Root.H, xs.Root.H)
		}
		return err
	})
}

// Memset queues setting n bytes at byte off of a to v: an op's own write,
// counted as a launch.
func (d *Device) Memset(a device.Allocation, off int, v byte, n int) error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	x, err := d.own(a)
	if err != nil {
		return err
	}
	if off < 0 || n < 0 || off > x.N || n > x.N-off {
		return fmt.Errorf("cuda: Memset of %d bytes at %d of %d: %w", n, off, x.N, device.ErrOutOfRange)
	}
	if n == 0 {
		return nil
	}
	if err := cu.MemsetD8(d.s.ctx, at(x, off), v, n, d.s.stream); err != nil {
		return fmt.Errorf("cuda: Memset on %s: %w", d.s.Name, err)
	}
	d.s.Counters.Launch()
	d.record("Memset", nil, nil, x.Root.H)
	return nil
}
