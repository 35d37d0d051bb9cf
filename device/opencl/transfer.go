package opencl

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// moveHost is CopyIn and CopyOut's transfer, recorded during a capture.
func (d *Device) moveHost(x *alloc, c devkit.HostCall) error {
	if err := d.retryOOM(func() error { return d.s.transfer(c.Write, x.Root.H, x.Off+c.Off, c.Host, c.Rs, c.Span) }); err != nil {
		return fmt.Errorf("opencl: %s on %s: %w", c.Op, d.s.Name, err)
	}
	if d.s.capture.Load() != nil {
		d.recordHost(x, c)
	}
	return nil
}

// recordHost records a host copy: a replay does it again unless its
// pinned memory was freed since. (Apart from moveHost, whose c would
// otherwise go to the heap on every call.)
func (d *Device) recordHost(x *alloc, c devkit.HostCall) {
	p := uintptr(unsafe.Pointer(&c.Host[0]))
	pinned := d.s.Pins.Contains(p, c.Span)
	d.record(c.Op, nil, func([]any) error {
		if pinned && !d.s.Pins.Contains(p, c.Span) { // C memory: freed with its Array
			return fmt.Errorf("opencl: %s of %d bytes of pinned memory that was freed since the capture (an Array closed): record again: %w", c.Op, c.Span, device.ErrOutOfRange)
		}
		return devkit.HostCopy(&d.s.Core, d, c.Write, c.A, c.Off, c.Host, c.R, d.moveHost)
	}, nil, x.Root.H)
}

// transfer moves a simplified Region, span bytes from first to last byte,
// between host and mem at devOff.
func (s *state) transfer(write bool, mem uintptr, devOff int, host []byte, r device.Region, span int) error {
	pinned := s.Pins.Contains(uintptr(unsafe.Pointer(&host[0])), span)
	least := s.opts.StagingMinD2H
	if write {
		least = s.opts.StagingMin
	}
	if s.stage && !pinned && r.Bytes() >= least {
		return s.staged(write, mem, devOff, host, r)
	}
	if len(r.Shape) == 1 {
		n := r.Bytes()
		// Blocking, so Go memory is fine: OpenCL is done with it on return.
		return cl.ReadWrite(s.queue.Handle(), mem, write, true, devOff, n, unsafe.Pointer(&host[0]), nil, nil)
	}
	return forBoxes(r, func(b box, last bool) error {
		// Go memory must be done with before the call returns; pinned memory
		// may stay in flight until the last (in-order) box.
		blocking := !pinned || last
		p := unsafe.Pointer(&host[b.off])
		if b.rect == nil {
			return cl.ReadWrite(s.queue.Handle(), mem, write, blocking, devOff+b.off, b.n, p, nil, nil)
		}
		rc := cl.Rect{BufferOrigin: [3]int{devOff + b.off, 0, 0}, Region: b.rect.region,
			BufferRowPitch: b.rect.row, BufferSlicePitch: b.rect.slice, HostRowPitch: b.rect.row, HostSlicePitch: b.rect.slice}
		return cl.ReadWriteRect(s.queue.Handle(), mem, write, blocking, &rc, p, nil, nil)
	})
}

// retryOOM runs op again after freeing the cache when it fails for lack of
// memory: drivers such as NVIDIA's allocate a buffer at its first use, so
// cached blocks can starve a transfer even though Malloc succeeded.
func (d *Device) retryOOM(op func() error) error {
	err := op()
	if cl.IsOutOfMemory(err) && d.s.Counters.Snapshot().CachedBytes > 0 {
		d.ReleaseCache()
		err = op()
	}
	return err
}

// Copy copies a Region between two allocations of this device; the copy is
// queued and flushed, and later transfers on the queue see it.
func (d *Device) Copy(dst device.Allocation, dstOff int, src device.Allocation, srcOff int, r device.Region) error {
	return devkit.Copy(&d.s.Core, d, dst, dstOff, src, srcOff, r, func(xd, xs *alloc, rs device.Region) error {
		q := d.s.queue.Handle()
		do, so := xd.Off+dstOff, xs.Off+srcOff
		err := d.retryOOM(func() error {
			return forBoxes(rs, func(b box, _ bool) error {
				if b.rect == nil {
					return cl.CopyMem(q, xs.Root.H, xd.Root.H, so+b.off, do+b.off, b.n, nil, nil)
				}
				rc := cl.CopyRect{SrcOrigin: [3]int{so + b.off, 0, 0}, DstOrigin: [3]int{do + b.off, 0, 0}, Region: b.rect.region,
					SrcRowPitch: b.rect.row, SrcSlicePitch: b.rect.slice, DstRowPitch: b.rect.row, DstSlicePitch: b.rect.slice}
				return cl.CopyMemRect(q, xs.Root.H, xd.Root.H, &rc, nil, nil)
			})
		})
		if err == nil {
			err = cl.Flush(q)
		}
		if err == nil {
			d.record("Copy", nil, func([]any) error { return d.Copy(dst, dstOff, src, srcOff, r) }, nil, xd.Root.H, xs.Root.H)
		}
		return err
	})
}

// box is one OpenCL call's worth of a Region: a run of n bytes at byte off
// from the Region's start, or a rect.
type box struct {
	off, n int
	rect   *rectShape
}

type rectShape struct {
	region     [3]int // bytes, rows, slices
	row, slice int    // pitches in bytes
}

// forBoxes splits a simplified Region into the fewest OpenCL calls: the
// inner one or two strided dimensions go into a rect when the rect's pitch
// rules allow (row pitch ≥ row bytes; slice pitch ≥ rows·row pitch and a
// multiple of it), the rest are looped over.
func forBoxes(r device.Region, fn func(b box, last bool) error) error {
	es := r.ElemSize
	sh := r.Shape
	rowBytes := sh[0].Extent * es
	inner := 1 // dimensions one call covers
	var rs *rectShape
	if len(sh) > 1 && sh[1].Stride*es >= rowBytes {
		rs = &rectShape{region: [3]int{rowBytes, sh[1].Extent, 1}, row: sh[1].Stride * es}
		rs.slice = rs.row * sh[1].Extent
		inner = 2
		if len(sh) > 2 {
			if sl := sh[2].Stride * es; sl >= sh[1].Extent*rs.row && sl%rs.row == 0 {
				rs.region[2], rs.slice = sh[2].Extent, sl
				inner = 3
			}
		}
	}
	// The dimensions left over are looped over: their first elements are
	// the rows of a Region of one-element rows.
	outer := device.Region{ElemSize: es, Shape: append([]device.Span{{Extent: 1, Stride: 1}}, sh[inner:]...)}
	total, k := outer.Elems(), 0
	var err error
	outer.Rows(func(off, _ int) {
		if err == nil {
			err = fn(box{off: off, n: rowBytes, rect: rs}, k == total-1)
		}
		k++
	})
	return err
}
