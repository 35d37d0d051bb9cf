//go:build !linux || !cgo

package uffd

import (
	"errors"
	"unsafe"
)

var errNone = errors.New("uffd: userfaultfd needs Linux and cgo")

// Available reports whether Watches work here.
func Available() bool { return false }

// Watch is a range of whole pages whose writes are watched.
type Watch struct{}

// Register returns an error: there is no userfaultfd here.
func Register(start, len uintptr) error { return errNone }

// RegisterHeap returns an error: there is no userfaultfd here.
func RegisterHeap(start, len uintptr) error { return errNone }

// RegisterFill returns an error: there is no userfaultfd here.
func RegisterFill(start, len uintptr) error { return errNone }

// New returns an error: there is no userfaultfd here.
func New(start, len uintptr) (*Watch, error) { return nil, errNone }

// Protect clears Hit and makes the next write to the pages set it.
func (w *Watch) Protect() error { return errNone }

// Unprotect lifts the protection.
func (w *Watch) Unprotect() error { return errNone }

// Hit reports whether the pages were written since the last Protect.
func (w *Watch) Hit() bool { return false }

// Poke returns an error: there are no Watches here.
func (w *Watch) Poke(p uintptr, v []byte) error { return errNone }

// Close frees w.
func (w *Watch) Close() error { return nil }

// Counts are the write faults served, protections set and ranges registered,
// and the Watches not yet closed.
func Counts() (faults, protects, registers, live uint64) { return 0, 0, 0, 0 }

// Fills are the drops and fills: none here.
func Fills() (drops, fills uint64) { return 0, 0 }

// Source is where a dropped range's bytes are read from.
type Source struct{}

// NewSource is a Source that is never read here.
func NewSource(fn unsafe.Pointer, a0, a1 uintptr) Source { return Source{} }

// Counted is s.
func (s Source) Counted(key uintptr) Source { return s }

// Tally is zero: nothing is filled here.
func Tally(key uintptr, end bool) (calls, bytes int64) { return 0, 0 }

// MemSource is a Source that is never read here.
func MemSource(p uintptr) Source { return Source{} }

// Drop returns an error: there is no userfaultfd here.
func (w *Watch) Drop(src Source, off, lo, hi, n uintptr) error { return errNone }

// Forget does nothing.
func (w *Watch) Forget() {}

// Filled reports nothing filled.
func (w *Watch) Filled() (filled, dropped bool, err error) { return false, false, nil }

// Settle does nothing: nothing is dropped here.
func Settle(p, n uintptr, over bool) error { return nil }

// TurnOff does nothing: Available is false here.
func TurnOff() {}
