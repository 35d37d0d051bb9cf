package engine

import (
	"fmt"
	"math"
	"reflect"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// Memset sets every element of mem to val, converted to mem's element
// type (a Dense's Dtype; for bare memory, the type its allocation holds,
// else val's): on the device when the memory lives there. A value the
// element type cannot hold (300 for int8, 2.5 or NaN for an integer type,
// 1e300 for float32, a non-number) is an error wrapping array.ErrType.
// For a Dense view only the view's elements are set.
func (e *Engine) Memset(mem tensor.Memory, val any) error {
	defer e.h.leave(e.h.enter())
	t := reflect.TypeOf(val)
	if d, ok := mem.(*tensor.Dense); ok {
		t = d.Dtype().Type
	} else {
		b, err := e.h.lookup(mem.Uintptr(), mem.MemSize())
		if err != nil {
			return err
		}
		if b == nil {
			return fmt.Errorf("engine: Memset of %#x: memory this engine does not hold: %w", mem.Uintptr(), ErrFreed)
		}
		e.h.mu.Lock()
		if b.elem != nil {
			t = b.elem
		}
		e.h.mu.Unlock()
	}
	f, err := memsetFns.get(t, "Memset")
	if err != nil {
		return err
	}
	return f(e.h, mem, val)
}

var memsetFns = all(memsetT[float32], memsetT[float64], memsetT[int8], memsetT[int16], memsetT[int32], memsetT[int64], memsetT[uint8], memsetT[uint16], memsetT[uint32], memsetT[uint64])

func memsetT[T array.Elem](h *holdings, mem tensor.Memory, val any) error {
	x, err := convert[T](val)
	if err != nil {
		return fmt.Errorf("engine: Memset: %w", err)
	}
	if d, ok := mem.(*tensor.Dense); ok {
		v, err := outputOf[T](h, d)
		if err != nil {
			return err
		}
		if err := fill(v, x); err != nil {
			return err
		}
		h.armDense(d)
		return nil
	}
	b, err := h.lookup(mem.Uintptr(), mem.MemSize())
	if err != nil {
		return err
	}
	if b == nil {
		return fmt.Errorf("engine: Memset of %#x: memory this engine does not hold: %w", mem.Uintptr(), ErrFreed)
	}
	r, err := rootOf[T](h, b, nil, mem.Uintptr() == b.start && mem.MemSize() == b.size)
	if err != nil {
		return err
	}
	return fillRange(h, b, r, mem.Uintptr(), mem.MemSize(), x)
}

// convert returns val as a T when T holds its value: integers in range,
// integral floats for integer types, any float (NaN and ±Inf included) or
// integer for float types as long as a finite value stays finite.
func convert[T array.Elem](val any) (T, error) {
	var zero T
	want := reflect.TypeFor[T]()
	v := reflect.ValueOf(val)
	if !v.IsValid() || !number(v.Kind()) {
		return zero, fmt.Errorf("%w: value %v (%T) for %v elements: pass a number", array.ErrType, val, val, want)
	}
	c := v.Convert(want)
	ok := true
	switch {
	case float(want.Kind()):
		if float(v.Kind()) {
			f := v.Float()
			ok = math.IsNaN(f) || math.IsInf(f, 0) || !math.IsInf(c.Float(), 0)
		}
	case float(v.Kind()):
		f := v.Float()
		ok = f == math.Trunc(f) && c.Convert(v.Type()).Float() == f && math.Abs(f) < 1<<64
	default:
		ok = c.Convert(v.Type()).Equal(v)
	}
	if !ok {
		return zero, fmt.Errorf("%w: value %v (%T) does not fit %v elements: pass a value the element type holds", array.ErrType, val, val, want)
	}
	return c.Interface().(T), nil
}

func number(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64 || float(k)
}

func float(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

// Memclr zeroes mem: on the device when the memory lives there. Go memory
// is cleared on the host. tensor's Memclr cannot fail, so memory that was
// freed, or of a closed engine, panics with an error wrapping ErrFreed or
// device.ErrClosed rather than being left alone.
func (e *Engine) Memclr(mem tensor.Memory) {
	defer e.h.leave(e.h.enter())
	if d, ok := mem.(*tensor.Dense); ok {
		if f, err := memsetFns.get(d.Dtype().Type, "Memclr"); err == nil {
			if err := f(e.h, d, 0); err != nil {
				panic(fmt.Errorf("engine: Memclr: %w", err))
			}
			return
		}
	}
	b, err := e.h.lookup(mem.Uintptr(), mem.MemSize())
	if err != nil {
		panic(fmt.Errorf("engine: Memclr: %w", err))
	}
	if b == nil {
		clear(bytesAt(mem.Uintptr(), mem.MemSize())) // Go memory
		return
	}
	e.h.mu.Lock()
	fill0 := b.fill0
	e.h.mu.Unlock()
	if fill0 == nil { // untyped: only ever host memory
		e.h.clear(bytesAt(mem.Uintptr(), mem.MemSize()))
		return
	}
	if err := fill0(mem.Uintptr(), mem.MemSize()); err != nil {
		panic(fmt.Errorf("engine: Memclr: %w", err)) // tensor's interface has no error
	}
}

// Memcpy copies src to dst, which must be the same size. Between memory
// of engines on one device with one element type it is a device copy
// where the data lives; otherwise it goes through host memory, syncing
// the engines' sides (counted copies). A Dense of another engine is
// synced by that engine; freed memory wraps ErrFreed, a closed engine's
// device.ErrClosed.
func (e *Engine) Memcpy(dst, src tensor.Memory) error {
	defer e.h.leave(e.h.enter())
	if dst.MemSize() != src.MemSize() {
		return fmt.Errorf("%w: Memcpy of %d bytes into %d: sizes must match", array.ErrLayout, src.MemSize(), dst.MemSize())
	}
	dh, db, err := e.h.locate(dst)
	if err != nil {
		return err
	}
	sh, sb, err := e.h.locate(src)
	if err != nil {
		return err
	}
	for _, x := range []struct {
		h *holdings
		b *block
	}{{dh, db}, {sh, sb}} {
		if x.b != nil {
			if err := x.h.hostWrites(x.b); err != nil {
				return err
			}
		}
	}
	if db != nil && sb != nil {
		sh.mu.Lock()
		sr, selem := sb.root, sb.elem
		sh.mu.Unlock()
		dh.mu.Lock()
		untyped := db.root == nil
		dh.mu.Unlock()
		sh.mu.Lock()
		srcNewer := sb.deviceDirty != nil && sb.deviceDirty()
		sh.mu.Unlock()
		// tensor's Clone (and SafeT, Transpose's first step): a copy of
		// data the device holds current takes the source's type and is
		// made on the device. Host writes that follow (gorgonia zeroes a
		// Clone with Dense.Zero, which the engine never sees) are seen
		// through the sentinels, which only float memory carries: other
		// memory current on the host is copied there and stays untyped,
		// so such writes reach the device with its first use.
		if untyped && sr != nil && (srcNewer || onDevice(sr.Raw())) {
			f, err := typeFns.get(selem, "Memcpy")
			if err != nil {
				return err
			}
			if err := f(dh, db, dst.Uintptr() == db.start && dst.MemSize() == db.size); err != nil {
				return err
			}
		}
		dh.mu.Lock()
		dr, cp := db.root, db.copyFrom
		dh.mu.Unlock()
		if dr != nil && sr != nil && dr.Raw().Type() == sr.Raw().Type() {
			if err := cp(memory{dst.Uintptr(), dst.MemSize()}, sh, sb, memory{src.Uintptr(), src.MemSize()}); err != nil {
				return err
			}
			dh.mu.Lock()
			db.arm() // gorgonia zeroes a Clone with Dense.Zero next
			dh.mu.Unlock()
			return nil
		}
	}
	if err := e.readable(src); err != nil {
		return err
	}
	// Untyped memory has no device copy: its host bytes are its values,
	// written here as through Data before a first use (uploaded then, an
	// explicit copy). Other memory is made current on the host first.
	if db == nil || !dh.untyped(db) {
		if _, err := e.Accessible(dst); err != nil {
			return err
		}
	}
	copy(bytesAt(dst.Uintptr(), dst.MemSize()), bytesAt(src.Uintptr(), src.MemSize()))
	return nil
}

// untyped reports whether b has no Array yet (no device copy).
func (h *holdings) untyped(b *block) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return b.root == nil && b.parked == nil
}

// onDevice reports whether r is float memory whose device copy is
// current, so a copy of it is made there.
func onDevice(r *array.Raw) bool {
	t := r.Type()
	return t.Code == array.Float && (t.Bits == 32 || t.Bits == 64) && !r.HostOnly() && r.Device() != nil && !r.HostDirty()
}

// fill sets v to x: on the device when v's memory has an allocation there.
// Host writes to v's elements (through Host) are about to be overwritten,
// so they are dropped rather than uploaded: package ops would otherwise
// fill on the host, where the newest copy is.
func fill[T array.Elem](v *array.Array[T], x T) error {
	if !v.HostOnly() && v.Device() != nil && v.HostDirty() {
		v.SetHostDirty(false)
	}
	return ops.Fill(v, x)
}

// typeFns type a block (rootOf) with the element type of the table key.
var typeFns = all(typeT[float32], typeT[float64], typeT[int8], typeT[int16], typeT[int32], typeT[int64], typeT[uint8], typeT[uint16], typeT[uint32], typeT[uint64])

func typeT[T array.Elem](h *holdings, b *block, overwrite bool) error {
	_, err := rootOf[T](h, b, nil, overwrite)
	return err
}

// readable copies the device-newer data of mem's allocation home for
// reading: unlike Accessible, the device copy stays current.
func (e *Engine) readable(mem tensor.Memory) error {
	return e.bringHome(mem, func(b *block) func() error { return b.hostRead })
}

// homeNow copies the device-newer data of mem's allocation home at once,
// explicitly (allowed under the transfer guard, counted), as a reduction
// to a scalar does: for results tensor and gorgonia read from host memory.
func (e *Engine) homeNow(mem tensor.Memory) error {
	return e.bringHome(mem, func(b *block) func() error { return b.home })
}

// bringHome runs the copy home that how picks from mem's block (read
// under its owner's lock), after taking in host writes behind its back.
func (e *Engine) bringHome(mem tensor.Memory, how func(*block) func() error) error {
	owner, b, err := e.h.locate(mem)
	if err != nil || b == nil {
		return err
	}
	if err := owner.hostWrites(b); err != nil {
		return err
	}
	owner.mu.Lock()
	copyHome := how(b)
	owner.mu.Unlock()
	if copyHome != nil {
		if err := copyHome(); err != nil {
			return fmt.Errorf("engine: copy to host: %w", err)
		}
	}
	return nil
}
