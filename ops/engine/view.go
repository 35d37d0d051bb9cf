package engine

import (
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/gorgonia"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// Array returns the device-aware Array view of d's memory in e: d's shape
// and strides reversed, as package gorgonia maps them, sharing host and
// device memory. Pass it to Halide pipelines and ops; the Dense sees their
// writes. Memory e does not hold is wrapped host-only, without a copy.
func Array[T array.Elem](e *Engine, d *tensor.Dense) (*array.Array[T], error) {
	return viewOf[T](e.h, d)
}

// Host copies d's device-newer data home and returns an ordinary Dense
// (tensor's standard engine) over the same memory: the host-only view.
// It reads the latest values, and what is written through it is uploaded
// before the next device operation on d. A later device operation makes
// it stale: call Host again. After Free it returns an error wrapping
// ErrFreed, after the engine's Close one wrapping device.ErrClosed.
func Host(d *tensor.Dense) (*tensor.Dense, error) {
	e, ok := d.Engine().(*Engine)
	if !ok {
		return nil, fmt.Errorf("%w: Host of a Dense of engine %T, not *engine.Engine", array.ErrLayout, d.Engine())
	}
	if _, err := e.Accessible(d); err != nil {
		return nil, err
	}
	back := reflect.SliceAt(d.Dtype().Type, ptr(d.Uintptr()), max(d.DataSize(), 1))
	if d.IsScalar() {
		return tensor.New(tensor.WithBacking(back.Interface()), tensor.WithShape()), nil
	}
	h := tensor.New(tensor.WithBacking(back.Interface()), tensor.WithShape(d.Shape().Clone()...))
	*h.Info() = tensor.MakeAP(d.Shape().Clone(), slices.Clone(d.Strides()), d.DataOrder(), 0)
	return h, nil
}

// Accessible copies the device-newer data of mem's allocation home and
// marks it host-written, so Go code may read and write mem until the next
// device operation; it returns mem. A Dense of another engine is synced
// by that engine. Memory given back (Free) is an error wrapping ErrFreed.
func (e *Engine) Accessible(mem tensor.Memory) (tensor.Memory, error) {
	defer e.h.leave(e.h.enter())
	owner, b, err := e.h.locate(mem)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return mem, nil // Go memory: tensor's own
	}
	if err := owner.hostWrites(b); err != nil {
		return nil, err
	}
	owner.mu.Lock()
	host := b.host
	b.hostWritten = b.hostWritten || host == nil
	owner.mu.Unlock()
	if host != nil {
		if err := host(); err != nil {
			return nil, fmt.Errorf("engine: copy to host: %w", err)
		}
	}
	return mem, nil
}

// locate finds mem: a block of h, or, for a Dense of another engine of
// this package, a block of that engine's holdings (owner); b is nil for Go
// memory. Memory an engine gave back is an error wrapping ErrFreed, a
// closed engine's one wrapping device.ErrClosed.
func (h *holdings) locate(mem tensor.Memory) (owner *holdings, b *block, err error) {
	if h.isClosed() {
		return nil, nil, errClosed(fmt.Sprintf("use of the memory at %#x", mem.Uintptr()))
	}
	defer func() {
		if b != nil && err == nil {
			owner.hold(b, mem)
			if owner != h {
				h.noteForeign(owner)
			}
		}
	}()
	d, _ := mem.(*tensor.Dense)
	if d == nil { // bare memory: this engine's, another's, or Go memory
		if b = h.find(mem.Uintptr(), mem.MemSize()); b != nil {
			return h, b, nil
		}
		owner, b = h.holder(mem.Uintptr(), mem.MemSize())
		return owner, b, nil
	}
	oe, ok := d.Engine().(*Engine)
	if !ok {
		if b = h.find(d.Uintptr(), d.MemSize()); b != nil {
			h.used(b, d)
			return h, b, nil
		}
		if !d.IsNativelyAccessible() {
			return nil, nil, fmt.Errorf("%w: the Dense's memory belongs to engine %T and is not host memory: copy it to host first", array.ErrLayout, d.Engine())
		}
		return nil, nil, nil
	}
	// The Dense's own engine decides: another engine may since have been
	// given the address of its freed or closed memory.
	if oe.h.wasFreed(d) {
		return nil, nil, freedErr(mem)
	}
	if b, err = oe.h.lookup(d.Uintptr(), d.MemSize()); err != nil {
		if oe.h != h {
			err = fmt.Errorf("engine: a Dense of another engine: %w", err)
		}
		return nil, nil, err
	}
	if b != nil {
		oe.h.used(b, d) // adopted memory lives while a Dense over it does
		return oe.h, b, nil
	}
	// An engine's memory (tensor marks it ManuallyManaged) that its engine
	// no longer holds was freed; a Dense made WithBacking is Go memory,
	// adopted when given this engine (gorgonia's registers).
	if d.IsManuallyManaged() {
		return nil, nil, freedErr(mem)
	}
	if oe.h == h {
		if b, err = h.adopt(d); err != nil || b != nil {
			return h, b, err
		}
	}
	return nil, nil, nil
}

func freedErr(mem tensor.Memory) error {
	return fmt.Errorf("engine: the memory at %#x (%d bytes) was freed: %w; use a Dense only before its Free (or FromMemory only over memory an engine's Alloc returned)", mem.Uintptr(), mem.MemSize(), ErrFreed)
}

// viewOf is Array. An operand of another engine on the same device is
// its device-aware view (the op runs where the data lives); one on another
// device is synced home (a counted copy, refused under the guard) and
// wrapped host-only, so the op runs on the host and reads the latest
// values.
func viewOf[T array.Elem](h *holdings, d *tensor.Dense) (*array.Array[T], error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil *tensor.Dense", array.ErrLayout)
	}
	return viewDims[T](h, d, gorgonia.Dims(d), false)
}

// outputOf is viewOf for an op's destination, every element of which the
// op writes: memory first typed here is not scanned, filled or uploaded
// (see rootOf).
func outputOf[T array.Elem](h *holdings, d *tensor.Dense) (*array.Array[T], error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil *tensor.Dense", array.ErrLayout)
	}
	return viewDims[T](h, d, gorgonia.Dims(d), true)
}

// viewDims is viewOf with the layout dims in place of d's own: d's memory
// from d's first element on; overwrite as for outputOf.
func viewDims[T array.Elem](h *holdings, d *tensor.Dense, dims []array.Dim, overwrite bool) (*array.Array[T], error) {
	if got, want := d.Dtype().Type, reflect.TypeFor[T](); got != want && alias(got) != want {
		return nil, fmt.Errorf("%w: the Dense holds %v, the operation wants %v", array.ErrType, got, want)
	}
	if d.IsMasked() {
		return nil, fmt.Errorf("%w: the Dense is masked and an Array has no mask: d.ResetMask() first", array.ErrLayout)
	}
	size := uintptr(unsafe.Sizeof(*new(T)))
	owner, b, err := h.locate(d)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return wrapHost[T](d, dims)
	}
	r, err := rootOf[T](owner, b, d, overwrite)
	if err != nil {
		return nil, err
	}
	if err := owner.hostWritesFor(b, overwrite); err != nil {
		return nil, err
	}
	if overwrite {
		// The op makes the device copy newer: arm again after it (or at
		// the next use), never trusting sentinels a sync home overwrote.
		owner.mu.Lock()
		b.armed = [2]bool{}
		owner.mu.Unlock()
	}
	off := d.Uintptr() - b.start
	if off%size != 0 {
		return nil, fmt.Errorf("%w: the Dense starts %d bytes into its memory, not at a whole %d-byte element", array.ErrLayout, off, size)
	}
	v, err := r.View(int(off/size), dims)
	if err != nil {
		return nil, fmt.Errorf("%w: Dense shape %v strides %v as a view of its memory: %v; call Materialize() or Clone() first", array.ErrLayout, d.Shape(), d.Strides(), err)
	}
	if owner != h && owner.dev != h.dev {
		if _, err := v.Host(); err != nil {
			return nil, fmt.Errorf("engine: a Dense of an engine on another device, copied to host: %w", err)
		}
		return wrapHost[T](d, dims)
	}
	return v, nil
}

// input is viewOf for an operand an op reads, placed on the device: see
// place.
func input[T array.Elem](h *holdings, d *tensor.Dense) (*array.Array[T], error) {
	v, err := viewOf[T](h, d)
	if err != nil {
		return nil, err
	}
	return v, place(h, v)
}

// place uploads v's host-newer elements (written through Host or
// Accessible since the last device operation) to the engine's device, so
// the op runs there rather than on the host (package ops' rule would run
// it on the host, where the newest copy is). The upload is counted in the
// device's Stats and refused under the transfer guard. Host-only views
// (Go memory, or a Dense synced home from another device) stay as they
// are.
func place[T array.Elem](h *holdings, v *array.Array[T]) error {
	if v.HostOnly() || v.Len() == 0 || v.Device() != nil && !v.HostDirty() {
		return nil
	}
	if guard.OnDevice(h.dev) {
		return fmt.Errorf("engine: an operand written on the host (through Host or Accessible) needs an upload before the device op: %w; upload it before turning the guard on (ops.On(e.Device(), a), a from engine.Array)", device.ErrTransferGuard)
	}
	if b := h.find(uintptr(v.Raw().HostPtr()), 1); b != nil {
		h.snapUpload(b) // while a Capture runs
	}
	if err := ops.On(h.dev, v); err != nil {
		return fmt.Errorf("engine: uploading an operand written on the host: %w", err)
	}
	return nil
}

// wrapHost is the host-only Array over d's host memory, without a copy.
func wrapHost[T array.Elem](d *tensor.Dense, dims []array.Dim) (*array.Array[T], error) {
	if d.DataSize() == 0 {
		return array.Wrap[T](nil, dims)
	}
	a, err := array.Wrap(unsafe.Slice((*T)(ptr(d.Uintptr())), d.DataSize()), dims)
	if err != nil {
		return nil, fmt.Errorf("%w: Dense shape %v strides %v: %v", array.ErrLayout, d.Shape(), d.Strides(), err)
	}
	return a, nil
}

// rangeView is the 1-D view of bytes [p, p+n) of r's memory.
func rangeView[T array.Elem](b *block, r *array.Array[T], p, n uintptr) (*array.Array[T], error) {
	size := uintptr(unsafe.Sizeof(*new(T)))
	if (p-b.start)%size != 0 || n%size != 0 {
		return nil, fmt.Errorf("%w: bytes %d … %d of the memory are not whole %d-byte elements", array.ErrLayout, p-b.start, p-b.start+n, size)
	}
	return r.View(int((p-b.start)/size), []array.Dim{{Extent: int(n / size), Stride: 1}})
}

// fillRange sets bytes [p, p+n) of b to x: on the device where the data
// lives when the range is a box of the memory's layout, else on the host.
func fillRange[T array.Elem](h *holdings, b *block, r *array.Array[T], p, n uintptr, x T) error {
	if v, err := rangeView(b, r, p, n); err == nil {
		return fill(v, x)
	}
	hv, err := r.Host()
	if err != nil {
		return err
	}
	data := hv.Data()
	off := int((p - b.start) / unsafe.Sizeof(x))
	for i := range int(n / unsafe.Sizeof(x)) {
		data[off+i] = x
	}
	return nil
}

// copyRange copies src (bytes of sb, held by sh) to dst (of db, held by
// dh), both with element type T.
func copyRange[T array.Elem](dh *holdings, db *block, dst memory, sh *holdings, sb *block, src memory) error {
	sr, err := rootOf[T](sh, sb, nil, false)
	if err != nil {
		return err
	}
	dr, err := rootOf[T](dh, db, nil, dst.p == db.start && dst.n == db.size)
	if err != nil {
		return err
	}
	dv, err1 := rangeView(db, dr, dst.p, dst.n)
	sv, err2 := rangeView(sb, sr, src.p, src.n)
	if err1 == nil && err2 == nil && dh.dev == sh.dev {
		return ops.Copy(dv, sv)
	}
	// Not boxes of their layouts, or on two devices: through the host
	// views (a counted copy, never a silent copy between devices).
	shv, err := sr.HostReadOnly()
	if err != nil {
		return err
	}
	dhv, err := dr.Host()
	if err != nil {
		return err
	}
	size := unsafe.Sizeof(*new(T))
	copy(dhv.Data()[(dst.p-db.start)/size:][:dst.n/size], shv.Data()[(src.p-sb.start)/size:][:src.n/size])
	return nil
}

// alias is the Array element type that holds tensor's bool and int
// elements bit for bit (uint8 holding 0 or 1; int64 where int is 64
// bits), nil for other types: comparison masks and argument indices live
// in the engine's memory as those.
func alias(t reflect.Type) reflect.Type {
	switch {
	case t == reflect.TypeFor[bool]():
		return reflect.TypeFor[uint8]()
	case t == reflect.TypeFor[int]() && strconv.IntSize == 64:
		return reflect.TypeFor[int64]()
	}
	return nil
}
