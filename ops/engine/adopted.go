package engine

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"weak"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// Go memory given the engine (gorgonia's registers, the user's Denses made
// WithBacking) is adopted: it gets a device copy like the engine's own
// memory. Its lifetime is the Go memory's, not any one Dense's: tensor and
// gorgonia make many Denses over one backing (a dual value, a view, a
// ShallowClone, tensor.New(WithBacking(d.Data()))), and whichever the
// engine saw first may be collected while another is still used.
//
// While a Dense the engine was given over the memory lives (users, held
// weakly), the block holds its Array, which holds the memory. When the
// last of them is collected the block is parked: the Array is closed
// (unpinning the memory) but the device copy, the engine's own allocation
// that the Array only wrapped, stays, with its state (device-newer or
// current, the sentinels), and the engine watches the memory only weakly.
// The next use of the memory, through any Dense, finds the parked block
// and types it again over the same device copy (no transfer); once the
// memory itself is collected, a cleanup on it frees the device copy. So a
// device copy is dropped only when no Go code can reach its memory, or
// copied home first (Close; memory written on the host in part).

// parkedState is what a parked block keeps of its Array.
type parkedState struct {
	dirty bool    // the device copy holds newer values than the host
	armed [2]bool // the host copy holds the sentinels (hostwrites.go)
	// hostNewer: Alloc's memory written on the host since its last device
	// use and nowhere newer on the device: uploaded at its next use.
	hostNewer bool
}

// adopt makes the Go memory d addresses a block of h, so it gets a device
// copy like the engine's own memory. It returns nil (the memory stays
// host-only) for one element (gorgonia's scalars: read as values), for
// memory misaligned for d's type, for memory outside Go's heap (whose
// lifetime the engine cannot watch), and for memory overlapping a block
// already held (a view of adopted memory must not make a second one).
func (h *holdings) adopt(d *tensor.Dense) (*block, error) {
	p, n := d.Uintptr(), d.MemSize()
	size := d.Dtype().Size()
	if d.DataSize() <= 1 || n == 0 || size == 0 || p%uintptr(size) != 0 {
		return nil, nil
	}
	m := (*byte)(ptr(p))
	b := &block{start: p, size: n, adopted: true, users: map[weak.Pointer[tensor.Dense]]struct{}{}}
	if !h.watch(b, m) {
		return nil, nil
	}
	b.mem = weak.Make(m)
	gb := &goBlock{b: bytesAt(p, n)}
	gb.pin.Pin(m)
	b.hb = gb
	var dead []*block
	defer func() {
		for _, o := range dead {
			o.letGo(h)
		}
	}()
	h.mu.Lock()
	for {
		if h.closed {
			h.mu.Unlock()
			b.memDied.Stop()
			gb.Free()
			return nil, nil
		}
		i, _ := slices.BinarySearchFunc(h.blocks, p, func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
		var o *block
		switch {
		case i > 0 && h.blocks[i-1].start+h.blocks[i-1].size > p:
			o = h.blocks[i-1]
		case i < len(h.blocks) && h.blocks[i].start < p+n:
			o = h.blocks[i]
		}
		if o == nil {
			h.blocks = slices.Insert(h.blocks, i, b)
			break
		}
		if o.goMem() && o.root == nil && o.mem.Value() == nil { // memory collected, address reused
			h.remove(o)
			dead = append(dead, o)
			continue
		}
		h.mu.Unlock()
		b.memDied.Stop()
		gb.Free()
		return nil, nil
	}
	h.use(b, d)
	h.adopts++
	var drop []*block
	if h.adopts >= 16+h.kept {
		drop = h.sweep()
	}
	h.mu.Unlock()
	for _, o := range drop {
		o.free(h)
	}
	return b, nil
}

// watch attaches to the Go memory at m the cleanup that frees b's device
// copy once the memory is collected (memGone). It reports false for memory
// outside Go's heap and globals (C or mapped memory given to tensor
// WithBacking), which runtime.AddCleanup refuses with a panic.
func (h *holdings) watch(b *block, m *byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	b.memDied = runtime.AddCleanup(m, func(b *block) { h.memGone(b) }, b)
	return true
}

// used records d as a user of b, a block over Go memory: the block holds
// its memory while a Dense the engine saw over it does, and is parked
// after. Parking frees nothing (a Dense the engine never saw may still
// reach the memory: tensor allocates Alloc's memory for one, and a whole
// view, such as a lazy transpose, looks like its owner); only the memory's
// collection frees the device copy.
func (h *holdings) used(b *block, d *tensor.Dense) {
	if !b.goMem() {
		return // a result: reclaimed with the Dense the engine made
	}
	h.mu.Lock()
	h.use(b, d)
	h.mu.Unlock()
}

// use is used with h.mu held: b is parked once d and its other users are
// collected (unuse).
func (h *holdings) use(b *block, d *tensor.Dense) {
	w := weak.Make(d)
	if _, ok := b.users[w]; ok {
		return
	}
	b.users[w] = struct{}{}
	runtime.AddCleanup(d, func(w weak.Pointer[tensor.Dense]) { h.unuse(b, w) }, w)
}

// unuse is the cleanup of a collected user of b. It reads no other user
// (their goroutines may be changing them): with users left, b is checked
// when the next engine call ends (leave).
func (h *holdings) unuse(b *block, w weak.Pointer[tensor.Dense]) {
	h.mu.Lock()
	delete(b.users, w)
	var drop bool
	switch {
	case !h.holds(b):
	case len(b.users) == 0:
		drop = h.release(b)
	default:
		h.lost = append(h.lost, b)
	}
	h.mu.Unlock()
	if drop {
		b.free(h)
	}
}

// unused lets go of b, a block with no user left over its memory; h.mu
// is held. Go memory (adopted, Alloc's) is parked; a result's memory is
// reclaimed: it reports true, and the caller frees b.
func (h *holdings) unused(b *block) (drop bool) {
	if b.held > 0 {
		return false // a Step replays work on it
	}
	if b.goMem() {
		return h.park(b)
	}
	h.remove(b)
	if hb, ok := b.hb.(*hostBlock); ok {
		hb.pool = true
	}
	return true
}

// inUse reports whether a user of b is alive and still over b's memory
// (tensor's pool recycles Denses: one returned to it addresses nothing,
// or other memory); h.mu is held.
func (b *block) inUse() bool {
	for w := range b.users {
		d := w.Value()
		// A recycled Dense addresses nothing: its Uintptr would panic.
		if d != nil && d.MemSize() > 0 && d.Uintptr() >= b.start && d.Uintptr() < b.start+b.size {
			return true
		}
		delete(b.users, w)
	}
	return false
}

// sweep lets go of the blocks with users none of which is over their
// memory any more (the users' cleanups let go of the others; a Dense that
// tensor's pool recycled is never collected); it returns those to free.
// h.mu is held.
func (h *holdings) sweep() (drop []*block) {
	h.kept = 0
	for _, b := range slices.Clone(h.blocks) {
		if b.users == nil || b.parked != nil {
			continue
		}
		switch {
		case b.inUse():
			h.kept++
		case h.release(b):
			drop = append(drop, b)
		}
	}
	h.adopts = 0
	return drop
}

// park lets go of b's Array, keeping its device copy, so that b holds its
// memory only weakly; h.mu is held. Memory not yet typed, and memory
// written on the host in part (host-newer there), is let go instead: it
// reports true, and the caller frees b (Close's path: device-newer values
// are copied home first), after which the memory is plain Go memory again.
//
// Alloc's memory (owned) is never let go here: its Denses are the
// engine's (ManuallyManaged), and one the engine did not see may still
// reach the memory. Untyped, it is held weakly already; written on the
// host since its last device use, it is parked as host-newer (uploaded at
// the next use) unless the device holds newer values elsewhere in it: then
// it stays typed (h.mu is no place for a copy home), to be parked by a
// later sweep once used again.
func (h *holdings) park(b *block) (drop bool) {
	if b.parked != nil {
		return false
	}
	if err := b.takeWrites(); err != nil {
		return false // kept typed: the next use reports it
	}
	hostNewer := false
	switch {
	case b.owned && b.root == nil:
		return false
	case b.owned && b.root.Raw().HostDirty():
		if b.deviceDirty() {
			return false
		}
		hostNewer = true
	case b.root == nil || b.root.Raw().HostDirty():
		h.remove(b)
		return true
	}
	if b.homeDue() {
		return false // settle copies it home first; a later sweep parks it
	}
	if !hostNewer && !b.deviceDirty() {
		// The host copy holds every newest value, and a write to it while
		// parked would go unseen (its watch ends here): Alloc's memory
		// takes it as the newest at the next use; adopted memory is let go.
		if !b.owned {
			h.remove(b)
			return true
		}
		hostNewer = true
	}
	pk := &parkedState{dirty: b.deviceDirty(), armed: b.armed, hostNewer: hostNewer}
	b.parkTrip(h)
	b.root.Close() // lets go of the wrapped device copy; unpins the memory
	b.detach()
	b.parked = pk
	return false
}

// detach drops b's Array, closed, and the functions over it: nothing b
// holds may reach the memory then (the cleanup of a Dense tensor's pool
// keeps holds b).
func (b *block) detach() {
	b.root, b.hb = nil, nil
	b.host, b.hostRead, b.home, b.deviceDirty, b.fill0, b.endsDirty, b.takeHost, b.away = nil, nil, nil, nil, nil, nil, nil, nil
	b.current, b.hostNewer, b.homed = nil, nil, nil
}

// unpark types the parked block h.blocks[i] again, for a Dense that
// reaches its memory; h.mu is held. Memory collected meanwhile (its
// cleanup not yet run, the address reused) is let go: nil.
func (h *holdings) unpark(i int) *block {
	b := h.blocks[i]
	if b.mem.Value() == nil {
		h.blocks = slices.Delete(h.blocks, i, i+1)
		b.letGo(h)
		return nil
	}
	b.retype(h, b) // on error still parked: rootOf returns the error
	return b
}

// unparkAs is rootOf's typing of a parked block: an Array over the Go
// memory, with the parked device copy and its state; h.mu is held.
func unparkAs[T array.Elem](h *holdings, b *block) (*array.Array[T], error) {
	m := b.mem.Value()
	if m == nil {
		return nil, fmt.Errorf("engine: the Go memory at %#x was collected: %w", b.start, ErrFreed)
	}
	defer runtime.KeepAlive(m)
	gb := &goBlock{b: bytesAt(b.start, b.size)}
	gb.pin.Pin(m)
	r, err := array.NewOver[T](gb, b.ext...)
	if err != nil {
		gb.Free()
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := r.DeviceWrap(h.dev, b.alloc); err != nil {
		r.Close()
		return nil, fmt.Errorf("engine: the device copy of the Go memory at %#x: %w", b.start, err)
	}
	if b.parked.dirty {
		r.SetDeviceDirty(true)
	}
	if b.parked.hostNewer {
		r.SetHostDirty(true)
	}
	b.root, b.hb, b.armed, b.parked = r, gb, b.parked.armed, nil
	if b.finalizer { // pinned again: the drop is the Array's
		runtime.SetFinalizer(m, nil)
		b.finalizer = false
	}
	return r, nil
}

// takeWrites takes the writes behind the engine's back that b's trip
// found, as the next use would: a parked block keeps no watch of a host
// copy current on both sides, nor of one filled from the device; h.mu is
// held.
func (b *block) takeWrites() error {
	t := b.trip
	switch {
	case b.root == nil || b.endsDirty == nil || t == nil:
		return nil
	case !b.deviceDirty():
		b.cleanWrites()
		return nil
	case t.dropped || t.full:
		_, err := b.takeDrop()
		return err
	}
	return nil // the sentinels stay with the parked state
}

// parkTrip ends b's trip as b is parked; h.mu is held. A dropped host
// copy stays dropped (a read through a Dense the engine never saw still
// fills it from the parked device copy) where a finalizer on the Go
// memory can end the drop before the collector may reuse its pages:
// memory that dies unread costs no fill. Else it is filled now.
func (b *block) parkTrip(h *holdings) {
	// filled takes a fill made since the drop, which ends it: dropped again.
	if t := b.trip; t != nil && t.dropped && t.filled() == nil && t.dropped && b.finalize(h) {
		b.publish(nil)
		return
	}
	b.closeTrip()
}

// finalize sets the finalizer that ends b's drop once nothing reaches its
// memory (run before the collector frees it, which then needs another
// cycle); h.mu is held. It reports false where the runtime refuses one:
// memory that does not start an allocation, or has a finalizer already.
func (b *block) finalize(h *holdings) (ok bool) {
	m := b.mem.Value()
	if m == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	runtime.SetFinalizer(m, func(*byte) { h.unreachable(b) })
	b.finalizer = true
	return true
}

// unreachable is the finalizer of parked memory whose host copy was left
// dropped: nothing reaches it, so the drop ends with no fill (the pages
// read as zeros, as the collector expects of freed pages it gets back).
// A block no longer h's is left alone.
func (h *holdings) unreachable(b *block) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.holds(b) {
		// taken out of h.blocks (Close, a free): whoever took it ends its
		// trip in free, outside h.mu, so b is no longer this goroutine's
		// to touch (the race detector caught the two at once)
		return
	}
	if b.finalizer && b.parked != nil {
		b.endTrip()
	}
	b.finalizer = false
}

// endTrip ends b's trip with no fill: its memory is no one's any more
// (or about to be let go by Close); h.mu is held.
func (b *block) endTrip() {
	b.forgetDrop()
	b.closeTrip()
}

// memGone is the cleanup of Go memory the engine watches: the device copy
// of its block, parked (or of Alloc's memory, untyped), is freed. A typed
// block pins its memory, which cannot be collected meanwhile.
func (h *holdings) memGone(b *block) {
	h.mu.Lock()
	ok := b.root == nil && h.holds(b)
	if ok {
		h.remove(b)
	}
	h.mu.Unlock()
	if ok {
		b.letGo(h)
	}
}

// letGo frees the device copy of adopted memory b, removed from its
// holdings, and stops watching the memory.
func (b *block) letGo(h *holdings) error {
	b.memDied.Stop()
	a := b.alloc
	b.alloc = nil
	if a == nil {
		return nil
	}
	if err := h.dev.Free(a); err != nil && !errors.Is(err, device.ErrClosed) {
		return fmt.Errorf("engine: freeing the device copy of the Go memory at %#x: %w", b.start, err)
	}
	return nil
}

// indexOf is b's index in h's blocks, and whether b is one of them; h.mu
// is held.
func (h *holdings) indexOf(b *block) (int, bool) {
	i, ok := slices.BinarySearchFunc(h.blocks, b.start, func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
	return i, ok && h.blocks[i] == b
}

// holds reports whether b is one of h's blocks; h.mu is held.
func (h *holdings) holds(b *block) bool {
	_, ok := h.indexOf(b)
	return ok
}

// remove takes b out of h's blocks; h.mu is held.
func (h *holdings) remove(b *block) {
	if i, ok := h.indexOf(b); ok {
		h.blocks = slices.Delete(h.blocks, i, i+1)
	}
}
