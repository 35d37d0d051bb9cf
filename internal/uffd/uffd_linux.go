//go:build linux && cgo

package uffd

// #include "uffd.h"
import "C"

import (
	"fmt"
	"sync"
	"syscall"
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
	if e := C.ruffd_register(C.uintptr_t(start), C.uintptr_t(len)); e != 0 {
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

// RegisterHeap is Register for memory that is never unmapped (Go's heap),
// once per range: a registration takes the process's memory-map lock.
func RegisterHeap(start, n uintptr) error {
	heap.Lock()
	defer heap.Unlock()
	if heap.done[[2]uintptr{start, n}] {
		return nil
	}
	if err := Register(start, n); err != nil {
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

// Counts are the faults served, protections set and ranges registered
// since the process started, and the Watches not yet closed.
func Counts() (faults, protects, registers, live uint64) {
	var c [4]C.uint64_t
	C.ruffd_counts(&c[0])
	return uint64(c[0]), uint64(c[1]), uint64(c[2]), uint64(c[3])
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
