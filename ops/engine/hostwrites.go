package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"os"
	"reflect"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/uffd"
)

// Writes behind the engine's back. tensor's Dense.Zero, tensor.Copy from a
// host Dense (the standard engine's Memcpy), CopyTo and writes through
// Data() change the host memory of an engine Dense with no engine call;
// gorgonia's solvers zero every gradient with Dense.Zero after each step,
// and zero the weights' Clone for their caches. While the device holds a
// block's newest values its host copy is stale, and the engine watches it
// (armed) until the next use:
//
//   - where it can (an op's result, Alloc's memory, Go memory that is
//     whole pages), it lets the host copy go (dropHost): the first
//     touch fills it from the device, so reads see the newest values, and
//     a write after the fill is taken (the host copy is whole); other Go
//     memory is copied home when the call that wrote it ends (settle);
//   - else a float block's first and last elements hold a sentinel (a
//     signalling NaN no arithmetic produces): both changed is a full
//     overwrite (Zero, Copy), taken as the newest values (all zeros are
//     set on the device with no transfer);
//   - and a trip sees any other write: the whole pages inside the block
//     through userfaultfd's write-protect (internal/uffd; Linux; result
//     memory's whole mapping), the bytes around them, and blocks of a page
//     or two, by comparing with a copy taken when armed.
//
// Anything else written is a partial write that would lose the rest of
// the device's values: the next use returns an error naming the fix, once,
// and the device's values stay the newest.
//
// While both copies are current, the ops would read the device's: a trip
// watches the host copy the same way (set at each use, setClean, or right
// after a download home, homeWatch), and a write found at the next use
// makes the host copy the newer one, uploaded by the op.

const (
	sentinel32 uint32 = 0x7fa1b2c3
	sentinel64 uint64 = 0x7ff4b2c3d5e6f701
)

// ErrHostWrite is wrapped by the error for a Dense written on the host in
// part (through Data, or tensor.Copy into a view) while its newest values
// were on the device.
var ErrHostWrite = fmt.Errorf("engine: host write to device-newer memory")

// sentinelAt reports whether the element at p holds the sentinel of t, or
// stores it there when set.
func sentinelAt(t reflect.Type, p uintptr, set bool) bool {
	switch t.Kind() {
	case reflect.Float32:
		w := (*uint32)(ptr(p))
		if set && *w != sentinel32 { // no store where it is: the page may be protected
			*w = sentinel32
		}
		return *w == sentinel32
	case reflect.Float64:
		w := (*uint64)(ptr(p))
		if set && *w != sentinel64 {
			*w = sentinel64
		}
		return *w == sentinel64
	}
	return false
}

// storeSentinel stores the sentinel at p, an end of b: through the watch
// where its pages hold p (protected while the host copy was current), so
// that the engine's own store neither faults nor reads as a write.
func (b *block) storeSentinel(p uintptr) {
	if sentinelAt(b.elem, p, false) {
		return
	}
	if t := b.trip; t != nil && t.w != nil && p >= t.lo && p < t.hi {
		var v [8]byte
		n := b.elem.Size()
		sentinelAt(b.elem, uintptr(unsafe.Pointer(&v[0])), true)
		if t.w.Poke(p, v[:n]) == nil {
			return
		}
	}
	sentinelAt(b.elem, p, true)
}

// arm stores the sentinel in b's first and last elements where the
// device holds their newest values (residency is by region: a host-current
// element holds data), then sets b's trip; h.mu is held. The check and the
// stores are one step under the Array's residency lock: a device closing
// between them would otherwise bring the data home first and leave a
// sentinel over it.
func (b *block) arm() {
	b.armed = [2]bool{}
	if b.trip != nil {
		b.trip.full = false
	}
	if b.size == 0 || b.endsDirty == nil || b.dropHost() {
		return
	}
	if k := b.elem.Kind(); k == reflect.Float32 || k == reflect.Float64 {
		ends := b.ends()
		b.endsDirty(func(d0, d1 bool) {
			for i, dirty := range [2]bool{d0, d1} {
				if dirty {
					b.storeSentinel(ends[i])
					b.armed[i] = true
				}
			}
		})
	}
	b.setTrip()
}

// trip sees writes to a block's host copy between two uses of the block:
// its whole pages through w, the bytes around them (the whole block where
// there is no w) by comparison with snap.
type trip struct {
	w      *uffd.Watch
	lo, hi uintptr // w's pages
	snap   []byte  // the bytes outside [lo, hi) when set: before, then after
	lent   bool    // w is the mapping's, which covers the whole block
	on     bool    // set since the device last took the newest values
	gen    uint64  // the Array's device-dirty count when set
	// clean: set while the host copy was current (setClean), so a write
	// to it found at the next use makes it the newest values.
	clean bool
	// dropped: the host copy was let go (dropHost) and a touch fills it
	// from the device; full: filled since, so the host copy holds every
	// newest value and a write to it is taken.
	dropped, full bool
	// blind: set while the device leads with no snapshot, as the copy
	// home at the call's end follows (homeDue without userfaultfd): only
	// the sentinels see a write before it (one racing the op).
	blind bool
}

// tripCopy bounds the bytes a trip keeps a copy of to compare; more (a
// block with no watch, as without userfaultfd) it keeps a 64-bit hash of,
// so a write that leaves the hash unchanged (odds 2^-64) is not seen.
const tripCopy = 64 << 10

var tripSeed = maphash.MakeSeed()

var pageSize = uintptr(os.Getpagesize())

// setTrip sets b's trip, while the device holds newest values of b; h.mu
// is held. A Step's blocks get none: a replay writes their host copies.
func (b *block) setTrip() {
	if b.held > 0 || b.away == nil {
		b.closeTrip()
		return
	}
	gen, some, all := b.away()
	if !some {
		b.closeTrip()
		return
	}
	if b.trip == nil {
		b.trip = b.newTrip()
	}
	t := b.trip
	if t.w != nil && t.w.Protect() != nil {
		b.unwatch(t) // compared whole from here on
	}
	t.blind = t.w == nil && !uffd.Available() && b.homeDue()
	if t.blind { // no pass over the block: it comes home next
		t.snap = t.snap[:0]
		t.on, t.gen, t.clean = true, gen, false
		b.publish(t)
		return
	}
	if all && !t.lent {
		// Stale bytes, which a write of the same value would not change:
		// made ones no write gives (a float's sentinel).
		fillStale(b.elem, bytesAt(b.start, t.lo-b.start))
		fillStale(b.elem, bytesAt(t.hi, b.start+b.size-t.hi))
	}
	t.snap = edges(t.snap, b.start, t.lo, t.hi, b.start+b.size)
	t.on, t.gen, t.clean = true, gen, false
	b.publish(t)
}

// setClean sets b's trip while its host copy is current (before an op
// that may upload it, so that both copies are current after): a write to
// it behind the engine's back would otherwise be lost, as the device copy
// would stay the one ops read; h.mu is held. same: the trip's snapshot
// holds the bytes as they are (cleanWrites compared them), so no pass.
func (b *block) setClean(same bool) {
	if b.held > 0 || b.away == nil {
		return
	}
	if b.trip == nil {
		b.trip = b.newTrip()
	}
	t := b.trip
	if t.w != nil && t.w.Protect() != nil {
		b.unwatch(t)
		same = false
	}
	if !same {
		t.snap = edges(t.snap, b.start, t.lo, t.hi, b.start+b.size)
	}
	t.on, t.gen, t.clean, t.full, t.blind = true, b.gen(), true, false, false
}

// cleanWrites takes a write behind the engine's back to b's host copy
// while both copies were current, found at this use: since the trip set
// while they were (clean), or since a download home ended the device's
// lead (homeWatch); the host copy is then the newer, uploaded by the op;
// h.mu is held. same reports that the trip's snapshot, compared, holds
// the bytes as they are (setClean keeps it).
func (b *block) cleanWrites() (same bool) {
	t := b.trip
	if t == nil || !t.on {
		return false
	}
	gen := b.gen()
	checked := t.clean && t.gen == gen
	wrote := checked && b.wrote()
	if !t.clean && b.homed != nil {
		wrote, checked = b.homed.wroteSince(gen, t)
	}
	if wrote && b.current() {
		b.hostNewer()
	}
	t.on, t.clean = false, false
	return checked && !wrote && t.w == nil
}

// homeWatch is what a download home of b's Array sees of b's trip (the
// Array tells it, plumb's OnHome): right after the download it protects
// the watch again and copies the bytes around its pages, so a write
// behind the engine's back after the download is told from the
// download's own. It has its own lock: the Array tells it holding its
// residency lock, which is taken after h.mu.
type homeWatch struct {
	mu            sync.Mutex
	w             *uffd.Watch // nil: the bytes are compared whole
	on            bool        // a trip of the device's lead is published
	start, lo, hi uintptr     // the block, w's pages
	end           uintptr
	gen           uint64 // the Array's device-dirty count after the download
	snap          []byte // the bytes outside [lo, hi) then
}

// publish makes t, a trip set while the device leads, the one a download
// home refreshes (nil: none); h.mu is held.
func (b *block) publish(t *trip) {
	hw := b.homed
	if hw == nil {
		return
	}
	hw.mu.Lock()
	defer hw.mu.Unlock()
	hw.on, hw.gen = t != nil, 0
	if hw.on {
		hw.w, hw.start, hw.lo, hw.hi, hw.end = t.w, b.start, t.lo, t.hi, b.start+b.size
	} else {
		hw.w = nil
	}
}

// home runs right after a download left the host copy holding every
// newest value, under the Array's residency lock.
func (hw *homeWatch) home(gen uint64) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	if !hw.on {
		return
	}
	if hw.w != nil && hw.w.Protect() != nil {
		hw.on = false
		return
	}
	hw.snap = edges(hw.snap, hw.start, hw.lo, hw.hi, hw.end)
	hw.gen = gen
}

// wroteSince reports whether the host copy was written since the download
// home after which the Array's device-dirty count was gen, and whether it
// compared; unwritten, t's snapshot takes the download's.
func (hw *homeWatch) wroteSince(gen uint64, t *trip) (wrote, checked bool) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	if !hw.on || hw.gen != gen || gen == 0 {
		return false, false
	}
	wrote = hw.w != nil && hw.w.Hit() || edgesChanged(hw.snap, hw.start, hw.lo, hw.hi, hw.end)
	if !wrote && hw.w == nil { // unwatched: setClean keeps it (cleanWrites' same)
		t.snap = append(t.snap[:0], hw.snap...)
	}
	return wrote, true
}

// dropHost lets go of the host copy of result memory whose newest values
// are all on the device, if it can: its whole mapping is watched, and a C
// thread can read the device's memory (sim, OpenCL, CUDA). The next touch
// of any of its pages, a read or a write by any code, fills it from the
// device first (uffd.Drop), so Data() reads the newest values; h.mu is
// held. It sets b's trip as setTrip does.
func (b *block) dropHost() bool {
	if b.held > 0 || b.away == nil || b.root == nil {
		return false
	}
	// The device copy must hold every newest value: some on the device
	// only, and none on the host only.
	gen, some, all := b.away()
	if !some || !all && b.root.Raw().HostDirty() {
		return false
	}
	if b.trip == nil {
		b.trip = b.newTrip()
	}
	t := b.trip
	if t.w == nil || t.lo != b.start || b.start%pageSize != 0 || t.hi != b.start+b.size && !t.lent && !b.owned {
		// Go memory with bytes in a page other Go memory shares (a small
		// Dense of gorgonia's registers, or one whose size is not whole
		// pages): a read of those first could not fill them (Go's copy
		// loads a slice's last bytes before its first). settle copies it
		// home instead.
		return false
	}
	a, off := b.root.Raw().Allocation()
	src, at, ok := readBack(a, off)
	if !ok || t.w.Protect() != nil || t.w.Drop(src, at, b.start, b.pagesEnd(), b.size) != nil {
		return false
	}
	t.snap = t.snap[:0]
	t.on, t.gen, t.dropped, t.full, t.clean, t.blind = true, gen, true, false, false, false
	b.publish(t)
	return true
}

// pagesEnd is the end of b's last page (result memory: its mapping's).
func (b *block) pagesEnd() uintptr { return (b.start + b.size + pageSize - 1) &^ (pageSize - 1) }

// undrop fills b's dropped host copy now; h.mu is held. Before a Step
// holds b (a replay's transfers write host copies, and a driver must
// never fault on dropped pages), and before its watch closes while the
// device copy stays.
func (b *block) undrop() {
	if t := b.trip; t != nil && t.dropped {
		uffd.Settle(b.start, b.pagesEnd()-b.start, false)
		t.dropped, t.full = false, true
	}
}

// readBack is where a fill reads the allocation a from byte off: its
// source, and the offset there. Its fills count as the device's D2H
// transfers (devkit.FillKey).
func readBack(a device.Allocation, off int) (uffd.Source, uintptr, bool) {
	if a == nil {
		return uffd.Source{}, 0, false
	}
	key := devkit.FillKey(a.Device())
	if m, ok := a.(interface{ Mem() []byte }); ok { // sim's: Go memory
		return uffd.MemSource(uintptr(unsafe.Pointer(unsafe.SliceData(m.Mem())))).Counted(key), uintptr(off), true
	}
	be, ok := plumb.BackendFor(a.Device())
	if !ok || be.ReadBack == nil {
		return uffd.Source{}, 0, false
	}
	src, base := be.ReadBack(a)
	return src.Counted(key), base + uintptr(off), true
}

// filled takes what became of b's dropped host copy since its trip was
// set: filled by a touch (full), with the fill's error; h.mu is held.
func (t *trip) filled() error {
	if t == nil || !t.dropped {
		return nil
	}
	filled, dropped, err := t.w.Filled()
	t.dropped, t.full = dropped, filled && err == nil
	return err
}

// newTrip is b's trip: result memory takes its mapping's watch (lazyHost),
// which covers every byte of it and outlives it; Go memory a watch over
// its whole pages; the rest of the bytes are compared. Made once per
// block, so a registration that failed is not tried at every use.
func (b *block) newTrip() *trip {
	end := b.start + b.size
	if hb, ok := b.hb.(*hostBlock); ok && hb.pageWatch() != nil {
		return &trip{w: hb.pageWatch(), lo: b.start, hi: end, lent: true}
	}
	t := &trip{lo: (b.start + pageSize - 1) &^ (pageSize - 1), hi: end &^ (pageSize - 1)}
	wend := t.hi
	if b.owned && t.lo == b.start {
		// Alloc's memory has its last page to itself (allocGo).
		t.hi, wend = end, b.pagesEnd()
	}
	if wend > t.lo && b.goMem() && uffd.Available() && uffd.RegisterHeap(t.lo, wend-t.lo) == nil {
		if w, err := uffd.New(t.lo, wend-t.lo); err == nil {
			t.w = w
			return t
		}
	}
	b.unwatch(t)
	return t
}

// unwatch leaves t without a watch: b compared whole (or its hash).
func (b *block) unwatch(t *trip) {
	b.undrop()
	b.publish(nil)
	if t.w != nil && !t.lent {
		t.w.Close()
	}
	t.w, t.lent = nil, false
	t.lo, t.hi = b.start+b.size, b.start+b.size
}

// staleByte fills the stale host copy of integer memory a trip compares.
const staleByte = 0xa5

// fillStale fills m, stale elements of type t, with the sentinel of a
// float, staleByte in every byte of others.
func fillStale(t reflect.Type, m []byte) {
	p := stalePage[t.Kind()]
	if p == nil {
		p = stalePage[reflect.Invalid]
	}
	for len(m) > 0 {
		m = m[copy(m, p):]
	}
}

// stalePage is what fillStale copies, by element kind: whole elements.
var stalePage = func() map[reflect.Kind][]byte {
	m := map[reflect.Kind][]byte{}
	for k, t := range map[reflect.Kind]reflect.Type{reflect.Invalid: nil, reflect.Float32: reflect.TypeFor[float32](), reflect.Float64: reflect.TypeFor[float64]()} {
		p := bytes.Repeat([]byte{staleByte}, 4096)
		for i := 0; t != nil && i < len(p); i += int(t.Size()) {
			sentinelAt(t, uintptr(unsafe.Pointer(&p[i])), true)
		}
		m[k] = p
	}
	return m
}()

// wrote reports whether b's host copy was written since its trip was set.
func (b *block) wrote() bool {
	t := b.trip
	if t == nil || !t.on || t.blind {
		return false
	}
	return t.w != nil && t.w.Hit() || edgesChanged(t.snap, b.start, t.lo, t.hi, b.start+b.size)
}

// edges copies the bytes of [start, end) outside a watch's pages [lo, hi)
// into snap's storage, or, more than tripCopy, their hash.
func edges(snap []byte, start, lo, hi, end uintptr) []byte {
	if lo-start+end-hi > tripCopy {
		return binary.LittleEndian.AppendUint64(snap[:0], edgesHash(start, lo, hi, end))
	}
	return append(append(snap[:0], bytesAt(start, lo-start)...), bytesAt(hi, end-hi)...)
}

// edgesChanged reports whether those bytes differ from snap, their edges.
func edgesChanged(snap []byte, start, lo, hi, end uintptr) bool {
	n := lo - start
	if n+end-hi > tripCopy {
		return len(snap) != 8 || binary.LittleEndian.Uint64(snap) != edgesHash(start, lo, hi, end)
	}
	return !bytes.Equal(snap[:n], bytesAt(start, n)) || !bytes.Equal(snap[n:], bytesAt(hi, end-hi))
}

// edgesHash is the hash edges keeps of the bytes outside [lo, hi).
func edgesHash(start, lo, hi, end uintptr) uint64 {
	var h maphash.Hash
	h.SetSeed(tripSeed)
	for _, m := range [2][]byte{bytesAt(start, lo-start), bytesAt(hi, end-hi)} {
		var sum [8]byte
		binary.LittleEndian.PutUint64(sum[:], hashBytes(m))
		h.Write(sum[:])
	}
	return h.Sum64()
}

// hashPart is the part of a block hashBytes hashes on one goroutine.
const hashPart = 1 << 20

// hashBytes is a hash of m: over 1 MiB, of its MiB parts' hashes, taken
// over the cores (onCores; a pass over every byte, at each use of a block
// without userfaultfd, was most of an H100 step's time).
func hashBytes(m []byte) uint64 {
	if len(m) <= hashPart {
		return maphash.Bytes(tripSeed, m)
	}
	sums := make([]byte, 8*((len(m)+hashPart-1)/hashPart))
	onCores(len(m), hashPart, func(i, lo, hi int) {
		binary.LittleEndian.PutUint64(sums[8*i:], maphash.Bytes(tripSeed, m[lo:hi]))
	})
	return maphash.Bytes(tripSeed, sums)
}

// gen is the Array's count of device-dirty changes.
func (b *block) gen() uint64 { g, _, _ := b.away(); return g }

// closeTrip ends b's trip, before its memory can go back to its owner. A
// mapping's watch stays with the mapping, protected: the next result over
// it finds it so.
func (b *block) closeTrip() {
	b.undrop()
	b.publish(nil)
	if t := b.trip; t != nil && t.w != nil && !t.lent {
		t.w.Close()
	}
	b.trip = nil
}

// takeDrop takes what became of b's dropped host copy since its trip was
// set: written after the fill that a touch made, it holds every newest
// value and is taken as them (takeHost: taken); h.mu is held.
func (b *block) takeDrop() (taken bool, err error) {
	t := b.trip
	if err := t.filled(); err != nil {
		t.on = false
		return false, fmt.Errorf("engine: the memory at %#x (%d bytes) was read on the host while its newest values were on the device, and reading them from the device failed, so the read saw zeros; the device keeps the newest values: call engine.Host(d) first: %w", b.start, b.size, err)
	}
	if t == nil || !t.full || !t.w.Hit() {
		return false, nil
	}
	if t.gen != b.gen() { // the engine's own transfer wrote part of it since
		t.full = false
		return false, nil
	}
	t.on, t.full = false, false
	return true, b.take()
}

// errHostWrite is the error for a write to b's host copy that lost the
// device's newer values.
func (b *block) errHostWrite() error {
	return fmt.Errorf("%w: the memory at %#x (%d bytes) was written on the host (through Data(), SetAt or tensor.Copy into a view) while its newest values were on the device, and not whole (or not float memory, where the engine sees no whole overwrite), so the write was not taken and the device keeps the newest values: call engine.Host(d) first and write through the Dense it returns", ErrHostWrite, b.start, b.size)
}

// forgetDrop ends b's drop with no fill, before its device copy goes
// while no Dense reads the memory (a result freed); h.mu is held.
func (b *block) forgetDrop() {
	if t := b.trip; t != nil && t.dropped {
		t.w.Forget()
		t.dropped = false
	}
}

// ends are the addresses of b's first and last elements (typed).
func (b *block) ends() [2]uintptr {
	return [2]uintptr{b.start, b.start + b.size - b.elem.Size()}
}

// armDense arms the block of d, an op's destination, after the op,
// unless another call's settle copied it home since: its watch is then
// the download's (homeWatch), which arming a current block would close.
func (h *holdings) armDense(d interface{ Uintptr() uintptr }) {
	owner, b := h.locateAddr(d.Uintptr())
	if b == nil {
		return
	}
	owner.mu.Lock()
	if b.root != nil && b.deviceDirty() {
		b.arm()
	}
	owner.mu.Unlock()
}

// homeDue reports whether b, typed, holds newest values on the device
// that settle copies home, since no touch of the host copy would fetch
// them: Go memory whose host copy was not let go, or, without
// userfaultfd, any memory. As a fill, it is part of reading right, which
// the transfer guard does not refuse (Stats count it); h.mu is held.
func (b *block) homeDue() bool {
	if b.held > 0 || b.trip != nil && b.trip.dropped || !b.deviceDirty() {
		return false
	}
	return !uffd.Available() || b.goMem()
}

// touch records b, used by a call under way, for settle; h.mu is held.
func (h *holdings) touch(b *block) {
	b.lastTouch = calls.seq.Load()
	if !b.touched {
		b.touched = true
		h.touched = append(h.touched, b)
	}
}

// settle runs as each call leaves (of h, or of an engine that used h's
// blocks), over the blocks used since the oldest call still under way,
// of any engine, entered: each the device holds newer values of is
// armed, if no watch set since its device copy last changed is on (some
// ops write their operands, or results they never arm); and a block
// whose host copy was not let go is copied home where homeDue says: code
// the engine never sees reads it (gorgonia's host ops), and a stale read
// would be silent. Both copies are current then, and a write is seen as
// in any such block. A block stays listed while a call that may have
// used it is under way, as that call's op may make it newer again after
// this pass (goroutines calling at once); it may be armed or copied home
// meanwhile, as both are right at any time (the copy home reads after
// the work queued on the device). h.mu is held; it returns the blocks to
// copy home once it is released (settleHome).
func (h *holdings) settle() (homes []*block) {
	oldest := oldestCall()
	kept := h.touched[:0]
	for _, b := range h.touched {
		if b.lastTouch >= oldest {
			kept = append(kept, b)
		} else {
			b.touched = false
		}
		if b.root == nil || b.held > 0 || b.endsDirty == nil || !h.holds(b) || !b.deviceDirty() {
			continue
		}
		if t := b.trip; t == nil || !t.on || t.clean || t.gen != b.gen() {
			b.arm()
		}
		if !b.homing && b.homeDue() {
			b.homing = true
			h.homing++
			h.work.homed.Add(1)
			homes = append(homes, b)
		}
	}
	clear(h.touched[len(kept):])
	h.touched = kept
	return homes
}

// settleHome copies b home for settle, and again while a call made it
// newer on the device meanwhile (settle left it to this copy), a few
// times: a call that keeps doing so used b, so its own leave settles b.
// A failed copy leaves b device-newer, watched by its sentinels.
func (h *holdings) settleHome(b *block) {
	for try := 1; ; try++ {
		h.mu.Lock()
		home := b.home
		if b.root == nil || !h.holds(b) {
			home = nil
		}
		h.mu.Unlock()
		var err error
		if home != nil {
			err = home()
		}
		h.mu.Lock()
		again := try < 8 && err == nil && home != nil && b.root != nil && h.holds(b) && b.homeDue()
		if again {
			if t := b.trip; t == nil || !t.on || t.clean || t.gen != b.gen() {
				b.arm()
			}
			h.work.homed.Add(1)
		} else {
			b.homing = false
			h.homing--
			h.homed.Broadcast()
		}
		h.mu.Unlock()
		if !again {
			return
		}
	}
}

// locateAddr is the block holding the byte at p, in h or another open
// engine.
func (h *holdings) locateAddr(p uintptr) (*holdings, *block) {
	if h.isClosed() {
		return nil, nil
	}
	if b := h.find(p, 1); b != nil {
		return h, b
	}
	return h.holder(p, 1)
}

// hostWrites finds writes made to b's host copy behind the engine's back
// since it was armed (see above) and makes them the newest values, or
// returns the error naming the fix; it arms b when the device holds its
// newest values. Every use of a block passes through it.
func (h *holdings) hostWrites(b *block) error { return h.hostWritesFor(b, false) }

// hostWritesFor is hostWrites for a use as an op's destination (dst),
// which the op makes device-newer: its host copy is watched after the op
// (arm), not before, where the engine's own sentinel stores would fault.
func (h *holdings) hostWritesFor(b *block, dst bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.touch(b) // typed by the op, if not yet
	if b.root == nil || b.endsDirty == nil {
		return nil
	}
	if !b.deviceDirty() {
		b.armed = [2]bool{} // the host copy is current: its elements are data
		same := b.cleanWrites()
		if b.trip != nil {
			b.trip.on = false
		}
		if !dst {
			b.setClean(same)
		}
		return nil
	}
	if t := b.trip; t != nil && t.clean { // the device took the newest values since
		t.on, t.clean = false, false
	}
	if !b.armed[0] && !b.armed[1] && (b.trip == nil || !b.trip.on) {
		b.arm()
		return nil
	}
	switch taken, err := b.takeDrop(); {
	case err != nil || taken:
		return err
	case b.trip != nil && b.trip.dropped:
		return nil // untouched
	case b.trip != nil && b.trip.full:
		// Read: the host copy equals the device's, until this use's op
		// writes the device (an op does not arm its result): let go again.
		b.arm()
		return nil
	}
	// Read under the residency lock, as arm stores: a device closing
	// meanwhile downloads the block over both ends at once, never
	// between the two reads (which looked like a write to one end).
	var changed int
	b.endsDirty(func(d0, d1 bool) {
		for i, p := range b.ends() {
			if b.armed[i] && [2]bool{d0, d1}[i] && !sentinelAt(b.elem, p, false) {
				changed++
			}
		}
	})
	switch {
	case changed == 0 && !b.wrote():
		return nil
	case changed == 0 && b.trip.gen != b.gen():
		b.arm() // the engine's own transfers wrote part of it
		return nil
	case changed == 0, changed < 2 && b.ends()[0] != b.ends()[1]:
		b.arm()
		return b.errHostWrite()
	}
	b.armed = [2]bool{}
	if b.trip != nil {
		b.trip.on = false
	}
	return b.take()
}

// take makes b's host copy the newest values (takeHost), and watches it
// from then on as a current one (setClean); h.mu is held.
func (b *block) take() error {
	if err := b.takeHost(); err != nil {
		return err
	}
	b.setClean(false)
	return nil
}
