//go:build linux && cgo

package uffd

// #include "uffd.h"
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

var open = sync.OnceValue(func() error {
	if off {
		return errOff
	}
	if e := C.ruffd_open(); e != 0 {
		return fmt.Errorf("uffd: %w", syscall.Errno(-e))
	}
	return nil
})

// Available reports whether Watches work here; the first call opens the
// userfaultfd and starts the thread.
func Available() bool { return open() == nil }

// Watch is a range of whole pages whose writes are watched.
type Watch struct{ w *C.struct_ruffd_watch }

// Register makes the len bytes at start (page-aligned, whole mappings
// or parts of them: anonymous private memory) watchable. It is
// idempotent, and ends with the mapping.
func Register(start, len uintptr) error {
	if err := open(); err != nil {
		return err
	}
	return register(start, len, 0)
}

// RegisterFill is Register where Drop may let the pages go: a touch of a
// page no drop covers gets zeros, as anonymous memory does.
func RegisterFill(start, len uintptr) error {
	if err := open(); err != nil {
		return err
	}
	return register(start, len, 1)
}

func register(start, len uintptr, missing C.int) error {
	if e := C.ruffd_register(C.uintptr_t(start), C.uintptr_t(len), missing); e != 0 {
		return fmt.Errorf("uffd: registering %d bytes at %#x: %w", len, start, syscall.Errno(-e))
	}
	return nil
}

// heap remembers the ranges RegisterHeap registered: Go's heap is never
// unmapped, and it hands the same ranges out again (gorgonia's registers,
// every run), so most come back registered.
var heap struct {
	sync.Mutex
	done map[[2]uintptr]bool
}

// RegisterHeap is RegisterFill for memory that is never unmapped (Go's
// heap), once per range: a registration takes the process's memory-map
// lock. Always with missing: registering a range again with fewer modes
// would take a drop's away.
func RegisterHeap(start, n uintptr) error {
	heap.Lock()
	defer heap.Unlock()
	if heap.done[[2]uintptr{start, n}] {
		return nil
	}
	if err := RegisterFill(start, n); err != nil {
		return err
	}
	if heap.done == nil || len(heap.done) >= 1<<12 {
		heap.done = map[[2]uintptr]bool{}
	}
	heap.done[[2]uintptr{start, n}] = true
	return nil
}

// New watches the len bytes at start: whole registered pages that nothing
// else writes. The watch starts unprotected.
func New(start, len uintptr) (*Watch, error) {
	if err := open(); err != nil {
		return nil, err
	}
	var e C.int
	w := C.ruffd_new(C.uintptr_t(start), C.uintptr_t(len), &e)
	if w == nil {
		return nil, fmt.Errorf("uffd: a watch of %d bytes at %#x: %w", len, start, syscall.Errno(-e))
	}
	return &Watch{w}, nil
}

// Protect clears Hit and makes the next write to the pages set it.
func (w *Watch) Protect() error { return errno(C.ruffd_protect(w.w, 1)) }

// Unprotect lifts the protection; Hit keeps its value.
func (w *Watch) Unprotect() error { return errno(C.ruffd_protect(w.w, 0)) }

// Poke stores v at p, in w's pages, with no fault and no hit: the
// watcher's own write (the protection is lifted around it).
func (w *Watch) Poke(p uintptr, v []byte) error {
	return errno(C.ruffd_poke(w.w, C.uintptr_t(p), unsafe.Pointer(unsafe.SliceData(v)), C.uintptr_t(len(v))))
}

// Hit reports whether the pages were written since the last Protect.
func (w *Watch) Hit() bool { return C.ruffd_hit(w.w) != 0 }

// Close lifts the protection and frees w. Closing again does nothing.
func (w *Watch) Close() error {
	if w.w == nil {
		return nil
	}
	err := errno(C.ruffd_close(w.w))
	w.w = nil
	return err
}

func errno(e C.int) error {
	if e == 0 {
		return nil
	}
	return fmt.Errorf("uffd: %w", syscall.Errno(-e))
}

// Counts are the write faults served (writes to protected pages; faults
// on missing pages are not counted: Fills counts the fills), protections
// set and ranges registered since the process started, and the Watches
// not yet closed.
func Counts() (faults, protects, registers, live uint64) {
	c := counts()
	return c[0], c[1], c[2], c[5]
}

// Fills are the Drops that let pages go and the fills that brought them
// back, since the process started.
func Fills() (drops, fills uint64) {
	c := counts()
	return c[3], c[4]
}

func counts() (out [6]uint64) {
	var c [6]C.uint64_t
	C.ruffd_counts(&c[0])
	for i := range out {
		out[i] = uint64(c[i])
	}
	return out
}

// Source is where a dropped range's bytes are read from: a C function
// (see uffd.h's ruffd_read_fn), the two words that name the memory, and
// the key its fills are counted under (Counted).
type Source struct {
	fn          unsafe.Pointer
	a0, a1, key uintptr
}

// Counted is s with its fills counted under key (Tally): a device's.
func (s Source) Counted(key uintptr) Source { s.key = key; return s }

// Tally is the fills read from sources counted under key, and their
// bytes; end forgets them (the device closed).
func Tally(key uintptr, end bool) (calls, bytes int64) {
	if !dropping.Load() {
		return 0, 0
	}
	var out [2]C.uint64_t
	e := C.int(0)
	if end {
		e = 1
	}
	C.ruffd_tally(C.uintptr_t(key), e, &out[0])
	return int64(out[0]), int64(out[1])
}

// NewSource is the Source read by fn, a C ruffd_read_fn, with a0 and a1.
func NewSource(fn unsafe.Pointer, a0, a1 uintptr) Source { return Source{fn: fn, a0: a0, a1: a1} }

// MemSource is the Source of memory the host reads at p (a simulated
// device's, kept alive by its owner while a drop uses it; never itself
// dropped).
func MemSource(p uintptr) Source { return Source{fn: C.ruffd_memcpy, a0: p} }

// dropping is set by the first Drop: until then Settle has nothing to do.
var dropping atomic.Bool

// Drop lets go of the host copy of [lo, hi), whole pages of w (nothing
// else's) registered with RegisterFill: the next touch of one of them (a
// read or a write, by any thread) fills them all with n bytes read from
// src at off, then zeros.
func (w *Watch) Drop(src Source, off, lo, hi, n uintptr) error {
	dropping.Store(true)
	s := C.struct_ruffd_source{fn: C.ruffd_read_fn(src.fn), a0: C.uintptr_t(src.a0), a1: C.uintptr_t(src.a1), key: C.uintptr_t(src.key)}
	return errno(C.ruffd_drop(w.w, s, C.uintptr_t(off), C.uintptr_t(lo), C.uintptr_t(hi), C.uintptr_t(n)))
}

// Forget ends w's drop with no fill: its pages read as zeros.
func (w *Watch) Forget() { C.ruffd_forget(w.w) }

// Filled reports whether a fill brought w's dropped pages back since the
// last call (with its error: the pages then hold zeros), and whether they
// are dropped still.
func (w *Watch) Filled() (filled, dropped bool, err error) {
	var d C.int
	f := C.ruffd_filled(w.w, &d)
	if f < 0 {
		return true, d != 0, fmt.Errorf("uffd: reading a dropped range back: %w", syscall.Errno(-f))
	}
	return f != 0, d != 0, nil
}

// Settle fills every dropped range that the n bytes at p touch, before a
// driver moves them (a driver must never fault on a page whose fill goes
// through a driver). over: the caller overwrites every byte of them, so
// a range they cover gets zeros instead.
func Settle(p, n uintptr, over bool) error {
	if !dropping.Load() {
		return nil
	}
	o := C.int(0)
	if over {
		o = 1
	}
	return errno(C.ruffd_settle(C.uintptr_t(p), C.uintptr_t(n), o))
}

// off is set by TurnOff.
var off bool

var errOff = fmt.Errorf("uffd: turned off")

// TurnOff makes Available false, as on a system without userfaultfd, for
// tests of that case; before the first Available only, so it panics after.
func TurnOff() {
	off = true
	if open() == nil {
		panic("uffd: TurnOff after the userfaultfd opened")
	}
}
