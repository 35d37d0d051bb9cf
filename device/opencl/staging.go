package opencl

import (
	"errors"
	"runtime"
	"sync"
	"unsafe"
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
	copyPiece         = 1 << 20 // below this a goroutine costs more than it saves
)

// getStager returns the device's stager, creating it on first use; the
// caller holds s.stageMu.
func (s *state) getStager() (*stager, error) {
	if s.stager != nil {
		return s.stager, nil
	}
	st := &stager{chunk: s.chunk()}
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

func (s *state) chunk() int {
	if s.opts.StagingChunk > 0 {
		return s.opts.StagingChunk
	}
	return defaultChunk
}

func (s *state) threads() int {
	if s.opts.CopyThreads > 0 {
		return s.opts.CopyThreads
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

// parallelCopy is copy split over up to k goroutines.
func parallelCopy(dst, src []byte, k int) {
	n := len(src)
	k = min(k, n/copyPiece)
	if k <= 1 {
		copy(dst, src)
		return
	}
	per := (n/k + 63) &^ 63
	var wg sync.WaitGroup
	for lo := per; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	copy(dst[:per], src[:per])
	wg.Wait()
}

// settle waits for and releases the events still in flight, so staging
// memory is never reused, or returned, under a running transfer.
func settle(evs *[2]Event, err error) error {
	for i := range evs {
		if evs[i].h != 0 {
			if e := evs[i].Wait(); err == nil {
				err = e
			}
			evs[i].Release()
			evs[i] = Event{}
		}
	}
	return err
}

// writeStaged copies src to mem at off through the staging chunks.
func (s *state) writeStaged(mem uintptr, off int, src []byte) (err error) {
	s.stageMu.Lock()
	defer s.stageMu.Unlock()
	st, err := s.getStager()
	if err != nil {
		return err
	}
	var evs [2]Event
	defer func() { err = settle(&evs, err) }()
	k := s.threads()
	for i, pos := 0, 0; pos < len(src); i, pos = i+1, pos+st.chunk {
		slot := i & 1
		if evs[slot].h != 0 {
			if err := evs[slot].Wait(); err != nil {
				return err
			}
			evs[slot].Release()
			evs[slot] = Event{}
		}
		n := min(st.chunk, len(src)-pos)
		parallelCopy(st.slot(slot, n), src[pos:pos+n], k)
		if err := check("clEnqueueWriteBuffer", clRW(s.queue.h, mem, true, false, off+pos, n, st.ptr[slot], nil, &evs[slot])); err != nil {
			return err
		}
		if err := check("clFlush", clFlush(s.queue.h)); err != nil {
			return err
		}
	}
	return nil
}

// readStaged copies mem at off to dst through the staging chunks: chunk i+1
// is on the bus while chunk i is copied out.
func (s *state) readStaged(dst []byte, mem uintptr, off int) (err error) {
	s.stageMu.Lock()
	defer s.stageMu.Unlock()
	st, err := s.getStager()
	if err != nil {
		return err
	}
	var evs [2]Event
	defer func() { err = settle(&evs, err) }()
	chunks := (len(dst) + st.chunk - 1) / st.chunk
	enqueue := func(i int) error {
		pos := i * st.chunk
		n := min(st.chunk, len(dst)-pos)
		if err := check("clEnqueueReadBuffer", clRW(s.queue.h, mem, false, false, off+pos, n, st.ptr[i&1], nil, &evs[i&1])); err != nil {
			return err
		}
		return check("clFlush", clFlush(s.queue.h))
	}
	for i := 0; i < min(2, chunks); i++ {
		if err := enqueue(i); err != nil {
			return err
		}
	}
	k := s.threads()
	for i := range chunks {
		slot := i & 1
		if err := evs[slot].Wait(); err != nil {
			return err
		}
		evs[slot].Release()
		evs[slot] = Event{}
		pos := i * st.chunk
		n := min(st.chunk, len(dst)-pos)
		parallelCopy(dst[pos:pos+n], st.slot(slot, n), k)
		if i+2 < chunks {
			if err := enqueue(i + 2); err != nil {
				return err
			}
		}
	}
	return nil
}
