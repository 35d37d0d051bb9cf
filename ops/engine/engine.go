package engine

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops"
)

// ErrFreed is wrapped by errors about memory that was given back: a Dense
// (or memory) used after Free, or freed twice. After Close, every entry
// point returns an error wrapping device.ErrClosed instead.
var ErrFreed = errors.New("engine: memory not held by this engine")

// errClosed is the error of every entry point after Close.
func errClosed(what string) error {
	return fmt.Errorf("engine: %s after the engine's Close: %w; keep the engine open while its Denses are used (copy what you keep with Host(d) and Clone first)", what, device.ErrClosed)
}

// alignment of the memory Alloc returns, as array's own storage.
const alignment = 128

// Engine is a tensor.Engine on a device (OpenCL, or device/sim's computing
// simulator). Its methods are safe for concurrent use; operations on one
// Dense are as safe as the Dense.
type Engine struct {
	dev device.Device
	h   *holdings
}

// holdings is what the engine frees: kept apart from Engine so that the
// cleanup backstop does not keep the Engine reachable.
type holdings struct {
	dev    device.Device
	mu     sync.Mutex
	blocks []*block // by start address
	closed bool
	// adopts counts adoptions and allocations since the last sweep, kept
	// the watched blocks in use after it (adopted.go).
	adopts, kept int
	pmu          sync.Mutex
	pool         map[int][]device.HostBlock // reclaimed host memory by size (see reclaim)
	// work counts host-side work on the engine's memory (tests read it).
	work hostWork
	// freed holds the Denses given to Free (until collected), so that one
	// used afterwards is refused even when a later Alloc got its address.
	freed map[weak.Pointer[tensor.Dense]]struct{}
	// capturing collects what a Capture's work uses (capture.go).
	capturing *held
	// inflight counts the engine's calls under way; lost holds blocks
	// whose Denses were collected, freed once none is (op).
	inflight int
	lost     []*block
	// foreign: other engines' holdings whose blocks calls of this one
	// used (a Dense of another engine on the same device), settled as
	// they leave too; kept while a call is under way.
	foreign []*holdings
	// homing counts settle's copies home under way; homed is signalled
	// as each ends (leave waits for them: a block another call's leave
	// took to copy home may be the one this call's caller reads next).
	homing int
	homed  sync.Cond
	// touched: the blocks used since a call still under way, or the last
	// one, entered (settle).
	touched []*block
	// sweepDue: a collection ran since the last sweep (sweepAfterGC).
	sweepDue bool
	// young: Alloc's memory held strongly for two collections (allocGo).
	young []youngMem
}

// youngMem is memory Alloc returned, kept until gcs collections ran.
type youngMem struct {
	m   *byte
	gcs int
}

// calls numbers the calls of every engine in the order they entered;
// running holds the numbers of those under way, oldest first. A block's
// settle waits for every call that may have used it, of any engine, as a
// call may use another engine's Dense.
var calls struct {
	mu      sync.Mutex
	seq     atomic.Uint64
	running []uint64
}

// oldestCall is the number of the oldest call under way, of any engine
// (none: the largest number).
func oldestCall() uint64 {
	calls.mu.Lock()
	defer calls.mu.Unlock()
	if len(calls.running) == 0 {
		return math.MaxUint64
	}
	return calls.running[0]
}

// enter marks an engine call under way until its leave, which takes the
// call's number enter returns: memory whose Denses the collector took
// during a call (Go ends a value's life at its last use, which may be the
// call's argument) is freed only once no call is under way, so no op
// loses memory it still uses (TestOperandCollectedInOp). A number, not a
// returned func, so that an engine call allocates nothing for it.
func (h *holdings) enter() uint64 {
	calls.mu.Lock()
	s := calls.seq.Add(1)
	calls.running = append(calls.running, s)
	calls.mu.Unlock()
	h.mu.Lock()
	h.inflight++
	h.mu.Unlock()
	return s
}

// leave ends the call numbered s: it settles the blocks used meanwhile,
// this engine's and those of others its calls used, and the last call
// under way frees what was lost meanwhile.
func (h *holdings) leave(s uint64) {
	calls.mu.Lock()
	if i := slices.Index(calls.running, s); i >= 0 {
		calls.running = slices.Delete(calls.running, i, i+1)
	}
	calls.mu.Unlock()
	h.mu.Lock()
	h.inflight--
	var drop []*block
	if h.inflight == 0 && len(h.lost) > 0 {
		for _, b := range h.lost {
			if h.holds(b) && !b.inUse() && h.unused(b) {
				drop = append(drop, b)
			}
		}
		h.lost = h.lost[:0]
	}
	if h.inflight == 0 && h.sweepDue {
		h.sweepDue = false
		drop = append(drop, h.sweep()...)
	}
	homes, wait := h.settleLocked()
	foreign := h.foreign
	if h.inflight == 0 {
		h.foreign = nil
	} else {
		foreign = slices.Clone(foreign)
	}
	h.mu.Unlock()
	for _, b := range drop {
		b.free(h)
	}
	h.settleHomes(homes, wait)
	for _, o := range foreign {
		o.mu.Lock()
		homes, wait := o.settleLocked()
		o.mu.Unlock()
		o.settleHomes(homes, wait)
	}
}

// settleLocked runs settle where blocks are listed, and reports whether
// copies home by other calls are under way (settleHomes waits for them);
// h.mu is held.
func (h *holdings) settleLocked() (homes []*block, wait bool) {
	if len(h.touched) > 0 {
		homes = h.settle()
	}
	return homes, h.homing > 0
}

// settleHomes copies home the blocks settle returned, then waits, where
// wait says copies home by other calls were under way, until they end.
func (h *holdings) settleHomes(homes []*block, wait bool) {
	for _, b := range homes {
		h.settleHome(b)
	}
	if wait {
		h.mu.Lock()
		for h.homing > 0 {
			h.homed.Wait()
		}
		h.mu.Unlock()
	}
}

// noteForeign records o, another engine's holdings whose block a call of
// h uses, for h's leave to settle.
func (h *holdings) noteForeign(o *holdings) {
	h.mu.Lock()
	if !slices.Contains(h.foreign, o) {
		h.foreign = append(h.foreign, o)
	}
	h.mu.Unlock()
}

// release lets go of b, a block whose users are gone, now or, during a
// call, when no call is under way; h.mu is held. It reports whether the
// caller frees b now.
func (h *holdings) release(b *block) bool {
	if h.inflight > 0 {
		h.lost = append(h.lost, b)
		return false
	}
	return h.unused(b)
}

// block is one Alloc: host memory [start, start+size) that tensor
// addresses, and, from the first typed use, the device-aware Array over it.
type block struct {
	start, size uintptr
	hb          device.HostBlock
	skip        int // bytes of hb before start
	root        interface {
		Raw() *array.Raw
		Close() error
	} // nil until typed; it then owns hb
	// result: the Dense the engine made for an op's result, which the op
	// overwrites, so typing gives it a device allocation and copies nothing.
	result bool
	// adopted: Go memory of a Dense given the engine (adopt); owned: Go
	// memory from Alloc. Both live as long as the Go memory does, not any
	// one Dense: see adopted.go for the fields below.
	adopted, owned bool
	alloc          device.Allocation // the device copy, the engine's (the Array wraps it)
	mem            weak.Pointer[byte]
	memDied        runtime.Cleanup
	users          map[weak.Pointer[tensor.Dense]]struct{}
	// held: Steps (capture.go) that replay work on b; b is not let go
	// (parked, reclaimed) while one does.
	held   int
	parked *parkedState
	// finalizer: parked with its host copy dropped, a finalizer on the
	// memory ends the drop (parkTrip); h.mu.
	finalizer bool
	touched   bool                              // in h.touched
	lastTouch uint64                            // calls.seq when last touched
	homing    bool                              // a settle's copy home is under way
	ext       []int                             // the root's extents (typed)
	retype    func(h *holdings, b *block) error // rootOf with elem, h.mu held (typed)
	elem      reflect.Type                      // root's element type (typed)
	home      func() error                      // copy device-newer data home, explicitly (typed)
	// deviceDirty reports whether the device holds newer data (typed).
	deviceDirty func() bool
	host        func() error // sync home and mark host-written (typed)
	// hostRead syncs home for reading, leaving the device copy current (typed).
	hostRead func() error
	fill0    func(p, n uintptr) error // zero [p, p+n) where it lives (typed)
	// copyFrom copies src, bytes of sb held by sh, into dst (typed).
	copyFrom func(dst memory, sh *holdings, sb *block, src memory) error
	// armed: the host copy holds the sentinels (hostwrites.go); takeHost
	// makes the host copy the newest values (typed).
	armed    [2]bool // first, last element
	takeHost func() error
	// endsDirty calls fn with whether the device holds the newest first
	// and last elements (residency is by region), holding the Array's
	// residency lock: no download or eviction (its device closing) runs
	// until fn returns, so fn may store sentinels the download overwrites
	// (typed).
	endsDirty func(fn func(first, last bool))
	trip      *trip // sees other writes while armed (hostwrites.go)
	// away is the Array's plumb.DeviceState: its count of device-dirty
	// changes, and whether the device holds newest values of some and of
	// all of it (typed).
	away func() (gen uint64, some, all bool)
	// current: host and device copies both hold the newest values;
	// hostNewer marks the host copy newer, uploaded by the next op (typed).
	current   func() bool
	hostNewer func()
	homed     *homeWatch // told of downloads home (typed)
	// hostWritten: handed out for host writes (Host, Accessible) while
	// untyped, so its first use uploads them: refused under the guard.
	hostWritten bool
}

// New returns an engine whose memory lives on dev: an *opencl.Device, or
// any device.Device that computes (sim.NewCompute runs the same ops with
// host kernels behind a device boundary). On a device that does not
// compute, ops run on the host by the placement rule. Close it when done
// (a cleanup frees its memory if it is dropped). A nil dev panics with
// ErrNoDevice.
func New(dev device.Device) *Engine {
	if dev == nil || reflect.ValueOf(dev).Kind() == reflect.Pointer && reflect.ValueOf(dev).IsNil() {
		panic(ErrNoDevice)
	}
	e := &Engine{dev: dev, h: &holdings{dev: dev, freed: map[weak.Pointer[tensor.Dense]]struct{}{}}}
	e.h.homed.L = &e.h.mu
	runtime.AddCleanup(e, func(h *holdings) { h.close() }, e.h)
	e.h.sweepAfterGC()
	open.mu.Lock()
	open.all[e.h] = struct{}{}
	open.mu.Unlock()
	return e
}

// open lists the holdings of every engine not yet closed, so memory that
// tensor hands over bare (tensor.Copy passes its arrays, not Denses) is
// found in the engine that holds it.
var open = struct {
	mu  sync.Mutex
	all map[*holdings]struct{}
}{all: map[*holdings]struct{}{}}

// holder returns the open engine's holdings (other than h) that hold
// [p, p+n), and the block.
func (h *holdings) holder(p, n uintptr) (*holdings, *block) {
	open.mu.Lock()
	defer open.mu.Unlock()
	for o := range open.all {
		if o == h {
			continue
		}
		if b := o.find(p, n); b != nil {
			return o, b
		}
	}
	return nil, nil
}

// sweepAfterGC has the engine call that ends after each collection
// sweep h, until h is closed or collected: Denses that tensor's pool
// recycled are never collected, so no cleanup says the memory they
// reached may be parked (adopted.go); allocations sweep too, but a
// program may stop allocating. The sweep reads the Denses the engine saw,
// which their goroutine may be changing (ReturnTensor): it runs in an
// engine call (leave), never in the collector's cleanup.
func (h *holdings) sweepAfterGC() {
	runtime.AddCleanup(new(gcTick), func(w weak.Pointer[holdings]) {
		h := w.Value()
		if h == nil || h.isClosed() {
			return
		}
		h.mu.Lock()
		h.sweepDue = true
		young := h.young[:0]
		for _, y := range h.young {
			if y.gcs--; y.gcs > 0 {
				young = append(young, y)
			}
		}
		clear(h.young[len(young):])
		h.young = young
		h.mu.Unlock()
		h.sweepAfterGC()
	}, weak.Make(h))
}

// gcTick is an object that lives until the next collection; a pointer in
// it keeps it out of the tiny allocator, whose objects die together.
type gcTick struct{ _ *int }

// Device is the engine's device.
func (e *Engine) Device() device.Device { return e.dev }

// Close frees every block the engine still holds: device copies, Arrays
// and pinned host memory, device-newer data included. Denses of the engine
// are dead afterwards: every entry point given one (Host, Accessible,
// Array, the operations, Memset, Memcpy, Free, and Alloc) returns an error
// wrapping device.ErrClosed, and Memclr panics with one; tensor's unguarded
// Data, At and Get would read released memory, so do not call them. To
// keep values past Close, copy them to Go memory first (Host(d), then
// Clone). Close must not run concurrently with operations on the engine's
// Denses. It is idempotent.
func (e *Engine) Close() error { return e.h.close() }

func (h *holdings) close() error {
	h.mu.Lock()
	blocks := h.blocks
	h.blocks, h.closed, h.freed, h.young = nil, true, nil, nil
	h.mu.Unlock()
	open.mu.Lock()
	delete(open.all, h)
	open.mu.Unlock()
	var errs []error
	for _, b := range blocks {
		errs = append(errs, b.free(h))
	}
	h.pmu.Lock()
	pool := h.pool
	h.pool = nil
	h.pmu.Unlock()
	for _, l := range pool {
		for _, hb := range l {
			errs = append(errs, hb.Free())
		}
	}
	return errors.Join(errs...)
}

// hostBlock is the host memory of a result the engine makes: mapped
// lazily (lazyHost; pinned where the system has no such mappings). A result block the engine reclaimed goes back
// to the engine's pool when freed, still mapped, for the next result of
// its size; Close frees the pool.
type hostBlock struct {
	device.HostBlock
	h    *holdings
	n    int  // bytes
	pool bool // reclaimed: to the pool on Free
}

// pageWatch is the watch over b's whole mapping (lazyHost), or nil.
func (b *hostBlock) pageWatch() *uffd.Watch {
	if m, ok := b.HostBlock.(interface{ pageWatch() *uffd.Watch }); ok {
		return m.pageWatch()
	}
	return nil
}

func (b *hostBlock) Free() error {
	if b.pool && !b.h.isClosed() {
		b.h.pmu.Lock()
		if b.h.pool == nil {
			b.h.pool = map[int][]device.HostBlock{}
		}
		n := len(b.HostBlock.Bytes())
		b.h.pool[n] = append(b.h.pool[n], b.HostBlock)
		b.h.pmu.Unlock()
		return nil
	}
	return b.HostBlock.Free()
}

// pooled takes pooled host memory of n bytes (a reclaimed result's), or
// returns nil.
func (h *holdings) pooled(n int) device.HostBlock {
	h.pmu.Lock()
	defer h.pmu.Unlock()
	l := h.pool[n]
	if len(l) == 0 {
		return nil
	}
	hb := l[len(l)-1]
	l[len(l)-1] = nil
	h.pool[n] = l[:len(l)-1]
	return hb
}

// scratch is lazily mapped host memory of at least n bytes for a
// temporary Array that lives on the device: back to the pool when freed.
func (h *holdings) scratch(n int) (device.HostBlock, error) {
	n += alignment // one size class with results of n bytes
	raw := h.pooled(n)
	if raw != nil {
		h.work.pooled.Add(1)
	} else {
		var err error
		if raw, err = lazyHost(h.dev, n); err != nil {
			return nil, err
		}
		h.work.mapped.Add(1)
	}
	return &hostBlock{HostBlock: raw, h: h, n: n, pool: true}, nil
}

// reclaim frees a block the engine allocated for a result Dense of its
// own once that Dense is collected (gorgonia keeps such results only
// until the machine's next run): the device allocation goes back to the
// device, the host memory to the engine's pool, still mapped, so a view
// of the Dense that outlived it reads old or reused values from Go code,
// never unmapped memory, and is refused (ErrFreed) by the engine.
func (h *holdings) reclaim(b *block) {
	h.mu.Lock()
	i, ok := h.indexOf(b)
	if !ok || b.held > 0 {
		h.mu.Unlock()
		return // freed already (Free, Close), or a Step replays work on it
	}
	if h.inflight > 0 { // a call may still use it (op)
		h.lost = append(h.lost, b)
		h.mu.Unlock()
		return
	}
	h.blocks = slices.Delete(h.blocks, i, i+1)
	if hb, ok := b.hb.(*hostBlock); ok {
		hb.pool = true
	}
	h.mu.Unlock()
	b.free(h)
}

func (b *block) free(h *holdings) error {
	var err error
	if b.adopted && b.parked != nil && b.parked.dirty && b.mem.Value() != nil {
		// Adopted memory whose newest values are on the device, still
		// reachable: typed again to copy them home below.
		h.mu.Lock()
		err = b.retype(h, b)
		h.mu.Unlock()
	}
	if b.adopted && b.home != nil && b.root != nil {
		err = errors.Join(err, b.home()) // the Go memory outlives the engine: leave it current
	}
	b.forgetDrop()
	b.closeTrip()
	switch {
	case b.root != nil:
		err = errors.Join(err, b.root.Close())
	case b.hb != nil:
		err = errors.Join(err, b.hb.Free())
	}
	if b.goMem() {
		err = errors.Join(err, b.letGo(h))
		h.mu.Lock()
		b.detach() // Go memory goes back to its owner whole
		h.mu.Unlock()
	}
	return err
}

// goMem reports whether b is Go memory (adopted, or Alloc's), which the
// engine holds only while it uses it: its device copy is freed once the
// memory is collected (adopted.go).
func (b *block) goMem() bool { return b.adopted || b.owned }

// goBlock is Go memory that a Dense of the engine addresses (gorgonia's
// tape machine allocates its registers on the Go heap and then gives them
// the engine), pinned while the engine's Array over it lives: it stays
// the Dense's (adopted.go).
type goBlock struct {
	b   []byte
	pin runtime.Pinner
}

func (g *goBlock) Bytes() []byte { return g.b }

// Free unpins the memory and drops the reference: array keeps a freed
// block until its storage is collected, and a parked block's memory must
// die with the first collection after nothing else reaches it (gorgonia
// drops its registers every run: memory kept one cycle more grew the heap
// every cycle).
func (g *goBlock) Free() error { g.pin.Unpin(); g.b = nil; return nil }

// memory is a tensor.Memory of the engine: size bytes at p.
type memory struct{ p, n uintptr }

func (m memory) Uintptr() uintptr { return m.p }
func (m memory) MemSize() uintptr { return m.n }

// AllocAccessible is false: tensor then guards its host-reading methods
// (see the package documentation).
func (e *Engine) AllocAccessible() bool { return false }

// Alloc returns size bytes of memory on the engine's device, zeroed. The
// bytes are Go memory (what tensor addresses), and on
// first typed use (the first operation, Array, Memset or Memcpy that knows
// the element type) they become a device-aware Array with an allocation on
// the device, with no transfer: the device copy is about to be written
// whole by the op whose destination that first use is, or is zeroed
// there. Only memory written on the host before a first use that reads it
// (through Host, Data, or tensor's own Copy) is placed with one counted
// upload (ops.On: explicit, allowed under the transfer guard). From then on the data lives on the
// device: operations on it run there, and only Host, Accessible or
// printing (Sprint) bring it home. The device copy lives as long as the
// Go memory: while any Dense, view or slice reaches it, whoever made it
// (tensor makes Denses over Alloc's memory that the engine never sees);
// once none does, the collector takes the memory and the engine frees the
// device copy (adopted.go), with no Free. Free and Close free it sooner.
func (e *Engine) Alloc(size int64) (tensor.Memory, error) {
	b, err := e.h.alloc(size, false)
	if err != nil {
		return nil, err
	}
	return memory{b.start, b.size}, nil
}

// alloc is Alloc. A result block (the Dense of an op's result, which the
// op overwrites on the device) is not cleared: its host bytes are looked
// at only after a copy home, which overwrites them.
func (h *holdings) alloc(size int64, result bool) (*block, error) {
	if size < 0 || size > 1<<47 {
		return nil, fmt.Errorf("engine: Alloc of %d bytes: want 0 … 2^47", size)
	}
	if !result {
		return h.allocGo(size)
	}
	n := int(size) + alignment
	var raw device.HostBlock
	var err error
	switch raw = h.pooled(n); {
	case raw != nil:
		h.work.pooled.Add(1) // a reclaimed block's
	default:
		// The host side of a result is read only after a copy home, if
		// ever: memory the system backs with pages once touched, not
		// pinned memory (a driver call, and page-locking, per Alloc).
		raw, err = lazyHost(h.dev, n)
		h.work.mapped.Add(1)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: Alloc of %d bytes: %w", size, err)
	}
	hb := &hostBlock{HostBlock: raw, h: h, n: n}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(hb.Bytes())))
	skip := int((alignment - p%alignment) % alignment)
	b := &block{start: p + uintptr(skip), size: uintptr(size), hb: hb, skip: skip, result: result}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		raw.Free()
		return nil, errClosed(fmt.Sprintf("Alloc of %d bytes", size))
	}
	dead := h.insert(b)
	h.mu.Unlock()
	for _, o := range dead {
		o.letGo(h)
	}
	return b, nil
}

// allocGo is Alloc: Go memory, zeroed, that the engine watches (owned).
// Untyped, the block holds it only weakly; typed, it is pinned while the
// engine uses it, and parked like adopted memory once the Denses the
// engine saw over it are gone (adopted.go).
func (h *holdings) allocGo(size int64) (*block, error) {
	// Whole pages of its own, from a page boundary: the engine may let
	// them go while the device holds the newest values (dropHost), which
	// pages shared with other Go memory could not be.
	pages := (int(size) + int(pageSize) - 1) &^ (int(pageSize) - 1)
	buf := make([]byte, pages+int(pageSize))
	h.work.pinned.Add(1)
	h.work.cleared.Add(size)
	m := unsafe.SliceData(buf)
	p := uintptr(unsafe.Pointer(m))
	b := &block{start: (p + pageSize - 1) &^ (pageSize - 1), size: uintptr(size), owned: true, users: map[weak.Pointer[tensor.Dense]]struct{}{}}
	b.mem = weak.Make(m)
	if !h.watch(b, m) {
		panic("engine: the collector refused to watch memory make returned")
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		b.memDied.Stop()
		return nil, errClosed(fmt.Sprintf("Alloc of %d bytes", size))
	}
	dead := h.insert(b)
	// Alloc returns the address only (tensor.Memory), which tensor then
	// makes a Dense's slice over: until it has, nothing reaches the
	// memory. Held for two collections, it outlives that moment.
	h.young = append(h.young, youngMem{m, 2})
	// Denses tensor's pool recycled are never collected: a sweep, amortized
	// over allocations, parks the memory only they reached.
	var drop []*block
	if h.adopts++; h.adopts >= 16+h.kept {
		drop = h.sweep()
	}
	h.mu.Unlock()
	for _, o := range dead {
		o.letGo(h)
	}
	for _, o := range drop {
		o.free(h)
	}
	runtime.KeepAlive(m)
	return b, nil
}

// insert adds b to h's blocks, first taking out the blocks over Go memory
// since collected whose address b's memory reuses (their cleanups may not
// have run yet: the weak pointer is cleared first); it returns those, for
// the caller to let go once h.mu is released. h.mu is held.
func (h *holdings) insert(b *block) (dead []*block) {
	for {
		i, _ := slices.BinarySearchFunc(h.blocks, b.start, func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
		var o *block
		switch {
		case i > 0 && h.blocks[i-1].start+h.blocks[i-1].size > b.start:
			o = h.blocks[i-1]
		case i < len(h.blocks) && h.blocks[i].start < b.start+max(b.size, 1):
			o = h.blocks[i]
		}
		if o == nil || !o.goMem() || o.mem.Value() != nil {
			h.blocks = slices.Insert(h.blocks, i, b)
			return dead
		}
		h.remove(o)
		dead = append(dead, o)
	}
}

func cmpPtr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Free releases memory from Alloc: its host memory, device copy and the
// Array over them. Operations on a Dense whose memory was freed return an
// error wrapping ErrFreed (a view made before Free of a Dense whose
// address a later Alloc reuses cannot be told apart: drop views with it).
func (e *Engine) Free(mem tensor.Memory, size int64) error {
	h := e.h
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return errClosed(fmt.Sprintf("Free of %#x", mem.Uintptr()))
	}
	if d, ok := mem.(*tensor.Dense); ok {
		if _, dup := h.freed[weak.Make(d)]; dup {
			h.mu.Unlock()
			return fmt.Errorf("engine: Free of %#x: %w: this Dense was freed already", mem.Uintptr(), ErrFreed)
		}
	}
	i, ok := slices.BinarySearchFunc(h.blocks, mem.Uintptr(), func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
	if !ok {
		h.mu.Unlock()
		return fmt.Errorf("engine: Free of %#x: %w: free only what this engine's Alloc returned, once", mem.Uintptr(), ErrFreed)
	}
	b := h.blocks[i]
	h.blocks = slices.Delete(h.blocks, i, i+1)
	if d, ok := mem.(*tensor.Dense); ok {
		w := weak.Make(d)
		h.freed[w] = struct{}{}
		runtime.AddCleanup(d, func(w weak.Pointer[tensor.Dense]) {
			h.mu.Lock()
			delete(h.freed, w)
			h.mu.Unlock()
		}, w)
	}
	h.mu.Unlock()
	return b.free(h)
}

// lookup returns the block holding [p, p+n), nil for memory the engine
// does not hold, or the closed error.
func (h *holdings) lookup(p, n uintptr) (*block, error) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, errClosed(fmt.Sprintf("use of the memory at %#x", p))
	}
	return h.find(p, n), nil
}

func (h *holdings) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// wasFreed reports whether d itself was given to Free.
func (h *holdings) wasFreed(d *tensor.Dense) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.freed[weak.Make(d)]
	return ok
}

// find returns the block holding [p, p+n), or nil for memory the engine
// does not hold (another engine's, or Go memory).
func (h *holdings) find(p, n uintptr) *block {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := slices.BinarySearchFunc(h.blocks, p, func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
	if !ok {
		i--
	}
	if i < 0 {
		return nil
	}
	b := h.blocks[i]
	if p < b.start || p-b.start > b.size || n > b.size-(p-b.start) {
		return nil
	}
	if b.parked != nil {
		return h.unpark(i) // a Dense reaches it again
	}
	if b.owned && b.root == nil && b.mem.Value() == nil { // collected, address reused
		h.blocks = slices.Delete(h.blocks, i, i+1)
		b.letGo(h)
		return nil
	}
	return b
}

// WorksWith is true: row- and column-major Denses both map to Array views.
func (e *Engine) WorksWith(order tensor.DataOrder) bool { return true }

// subBlock is hb's memory from skip on, as the block NewOver adopts.
type subBlock struct {
	device.HostBlock
	skip int
}

func (s subBlock) Bytes() []byte { return s.HostBlock.Bytes()[s.skip:] }

// rootOf returns b's Array of T, typing b on first use: the memory becomes
// an Array with d's shape when d is the whole of it in row-major order
// (the usual first user: the Dense it was allocated for), else 1-D.
// overwrite says the caller is about to write every element of d (of the
// whole block when d is nil): an op's destination. When that covers the
// block, its host bytes are never looked at: it gets a device allocation
// and no transfer, scan or fill, as a result the engine made.
func rootOf[T array.Elem](h *holdings, b *block, d *tensor.Dense, overwrite bool) (*array.Array[T], error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return rootLocked[T](h, b, d, overwrite)
}

// rootLocked is rootOf with h.mu held.
func rootLocked[T array.Elem](h *holdings, b *block, d *tensor.Dense, overwrite bool) (*array.Array[T], error) {
	if b.root == nil && b.parked != nil {
		if reflect.TypeFor[T]() != b.elem {
			return nil, fmt.Errorf("%w: the Go memory at %#x holds %v on the device, used as %v: keep one element type per memory", array.ErrType, b.start, b.elem, reflect.TypeFor[T]())
		}
		r, err := unparkAs[T](h, b)
		if err != nil {
			return nil, err
		}
		setFns(h, b, r)
		if t := b.trip; t != nil && t.on { // kept dropped while parked (parkTrip)
			t.gen = b.gen()
			b.publish(t)
		}
	}
	if b.root == nil && b.owned && b.hb == nil {
		// Alloc's Go memory, first typed: pinned while the engine uses it.
		m := b.mem.Value()
		if m == nil {
			return nil, fmt.Errorf("engine: the memory at %#x was collected: %w", b.start, ErrFreed)
		}
		gb := &goBlock{b: bytesAt(b.start, b.size)}
		gb.pin.Pin(m)
		b.hb = gb
	}
	if b.root == nil {
		size := uintptr(unsafe.Sizeof(*new(T)))
		fresh := b.result || overwrite && (d == nil || covers(d, b, size))
		ext := []int{int(b.size / size)}
		if d != nil && d.Uintptr() == b.start && uintptr(d.DataSize())*size == b.size && rowMajorDense(d) {
			ext = reversed(d.Shape())
		}
		// Host writes before the first use need an upload, which the
		// guard refuses like every automatic copy (checked before typing,
		// so the block stays as it was).
		if !fresh && b.hostWritten && b.size > 0 && guard.OnDevice(h.dev) && !allZero(h.scanned(bytesAt(b.start, b.size))) {
			return nil, fmt.Errorf("engine: the Dense was written through Host or Accessible and its first device use needs an upload: %w; use it once before turning the guard on", device.ErrTransferGuard)
		}
		r, err := array.NewOver[T](subBlock{b.hb, b.skip}, ext...)
		if err != nil {
			if b.owned {
				b.hb.Free()
				b.hb = nil
			}
			return nil, fmt.Errorf("engine: %w", err)
		}
		b.root, b.elem, b.ext = r, reflect.TypeFor[T](), ext
		// Typed whatever happens below: a placement that fails (the device
		// closing, out of memory) leaves a typed block with no device
		// copy, as consistent as one evicted, for the next use to retry.
		setFns(h, b, r)
		// The memory lives on the device from now on: a destination is
		// about to be written there (its host bytes, whatever they hold,
		// are not looked at); zeros (as Alloc left them) are set there
		// too, so both copies agree with no transfer; memory written on
		// the host while untyped (Host, Data, or tensor's own Copy) is
		// placed there with one upload. Only this last case scans the
		// host bytes: a write through Data is seen by nothing else.
		if b.size > 0 {
			// A fresh allocation counts as host-newer; where the device
			// copy is about to be overwritten, nothing needs uploading.
			switch {
			case fresh:
				err = b.deviceMalloc(h, r)
			case allZero(h.scanned(bytesAt(b.start, b.size))):
				if err = b.deviceMalloc(h, r); err == nil {
					if err = ops.Fill(r, 0); err == nil {
						r.SetDeviceDirty(false) // the host holds zeros too
					}
				}
			case b.goMem():
				if err = b.deviceMalloc(h, r); err == nil {
					r.SetHostDirty(true)
					h.snapUploadLocked(b)
					err = ops.On(h.dev, r)
				}
			default:
				h.snapUploadLocked(b)
				err = ops.On(h.dev, r)
			}
			if err != nil {
				return nil, fmt.Errorf("engine: placing %d bytes on the device: %w", b.size, err)
			}
		}
	}
	r, ok := b.root.(*array.Array[T])
	if !ok {
		return nil, fmt.Errorf("%w: the engine's memory at %#x holds %s, used as %s: keep one element type per allocation", array.ErrType, b.start, b.root.Raw().Type(), array.TypeOf[T]())
	}
	return r, nil
}

// deviceMalloc gives r, b's new root, its device allocation with no
// transfer, the device copy taken as current. Adopted memory gets one of
// the engine's own, which the Array only wraps, so that it outlives the
// Array when the engine parks the memory (adopted.go).
func (b *block) deviceMalloc(h *holdings, r interface {
	DeviceMalloc(device.Device) error
	DeviceWrap(device.Device, device.Allocation) error
	SetHostDirty(bool)
}) error {
	if !b.goMem() {
		if err := r.DeviceMalloc(h.dev); err != nil {
			return err
		}
		r.SetHostDirty(false)
		return nil
	}
	a, err := h.dev.Malloc(int(b.size))
	if err != nil {
		return err
	}
	if err := r.DeviceWrap(h.dev, a); err != nil {
		h.dev.Free(a)
		return err
	}
	b.alloc = a
	return nil
}

// setFns sets b's functions over r, its root.
func setFns[T array.Elem](h *holdings, b *block, r *array.Array[T]) {
	size := uintptr(unsafe.Sizeof(*new(T)))
	b.retype = func(h *holdings, b *block) error { _, err := rootLocked[T](h, b, nil, false); return err }
	b.host = func() error { _, err := r.Host(); return err }
	b.hostRead = func() error { _, err := r.HostReadOnly(); return err }
	b.home = r.CopyToHost
	b.deviceDirty = r.DeviceDirty
	b.away = func() (uint64, bool, bool) { return plumb.Array.DeviceState(r.Raw()) }
	b.current = func() bool { return !r.DeviceDirty() && !plumb.Array.NeedsUpload(r.Raw(), h.dev) }
	b.hostNewer = func() { r.SetHostDirty(true) }
	b.homed = &homeWatch{}
	plumb.Array.OnHome(r.Raw(), b.homed.home)
	b.fill0 = func(p, n uintptr) error { return fillRange(h, b, r, p, n, 0) }
	// The one-element views of the ends, made once: a view reads its
	// root's residency when asked, and every use of b asks (hostWrites).
	// A closed root reads as neither end dirty, as View refuses it.
	one := []array.Dim{{Extent: 1, Stride: 1}}
	var ends [2]any
	if v, err := r.View(0, one); err == nil {
		ends[0] = v.Raw()
	}
	if v, err := r.View(int(b.size/size)-1, one); err == nil {
		ends[1] = v.Raw()
	}
	b.endsDirty = func(fn func(first, last bool)) {
		if r.Closed() {
			fn(false, false)
			return
		}
		plumb.Array.DeviceNewer(ends[0], ends[1], fn)
	}
	b.takeHost = func() error {
		if allZero(h.scanned(bytesAt(b.start, b.size))) {
			if err := ops.Fill(r, 0); err != nil {
				return fmt.Errorf("engine: zeroing on the device memory zeroed on the host: %w", err)
			}
			r.SetDeviceDirty(false) // both copies hold zeros
			return nil
		}
		r.SetDeviceDirty(false)
		r.SetHostDirty(true) // uploaded before the next device op
		return nil
	}
	b.copyFrom = func(dst memory, sh *holdings, sb *block, src memory) error {
		return copyRange[T](h, b, dst, sh, sb, src)
	}
}

// covers reports whether d's elements are every element of b, each once:
// d starts at b and its strides are a permutation of a contiguous
// layout's (row-major, column-major, a lazy transpose).
func covers(d *tensor.Dense, b *block, size uintptr) bool {
	if d.Uintptr() != b.start {
		return false
	}
	n := 1
	if !d.IsScalar() {
		n = d.Shape().TotalSize()
	}
	if uintptr(n)*size != b.size {
		return false
	}
	type dim struct{ n, stride int }
	var dims []dim
	strides := d.Strides()
	for k, e := range d.Shape() {
		if e != 1 {
			if k >= len(strides) {
				return false
			}
			dims = append(dims, dim{e, strides[k]})
		}
	}
	slices.SortFunc(dims, func(a, b dim) int { return a.stride - b.stride })
	want := 1
	for _, x := range dims {
		if x.stride != want {
			return false
		}
		want *= x.n
	}
	return true
}

// rowMajorDense reports whether d is contiguous with row-major strides.
func rowMajorDense(d *tensor.Dense) bool {
	shape, strides := d.Shape(), d.Strides()
	if d.IsScalar() {
		return true
	}
	want := 1
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] != 1 && strides[k] != want {
			return false
		}
		want *= shape[k]
	}
	return true
}

func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// bytesAt is n bytes of host memory at p.
func bytesAt(p, n uintptr) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(ptr(p)), n)
}

// ptr is the address tensor.Memory gives as a uintptr, back as a pointer.
// The memory is pinned or tensor's, never moved by Go's collector; the
// indirection keeps vet's uintptr check, meant for Go memory, quiet.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// ErrNoDevice is New's panic for a nil device.
var ErrNoDevice = errors.New("engine: New(nil): pass a device (opencl.Default(), sim.NewCompute)")

// allocHost is n bytes of host memory the device transfers from fast:
// pinned where the device gives it (device.HostAllocator), else Go memory
// (lazyHost's fallback).
func allocHost(d device.Device, n int) (device.HostBlock, error) {
	if a, ok := d.(device.HostAllocator); ok {
		// A device closed under the engine gives Go memory instead:
		// tensor.New panics on an Alloc error, and the ops on the Dense
		// then return the error wrapping device.ErrClosed.
		if b, err := a.AllocHost(n); !errors.Is(err, device.ErrClosed) {
			return b, err
		}
	}
	g := &goBlock{b: make([]byte, n)}
	if n > 0 {
		g.pin.Pin(&g.b[0]) // the Dense addresses it by pointer
	}
	return g, nil
}
