package opencl

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
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
	defaultChunk         = 16 << 20
	defaultStagingMin    = 2 << 20
	defaultStagingMinD2H = 256 << 10
)

// batchBytes is the staging batch for a transfer of n bytes: devkit.BatchBytes
// (two batches of at least devkit.MinBatch below two chunks).
func (st *stager) batchBytes(n int) int { return devkit.BatchBytes(st.chunk, n) }

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

// forPieces cuts a simplified Region into pieces of at most chunk bytes.
func forPieces(r device.Region, chunk int, fn func(p devkit.Piece) error) error {
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
						if err := fn(devkit.Piece{Off: base + y*pitch + seg, RowBytes: min(chunk, b.n-seg), Rows: 1, Pitch: pitch}); err != nil {
							return err
						}
					}
				}
				continue
			}
			per := chunk / b.n
			for y := 0; y < ny; y += per {
				if err := fn(devkit.Piece{Off: base + y*pitch, RowBytes: b.n, Rows: min(per, ny-y), Pitch: pitch}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// enqueueBatch starts the transfers of a batch between the slot and mem at
// devOff; ev receives the last one's event, which on the in-order queue
// stands for all of them.
func (s *state) enqueueBatch(write bool, mem uintptr, devOff int, slot unsafe.Pointer, batch []devkit.Piece, ev *cl.Event) error {
	for i, p := range batch {
		var e *cl.Event
		if i == len(batch)-1 {
			e = ev
		}
		ptr := unsafe.Add(slot, p.Stage)
		var err error
		if p.Rows == 1 {
			err = cl.ReadWrite(s.queue.Handle(), mem, write, false, devOff+p.Off, p.RowBytes, ptr, nil, e)
		} else {
			rc := cl.Rect{BufferOrigin: [3]int{devOff + p.Off, 0, 0}, Region: [3]int{p.RowBytes, p.Rows, 1},
				BufferRowPitch: p.Pitch, BufferSlicePitch: p.Pitch * p.Rows, HostRowPitch: p.RowBytes, HostSlicePitch: p.Bytes()}
			err = cl.ReadWriteRect(s.queue.Handle(), mem, write, false, &rc, ptr, nil, e)
		}
		if err != nil {
			return err
		}
	}
	return cl.Flush(s.queue.Handle())
}

// clSlots is a staged transfer's OpenCL side (devkit.Slots).
type clSlots struct {
	s      *state
	st     *stager
	write  bool
	mem    uintptr
	devOff int
	evs    [2]cl.Event
}

func (c *clSlots) Slot(i int) []byte { return c.st.slot(i, c.st.chunk) }
func (c *clSlots) Wait(i int) error  { return waitRelease(&c.evs[i]) }
func (c *clSlots) Enqueue(i int, batch []devkit.Piece) error {
	return c.s.enqueueBatch(c.write, c.mem, c.devOff, c.st.ptr[i], batch, &c.evs[i])
}

// staged moves the Region between host and mem at devOff through the two
// staging slots (devkit.Staged).
func (s *state) staged(write bool, mem uintptr, devOff int, host []byte, r device.Region) error {
	s.stageMu.Lock()
	defer s.stageMu.Unlock()
	st, err := s.getStager()
	if err != nil {
		return err
	}
	chunk := st.batchBytes(r.Bytes())
	batches := func(fn func([]devkit.Piece) error) error {
		return devkit.Batches(func(p func(devkit.Piece) error) error { return forPieces(r, chunk, p) }, chunk, fn)
	}
	return devkit.Staged(&clSlots{s: s, st: st, write: write, mem: mem, devOff: devOff}, write, host, batches, s.threads())
}
