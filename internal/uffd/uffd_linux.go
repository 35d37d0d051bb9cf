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

// New watches the len bytes at start (page-aligned, whole pages of
// anonymous private memory that nothing else writes), unprotected.
func New(start, len uintptr) (*Watch, error) {
	if err := open(); err != nil {
		return nil, err
	}
	var e C.int
	w := C.ruffd_new(C.uintptr_t(start), C.uintptr_t(len), &e)
	if w == nil {
		return nil, fmt.Errorf("uffd: registering %d bytes at %#x: %w", len, start, syscall.Errno(-e))
	}
	return &Watch{w}, nil
}

// Protect clears Hit and makes the next write to the pages set it.
func (w *Watch) Protect() error { return errno(C.ruffd_protect(w.w, 1)) }

// Unprotect lifts the protection; Hit keeps its value.
func (w *Watch) Unprotect() error { return errno(C.ruffd_protect(w.w, 0)) }

// Hit reports whether the pages were written since the last Protect.
func (w *Watch) Hit() bool { return C.ruffd_hit(w.w) != 0 }

// Close lifts the protection and frees w; once only.
func (w *Watch) Close() error {
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
