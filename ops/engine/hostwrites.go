package engine

import (
	"fmt"
	"reflect"
)

// Writes behind the engine's back. tensor's Dense.Zero, tensor.Copy from a
// host Dense (the standard engine's Memcpy), CopyTo and writes through
// Data() change the host memory of an engine Dense with no engine call;
// gorgonia's solvers zero every gradient with Dense.Zero after each step,
// and zero the weights' Clone for their caches. While the device holds a
// float block's newest values, its host copy is stale, so the engine
// stores a sentinel (a signalling NaN no arithmetic produces) in the
// block's first and last elements. The next use that finds both changed
// takes the host copy as the newest (a full overwrite: Zero, Copy); all
// zeros are set on the device with no transfer. One changed is a partial
// write that would lose the rest of the device's values: an error naming
// the fix. A write that misses both elements is not seen (see doc.go).

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
		if set {
			*w = sentinel32
		}
		return *w == sentinel32
	case reflect.Float64:
		w := (*uint64)(ptr(p))
		if set {
			*w = sentinel64
		}
		return *w == sentinel64
	}
	return false
}

// arm stores the sentinel in b's first and last elements where the
// device holds their newest values (residency is by region: a host-current
// element holds data); h.mu is held. The check and the stores are one step
// under the Array's residency lock: a device closing between them would
// otherwise bring the data home first and leave a sentinel over it.
func (b *block) arm() {
	b.armed = [2]bool{}
	if b.size == 0 || b.endsDirty == nil {
		return
	}
	if k := b.elem.Kind(); k != reflect.Float32 && k != reflect.Float64 {
		return
	}
	ends := b.ends()
	b.endsDirty(func(d0, d1 bool) {
		for i, dirty := range [2]bool{d0, d1} {
			if dirty {
				sentinelAt(b.elem, ends[i], true)
				b.armed[i] = true
			}
		}
	})
}

// ends are the addresses of b's first and last elements (typed).
func (b *block) ends() [2]uintptr {
	return [2]uintptr{b.start, b.start + b.size - b.elem.Size()}
}

// armDense arms the block of d, an op's destination, after the op.
func (h *holdings) armDense(d interface{ Uintptr() uintptr }) {
	owner, b := h.locateAddr(d.Uintptr())
	if b == nil {
		return
	}
	owner.mu.Lock()
	if b.root != nil {
		b.arm()
	}
	owner.mu.Unlock()
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
func (h *holdings) hostWrites(b *block) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if b.root == nil || b.endsDirty == nil {
		return nil
	}
	if !b.deviceDirty() {
		b.armed = [2]bool{} // the host copy is current: its elements are data
		return nil
	}
	if !b.armed[0] && !b.armed[1] {
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
	case changed == 0:
		return nil
	case changed < 2 && b.ends()[0] != b.ends()[1]:
		return fmt.Errorf("%w: the memory at %#x (%d bytes) was written on the host in part (through Data(), SetAt or tensor.Copy into a view) while its newest values were on the device, so the rest of them would be lost: call engine.Host(d) first and write through the Dense it returns", ErrHostWrite, b.start, b.size)
	}
	b.armed = [2]bool{}
	return b.takeHost()
}
