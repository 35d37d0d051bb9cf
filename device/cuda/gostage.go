package cuda

import (
	"errors"
	"runtime"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
)

// goStage is one transfer of Go memory recorded into a graph: a pinned
// block the size of the host span, the region at the same offsets in it,
// which the graph's copy moves, and the job of a host node that copies
// the region's rows between the block and the Go memory at each launch.
// The job (C memory) holds the Go memory's address, so the Go memory is
// pinned for as long as the graph lives.
type goStage struct {
	block unsafe.Pointer // cu.HostAlloc's
	job   cu.HostCopy
	pin   runtime.Pinner
}

// free releases g; nothing may run its job after (the graph is destroyed
// and its last launch done).
func (g *goStage) free(s *state) error {
	cu.FreeHostCopy(g.job)
	g.job = 0
	g.pin.Unpin()
	var err error
	if g.block != nil {
		err = cu.HostFree(s.ctx, g.block)
		g.block = nil
	}
	return err
}

func freeStages(s *state, gs []*goStage) error {
	var errs []error
	for _, g := range gs {
		errs = append(errs, g.free(s))
	}
	return errors.Join(errs...)
}

// stages are the goStages of the capture under way, until its graph
// takes them (or a failed capture, or the Device's Finish, frees them).
type stages struct {
	mu sync.Mutex
	gs []*goStage
}

func (p *stages) add(g *goStage) {
	p.mu.Lock()
	p.gs = append(p.gs, g)
	p.mu.Unlock()
}

func (p *stages) take() []*goStage {
	p.mu.Lock()
	defer p.mu.Unlock()
	gs := p.gs
	p.gs = nil
	return gs
}

// stageGo records the transfer of a simplified Region between Go memory
// host and dev during a capture: an upload is a host node copying the
// region's rows into the staging block, then the copy from it; a download
// is the copy into the block, then a host node copying the rows out (the
// rows only: the bytes of host between them stay the caller's). So each
// launch reads, or writes, the Go memory as it is at that point of the
// stream, as eager work would.
func (s *state) stageGo(write bool, dev cu.DevicePtr, host []byte, r device.Region) error {
	g := &goStage{}
	s.capture.staged.add(g) // from here on, whichever way the capture ends frees it
	var err error
	if g.block, err = cu.HostAlloc(s.ctx, len(host), cu.HostAllocPortable); err != nil {
		return err
	}
	var rows []int
	r.Rows(func(off, n int) {
		if k := len(rows); k > 0 && rows[k-2]+rows[k-1] == off {
			rows[k-1] += n
			return
		}
		rows = append(rows, off, n)
	})
	goMem := unsafe.Pointer(&host[0])
	g.pin.Pin(goMem)
	dst, src := g.block, goMem
	if !write {
		dst, src = src, dst
	}
	if g.job, err = cu.NewHostCopy(dst, src, rows); err != nil {
		return err
	}
	staging := unsafe.Slice((*byte)(g.block), len(host))
	if write {
		if err := cu.LaunchHostCopy(s.ctx, s.stream, g.job); err != nil {
			return err
		}
		return s.queueCopy(true, dev, staging, r, true)
	}
	if err := s.queueCopy(false, dev, staging, r, true); err != nil {
		return err
	}
	return cu.LaunchHostCopy(s.ctx, s.stream, g.job)
}
