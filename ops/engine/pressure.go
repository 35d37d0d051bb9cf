package engine

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// A Dense gorgonia drops (its tape machine makes new registers every run)
// gives its device copy back only after two collections: one finds the
// Dense gone (the block is parked), the next the memory (its cleanup
// frees the copy). Paced by the Go heap alone, device memory waiting for
// them grew to 800 MB over 75 stock-MLP steps at batch 128 on PoCL, and
// two allocations in three missed the device's cache. So once devBudget
// bytes of device copies were made since a collection (or half the live
// Go heap, which bounds what the collections cost per device byte as the
// pacer bounds it per heap byte), the engine call that ends with none
// under way runs the two collections itself, and the copies come back to
// the cache.

// devBudget is the device bytes the engine allocates between collections
// before it asks for them.
var devBudget int64 = 64 << 20

// pressure counts the engine's device allocations since a collection.
type pressure struct {
	lent    atomic.Int64
	cycle   atomic.Uint64 // the collection count when lent was reset
	forcing atomic.Bool
	forced  atomic.Int64 // the engine's own collection pairs
}

// allocated counts n device bytes made for a block.
func (p *pressure) allocated(n uintptr) { p.lent.Add(int64(n)) }

// relieve runs the collections when the budget is spent and no natural
// collection ran meanwhile; no engine call is under way, and h.mu is not
// held (the cleanups it waits for take it).
func (h *holdings) relieve() {
	p := &h.press
	if p.lent.Load() <= devBudget || p.forcing.Load() {
		return // under budget, or relieve's own engine call
	}
	n, live := gcState()
	if n != p.cycle.Load() {
		p.cycle.Store(n) // one ran: what it let go is on its way
		p.lent.Store(0)
		return
	}
	if p.lent.Load() <= live/2 || !p.forcing.CompareAndSwap(false, true) {
		return
	}
	defer p.forcing.Store(false)
	for range 2 {
		collectAndWait()
		h.enter() // the sweep the first collection made due
		h.leave()
	}
	p.forced.Add(1)
	n, _ = gcState()
	p.cycle.Store(n)
	p.lent.Store(0)
}

// collectAndWait runs a collection and waits (boundedly: a busy machine
// may not run them soon) for the cleanups it queued, through a sentinel
// queued with them.
func collectAndWait() {
	done := make(chan struct{})
	runtime.AddCleanup(new(gcTick), func(c chan struct{}) { close(c) }, done)
	runtime.GC()
	t := time.NewTimer(10 * time.Millisecond)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	runtime.Gosched() // cleanups queued beside the sentinel's
}

// gcState is the number of completed collections and the heap the last
// left live, read without stopping the world.
func gcState() (cycles uint64, live int64) {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), int64(s[1].Value.Uint64())
}
