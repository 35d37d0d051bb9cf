package opencl

import (
	"errors"
	"runtime"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// stager is a pair of pinned chunks for moving ordinary Go memory: drivers
// move pageable memory slowly (NVIDIA: 6–10 GB/s against 53 GB/s pinned),
// so we copy into pinned memory in Go, several goroutines at once, while the
// previous chunk is on the bus. Go memory never reaches a non-blocking call.
type stager struct {
	mem   [2]uintptr
	ptr   [2]unsafe.Pointer // C memory
	chunk int
}

const (
	defaultChunk      = 16 << 20
	defaultStagingMin = 256 << 10
	// Transfers smaller than four chunks go in four batches of at least
	// minBatch, so that the copy of one overlaps the DMA of another: in
	// one batch, a 4 MiB move from Go memory was the copy's time plus the
	// DMA's (11 GB/s on the H200, under PyTorch's pageable 11.6).
	minBatch = 256 << 10
)

// batchBytes is the staging batch for a transfer of n bytes.
func (st *stager) batchBytes(n int) int {
	return min(st.chunk, max(minBatch, (n/4+4095)&^4095))
}

// getStager returns the device's stager, creating it on first use; the
// caller holds s.stageMu.
func (s *state) getStager() (*stager, error) {
	if s.stager != nil {
		return s.stager, nil
	}
	st := &stager{chunk: s.opts.StagingChunk}
	for i := range st.mem {
		mem, ptr, err := s.mapped(st.chunk)
		if err != nil {
			if i == 1 {
				s.unmapped(st.mem[0], st.ptr[0])
			}
			return nil, err
		}
		st.mem[i], st.ptr[i] = mem, ptr
	}
	s.stager = st
	return st, nil
}

func (st *stager) release(s *state) error {
	return errors.Join(s.unmapped(st.mem[0], st.ptr[0]), s.unmapped(st.mem[1], st.ptr[1]))
}

func (st *stager) slot(i, n int) []byte { return unsafe.Slice((*byte)(st.ptr[i]), n) }

func (s *state) threads() int {
	if s.opts.CopyThreads > 0 {
		return s.opts.CopyThreads
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

// waitRelease waits for *ev, if any, releases it and zeroes it.
func waitRelease(ev *cl.Event) error {
	if ev.IsZero() {
		return nil
	}
	err := ev.Wait()
	ev.Release()
	*ev = cl.Event{}
	return err
}

// piece is a run of rows of one box that fits in a staging slot: rows rows
// of rowBytes bytes, pitch bytes apart, starting off bytes from the Region's
// first byte (on host and device alike: they share the layout), and packed
// at stage in the slot.
type piece struct {
	off, rowBytes, rows, pitch, stage int
}

func (p piece) bytes() int { return p.rowBytes * p.rows }

// forPieces cuts a simplified Region into pieces of at most chunk bytes.
func forPieces(r device.Region, chunk int, fn func(p piece) error) error {
	return forBoxes(r, func(b box, _ bool) error {
		ny, nz, pitch, slice := 1, 1, b.n, b.n
		if b.rect != nil {
			ny, nz, pitch, slice = b.rect.region[1], b.rect.region[2], b.rect.row, b.rect.slice
		}
		for z := range nz {
			base := b.off + z*slice
			if b.n > chunk { // long rows: segments of one row
				for y := range ny {
					for seg := 0; seg < b.n; seg += chunk {
						if err := fn(piece{off: base + y*pitch + seg, rowBytes: min(chunk, b.n-seg), rows: 1, pitch: pitch}); err != nil {
							return err
						}
					}
				}
				continue
			}
			per := chunk / b.n
			for y := 0; y < ny; y += per {
				if err := fn(piece{off: base + y*pitch, rowBytes: b.n, rows: min(per, ny-y), pitch: pitch}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// moveRows copies a batch's rows between host and the packed slot, split
// over up to k goroutines.
func moveRows(slot, host []byte, batch []piece, gather bool, k int) {
	total, rows := 0, 0
	for _, p := range batch {
		total += p.bytes()
		rows += p.rows
	}
	if len(batch) == 1 && batch[0].rows == 1 {
		p := batch[0]
		h, s := host[p.off:p.off+p.rowBytes], slot[p.stage:p.stage+p.rowBytes]
		if gather {
			devkit.ParallelCopy(s, h, k)
		} else {
			devkit.ParallelCopy(h, s, k)
		}
		return
	}
	k = min(k, total/devkit.CopyPiece, rows)
	k = max(k, 1)
	per := (rows + k - 1) / k
	run := func(lo, hi int) { // global row numbers [lo, hi)
		first := 0
		for _, p := range batch {
			for y := max(lo-first, 0); y < min(hi-first, p.rows); y++ {
				h := host[p.off+y*p.pitch : p.off+y*p.pitch+p.rowBytes]
				s := slot[p.stage+y*p.rowBytes : p.stage+(y+1)*p.rowBytes]
				if gather {
					copy(s, h)
				} else {
					copy(h, s)
				}
			}
			first += p.rows
		}
	}
	var wg sync.WaitGroup
	for lo := per; lo < rows; lo += per {
		wg.Go(func() { run(lo, min(lo+per, rows)) })
	}
	run(0, min(per, rows))
	wg.Wait()
}

// enqueueBatch starts the transfers of a batch between the slot and mem at
// devOff; ev receives the last one's event, which on the in-order queue
// stands for all of them.
func (s *state) enqueueBatch(write bool, mem uintptr, devOff int, slot unsafe.Pointer, batch []piece, ev *cl.Event) error {
	for i, p := range batch {
		var e *cl.Event
		if i == len(batch)-1 {
			e = ev
		}
		ptr := unsafe.Add(slot, p.stage)
		var err error
		if p.rows == 1 {
			err = cl.ReadWrite(s.queue.Handle(), mem, write, false, devOff+p.off, p.rowBytes, ptr, nil, e)
		} else {
			rc := cl.Rect{BufferOrigin: [3]int{devOff + p.off, 0, 0}, Region: [3]int{p.rowBytes, p.rows, 1},
				BufferRowPitch: p.pitch, BufferSlicePitch: p.pitch * p.rows, HostRowPitch: p.rowBytes, HostSlicePitch: p.bytes()}
			err = cl.ReadWriteRect(s.queue.Handle(), mem, write, false, &rc, ptr, nil, e)
		}
		if err != nil {
			return err
		}
	}
	return cl.Flush(s.queue.Handle())
}

// batches groups pieces into slot-sized batches and calls fn for each.
func batches(r device.Region, chunk int, fn func(batch []piece) error) error {
	var cur []piece
	fill := 0
	err := forPieces(r, chunk, func(p piece) error {
		if fill+p.bytes() > chunk {
			if err := fn(cur); err != nil {
				return err
			}
			cur, fill = nil, 0
		}
		p.stage = fill
		fill += p.bytes()
		cur = append(cur, p)
		return nil
	})
	if err == nil && len(cur) > 0 {
		err = fn(cur)
	}
	return err
}

// staged moves the Region between host and mem at devOff through the two
// staging slots. Writing, batch i is gathered into one slot while batch
// i-1 is on the bus from the other; reading, batch i is on the bus while
// batch i-1 is scattered. A slot is reused only after its last transfer
// completed, and none is left in flight on return.
func (s *state) staged(write bool, mem uintptr, devOff int, host []byte, r device.Region) (err error) {
	s.stageMu.Lock()
	defer s.stageMu.Unlock()
	st, err := s.getStager()
	if err != nil {
		return err
	}
	var evs [2]cl.Event
	defer func() {
		for i := range evs {
			if e := waitRelease(&evs[i]); err == nil {
				err = e
			}
		}
	}()
	var pending [2][]piece // read batches on the bus, to scatter
	k, i := s.threads(), 0
	finish := func(slot int) error {
		if err := waitRelease(&evs[slot]); err != nil {
			return err
		}
		if pending[slot] != nil {
			moveRows(st.slot(slot, st.chunk), host, pending[slot], false, k)
			pending[slot] = nil
		}
		return nil
	}
	err = batches(r, st.batchBytes(r.Bytes()), func(batch []piece) error {
		slot := i & 1
		i++
		if err := finish(slot); err != nil {
			return err
		}
		if write {
			moveRows(st.slot(slot, st.chunk), host, batch, true, k)
		}
		if err := s.enqueueBatch(write, mem, devOff, st.ptr[slot], batch, &evs[slot]); err != nil {
			return err
		}
		if write {
			return nil
		}
		pending[slot] = batch
		return finish(slot ^ 1)
	})
	if err != nil {
		return err
	}
	return finish((i - 1) & 1)
}
