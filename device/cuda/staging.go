package cuda

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// stager is the two pinned chunks ordinary Go memory is staged through
// (devkit.Staged), with an event per chunk marking its last copy.
type stager struct {
	ptr   [2]unsafe.Pointer // C memory from cuMemHostAlloc
	ev    [2]cu.Event
	chunk int
}

// getStager returns the device's stager, creating it on first use; the
// caller holds s.stageMu.
func (s *state) getStager() (*stager, error) {
	if s.stager != nil {
		return s.stager, nil
	}
	st := &stager{chunk: s.opts.StagingChunk}
	var err error
	for i := range 2 {
		if st.ptr[i], err = cu.HostAlloc(s.ctx, st.chunk, cu.HostAllocPortable); err != nil {
			break
		}
		if st.ev[i], err = cu.EventCreate(s.ctx, cu.EventDisableTiming); err != nil {
			break
		}
	}
	if err != nil {
		st.release(s)
		return nil, err
	}
	s.stager = st
	return st, nil
}

func (st *stager) release(s *state) error {
	var errs []error
	for i := range 2 {
		if st.ptr[i] != nil {
			errs = append(errs, cu.HostFree(s.ctx, st.ptr[i]))
		}
		if st.ev[i] != 0 {
			errs = append(errs, cu.EventDestroy(s.ctx, st.ev[i]))
		}
	}
	return errors.Join(errs...)
}

func (s *state) threads() int {
	if s.opts.CopyThreads > 0 {
		return s.opts.CopyThreads
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

// cuSlots is a staged transfer's CUDA side (devkit.Slots).
type cuSlots struct {
	s       *state
	st      *stager
	write   bool
	dev     cu.DevicePtr
	pending [2]bool
}

func (c *cuSlots) Slot(i int) []byte { return unsafe.Slice((*byte)(c.st.ptr[i]), c.st.chunk) }

func (c *cuSlots) Wait(i int) error {
	if !c.pending[i] {
		return nil
	}
	c.pending[i] = false
	return cu.EventSync(c.s.ctx, c.st.ev[i])
}

func (c *cuSlots) Enqueue(i int, batch []devkit.Piece) error {
	s := c.s
	for _, p := range batch {
		h := unsafe.Add(c.st.ptr[i], p.Stage)
		dp := c.dev + cu.DevicePtr(p.Off)
		var err error
		switch {
		case p.Rows == 1 && c.write:
			err = cu.HtoD(s.ctx, dp, h, p.RowBytes, s.stream)
		case p.Rows == 1:
			err = cu.DtoH(s.ctx, h, dp, p.RowBytes, s.stream)
		case c.write:
			err = cu.Copy2DHtoD(s.ctx, dp, p.Pitch, h, p.RowBytes, p.RowBytes, p.Rows, s.stream)
		default:
			err = cu.Copy2DDtoH(s.ctx, h, p.RowBytes, dp, p.Pitch, p.RowBytes, p.Rows, s.stream)
		}
		if err != nil {
			// What was queued may still use the slot: mark it, so that
			// Staged's final Wait covers it.
			c.pending[i] = c.pending[i] || cu.EventRecord(s.ctx, c.st.ev[i], s.stream) == nil
			return err
		}
	}
	if err := cu.EventRecord(s.ctx, c.st.ev[i], s.stream); err != nil {
		return errors.Join(err, cu.StreamSync(s.ctx, s.stream))
	}
	c.pending[i] = true
	return nil
}

// staged moves a simplified Region between host and dev through the two
// pinned chunks: batches of at most devkit.BatchBytes, packed, so a
// strided Region costs one 2-D copy per run of evenly spaced rows.
func (s *state) staged(write bool, dev cu.DevicePtr, host []byte, r device.Region) error {
	s.stageMu.Lock()
	defer s.stageMu.Unlock()
	st, err := s.getStager()
	if err != nil {
		return err
	}
	chunk := devkit.BatchBytes(st.chunk, r.Bytes())
	batches := func(fn func([]devkit.Piece) error) error {
		return devkit.Batches(func(p func(devkit.Piece) error) error { return forRuns(r, s.maxPitch, chunk, p) }, chunk, fn)
	}
	return devkit.Staged(&cuSlots{s: s, st: st, write: write, dev: dev}, write, host, batches, s.threads())
}
