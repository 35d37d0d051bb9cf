package array

import (
	"math/bits"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
	"weak"
)

// Recycled host storage (the package doc says when blocks come back).
// A new Array's host memory of minPooled bytes or more is a block of a
// size class from the pool. Every block in use carries a finalizer keyed
// on the block itself — not on an Array, a view or the storage, which all
// share it and which a slice from Data outlives — that returns it when
// nothing reaches it; resources.release returns it early at an explicit
// Close when the memory was never exposed (Raw.expose). A block is handed
// out cleared unless the caller writes every element (Empty).

// minPooled is the smallest pooled block: Go's large-object size, where
// a fresh block costs page faults and a clear; below it the allocator's
// size classes are cheap.
const minPooled = 64 << 10

// poolLimit bounds the bytes the pool holds; blocks beyond it are left to
// the collector.
var poolLimit = 256 << 20

// lendBudget is how many bytes the pool hands out between collections
// before a miss asks for one: a loop that drops its results gets them
// back instead of new blocks (each one page faults and clears), which
// the pacer alone would let happen for a live heap's worth each cycle.
// A large live heap raises it to half the heap (the pool's blocks not
// counted), so a forced collection (which costs in proportion to the
// heap) comes at most twice as often as the pacer's own.
var lendBudget = 16 << 20

// hostPool is the pool: free blocks by class, the bytes they hold, and
// the collection count that ages them.
type hostPool struct {
	mu       sync.Mutex
	free     map[int][]pooledBlock
	held     int
	gen      uint64 // collections seen since the watch started
	watching bool   // a tick is armed for the next collection
	fins     map[int]func(*uint64)

	hits, misses atomic.Uint64 // hand-outs recycled and new

	lent     int    // bytes handed out since collection cycle
	cycle    uint64 // the collection count when lent was reset
	live     int    // the heap that collection left live
	forcing  atomic.Bool
	forced   atomic.Uint64 // collections the pool asked for
	returned chan struct{} // a block came back (put), for a forced wait
}

type pooledBlock struct {
	p   *uint64
	gen uint64 // pool.gen when it came back
}

var pool = hostPool{free: map[int][]pooledBlock{}, fins: map[int]func(*uint64){}, returned: make(chan struct{}, 1)}

// poolClass rounds n bytes up to its class: eight classes per power of
// two (at most 1/8 wasted), multiples of 8 KiB.
func poolClass(n int) int {
	step := 1 << max(13, bits.Len(uint(n-1))-4)
	return (n + step - 1) &^ (step - 1)
}

// hostBlock returns the first n elements of a block of at least
// n·size(T) bytes, 128-byte aligned, and its class (0: not pooled):
// recycled or new, cleared when zero is set (a new block is always
// cleared), else with unspecified contents.
func hostBlock[T Elem](n int, zero bool) ([]T, int) {
	var z T
	size := int(unsafe.Sizeof(z))
	if n > maxHostBytes/size {
		panicf(ErrShape, "%d elements of %d bytes: more than the %d bytes a Go slice can hold", n, size, maxHostBytes)
	}
	if n*size < minPooled {
		return alignedSlice[T](n), 0
	}
	cls := poolClass(n * size)
	p, fresh := pool.get(cls)
	s := unsafe.Slice((*T)(unsafe.Pointer(p)), n)
	if zero && !fresh {
		clear(s)
	}
	return s, cls
}

// newHost makes a dense root of layout d over a new block; a pooled one
// can go back to the pool at Close (resources.release).
func newHost[T Elem](d []Dim, zero bool) *Array[T] {
	data, cls := hostBlock[T](spanOf(d), zero)
	a := newArray(data, d, false)
	if cls > 0 {
		r := a.raw.st.res
		r.pblk, r.pcls = weak.Make((*uint64)(unsafe.Pointer(unsafe.SliceData(data)))), cls
	}
	return a
}

// recycle takes back a block at an explicit Close (resources.release);
// it keeps its finalizer, which returns it later if the pool is full.
func (pl *hostPool) recycle(p *uint64, cls int) {
	pl.put(p, cls)
}

// get returns a block of class cls and whether it is new.
func (pl *hostPool) get(cls int) (*uint64, bool) {
	if p, ok := pl.take(cls); ok {
		return p, false
	}
	if (pl.afterCycle() || pl.overLent() && pl.collect()) && pl.await(cls) {
		if p, ok := pl.take(cls); ok {
			return p, false
		}
	}
	pl.mu.Lock()
	fin := pl.finalizer(cls)
	pl.mu.Unlock()
	pl.misses.Add(1)
	// Large objects start on a page: the 128-byte alignment holds.
	p := &make([]uint64, cls/8)[0]
	runtime.SetFinalizer(p, fin)
	return p, true
}

// take hands out a free block of class cls, counted as lent.
func (pl *hostPool) take(cls int) (*uint64, bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.lent += cls
	f := pl.free[cls]
	if len(f) == 0 {
		return nil, false
	}
	b := f[len(f)-1]
	// Cleared: a block left in the slice's spare capacity stays
	// reachable, and would come back a collection late.
	f[len(f)-1] = pooledBlock{}
	pl.free[cls] = f[:len(f)-1]
	pl.held -= cls
	pl.hits.Add(1)
	return b.p, true
}

// afterCycle reports, once per collection, that one ran since the last
// miss: its finalizers may still be bringing blocks back.
func (pl *hostPool) afterCycle() bool {
	n, live := gcState()
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if n == pl.cycle {
		return false
	}
	// The pool's own blocks are live to the collector but cost it
	// nothing to mark (no pointers).
	pl.cycle, pl.live, pl.lent = n, live-pl.held, 0
	return true
}

// overLent reports whether more went out since the last collection than
// lendBudget or half the heap it left live.
func (pl *hostPool) overLent() bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.lent > max(lendBudget, pl.live/2)
}

// collect runs a collection, unless another goroutine is running one
// for the pool (false), and waits (up to collectWait) for a sentinel's
// finalizer queued in the same sweep as the blocks': the finalizer
// goroutine takes a sweep's queue whole, so by then most of the blocks
// are back, and await takes the rest.
func (pl *hostPool) collect() bool {
	if !pl.forcing.CompareAndSwap(false, true) {
		return false
	}
	defer pl.forcing.Store(false)
	done := make(chan struct{})
	runtime.SetFinalizer(&struct{ _ *int }{}, func(*struct{ _ *int }) { close(done) })
	runtime.GC()
	pl.forced.Add(1)
	pl.afterCycle()
	t := time.NewTimer(collectWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return true
}

// collectWait bounds collect's wait for the finalizer goroutine, which a
// busy machine may not run for a while.
const collectWait = 10 * time.Millisecond

// await waits while blocks keep coming back (the finalizers of a
// collection run one by one in their own goroutine) for one of class
// cls; false once none came back for awaitGap.
func (pl *hostPool) await(cls int) bool {
	t := time.NewTimer(awaitGap)
	defer t.Stop()
	for {
		pl.mu.Lock()
		ok := len(pl.free[cls]) > 0
		pl.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-pl.returned:
			t.Reset(awaitGap)
		case <-t.C:
			return false
		}
	}
}

// awaitGap ends a wait for returning blocks: far longer than one
// finalizer, far shorter than a new block's page faults.
const awaitGap = 100 * time.Microsecond

// gcState reads the count of completed collections and the heap the
// last one left live, without stopping the world.
func gcState() (cycles uint64, live int) {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), int(s[1].Value.Uint64())
}

// finalizer is the function that returns an unreachable block of class
// cls to the pool, made once per class; the caller holds pl.mu.
func (pl *hostPool) finalizer(cls int) func(*uint64) {
	if f := pl.fins[cls]; f != nil {
		return f
	}
	var f func(*uint64)
	f = func(p *uint64) {
		// Armed again before it is shared: a block in use always has
		// its finalizer.
		runtime.SetFinalizer(p, f)
		if !pl.put(p, cls) {
			runtime.SetFinalizer(p, nil) // left to the collector
		}
	}
	pl.fins[cls] = f
	return f
}

// put takes back a block nothing reaches; false when the pool is full.
func (pl *hostPool) put(p *uint64, cls int) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.held+cls > poolLimit {
		return false
	}
	pl.free[cls] = append(pl.free[cls], pooledBlock{p, pl.gen})
	pl.held += cls
	pl.watch()
	select {
	case pl.returned <- struct{}{}:
	default:
	}
	return true
}

// watch arms a tick for the next collection unless one is armed; the
// caller holds pl.mu.
func (pl *hostPool) watch() {
	if pl.watching {
		return
	}
	pl.watching = true
	// A pointer-holding sentinel: never in the tiny allocator, so its
	// cleanup runs at the collection that finds it.
	runtime.AddCleanup(&struct{ _ *int }{}, func(pl *hostPool) { pl.tick() }, pl)
}

// tick runs once per collection while the pool holds blocks: blocks
// back before the previous collection and still unused leave the pool.
func (pl *hostPool) tick() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.gen++
	pl.watching = false
	for cls, f := range pl.free {
		k := 0
		for _, b := range f {
			if b.gen+2 <= pl.gen {
				runtime.SetFinalizer(b.p, nil)
				pl.held -= cls
				continue
			}
			f[k] = b
			k++
		}
		clear(f[k:])
		if k == 0 {
			delete(pl.free, cls)
			continue
		}
		pl.free[cls] = f[:k]
	}
	if pl.held > 0 {
		pl.watch()
	}
}

// trim drops blocks until the pool holds at most poolLimit bytes; the
// caller holds pl.mu.
func (pl *hostPool) trim() {
	for cls, f := range pl.free {
		for len(f) > 0 && pl.held > poolLimit {
			runtime.SetFinalizer(f[len(f)-1].p, nil)
			f[len(f)-1] = pooledBlock{}
			f = f[:len(f)-1]
			pl.held -= cls
		}
		pl.free[cls] = f
	}
}

// poolHeld reports the bytes and blocks the pool holds (for tests).
func poolHeld() (held, blocks int) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, f := range pool.free {
		blocks += len(f)
	}
	return pool.held, blocks
}
