package engine

import (
	"fmt"
	"reflect"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/gorgonia"
)

// Memset sets every element of mem to val, whose type is the element type:
// on the device when the memory lives there.
func (e *Engine) Memset(mem tensor.Memory, val any) error {
	f, err := memsetFns.get(reflect.TypeOf(val), "Memset")
	if err != nil {
		return err
	}
	return f(e.h, mem, val)
}

var memsetFns = all(memsetT[float32], memsetT[float64], memsetT[int8], memsetT[int16], memsetT[int32], memsetT[int64], memsetT[uint8], memsetT[uint16], memsetT[uint32], memsetT[uint64])

func memsetT[T array.Elem](h *holdings, mem tensor.Memory, val any) error {
	b := h.find(mem.Uintptr(), mem.MemSize())
	if b == nil {
		return fmt.Errorf("engine: Memset of %#x: %w", mem.Uintptr(), ErrFreed)
	}
	r, err := rootOf[T](h, b, nil)
	if err != nil {
		return err
	}
	return fillRange(h, b, r, mem.Uintptr(), mem.MemSize(), val.(T))
}

// Memclr zeroes mem: on the device when the memory lives there. Memory
// the engine does not hold is left alone (tensor's Memclr cannot fail).
func (e *Engine) Memclr(mem tensor.Memory) {
	b := e.h.find(mem.Uintptr(), mem.MemSize())
	if b == nil {
		return
	}
	e.h.mu.Lock()
	fill0 := b.fill0
	e.h.mu.Unlock()
	if fill0 == nil { // untyped: only ever host memory
		clear(bytesAt(mem.Uintptr(), mem.MemSize()))
		return
	}
	if err := fill0(mem.Uintptr(), mem.MemSize()); err != nil {
		panic(fmt.Errorf("engine: Memclr: %w", err)) // tensor's interface has no error
	}
}

// Memcpy copies src to dst, which must be the same size. Between memory
// of the engine with one element type it is a device copy where the data
// lives; otherwise it goes through host memory, syncing the engine's side.
func (e *Engine) Memcpy(dst, src tensor.Memory) error {
	if dst.MemSize() != src.MemSize() {
		return fmt.Errorf("%w: Memcpy of %d bytes into %d: sizes must match", gorgonia.ErrLayout, src.MemSize(), dst.MemSize())
	}
	db, sb := e.h.find(dst.Uintptr(), dst.MemSize()), e.h.find(src.Uintptr(), src.MemSize())
	if db != nil && sb != nil {
		e.h.mu.Lock()
		dr, sr, cp := db.root, sb.root, db.copyFrom
		e.h.mu.Unlock()
		if dr != nil && sr != nil && dr.Raw().Type() == sr.Raw().Type() {
			return cp(memory{dst.Uintptr(), dst.MemSize()}, memory{src.Uintptr(), src.MemSize()})
		}
	}
	if _, err := e.Accessible(src); err != nil {
		return err
	}
	if _, err := e.Accessible(dst); err != nil {
		return err
	}
	copy(bytesAt(dst.Uintptr(), dst.MemSize()), bytesAt(src.Uintptr(), src.MemSize()))
	return nil
}
