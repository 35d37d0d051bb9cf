package engine

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/gorgonia"
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
// it stale: call Host again.
func Host(d *tensor.Dense) (*tensor.Dense, error) {
	e, ok := d.Engine().(*Engine)
	if !ok {
		return nil, fmt.Errorf("%w: Host of a Dense of engine %T, not *engine.Engine", gorgonia.ErrLayout, d.Engine())
	}
	if _, err := e.Accessible(memory{d.Uintptr(), d.MemSize()}); err != nil {
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
// device operation; it returns mem.
func (e *Engine) Accessible(mem tensor.Memory) (tensor.Memory, error) {
	b := e.h.find(mem.Uintptr(), mem.MemSize())
	if b == nil {
		return mem, nil // not ours: tensor's own memory
	}
	e.h.mu.Lock()
	host := b.host
	e.h.mu.Unlock()
	if host != nil {
		if err := host(); err != nil {
			return nil, fmt.Errorf("engine: copy to host: %w", err)
		}
	}
	return mem, nil
}

// viewOf is Array.
func viewOf[T array.Elem](h *holdings, d *tensor.Dense) (*array.Array[T], error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil *tensor.Dense", gorgonia.ErrLayout)
	}
	if got, want := d.Dtype().Type, reflect.TypeFor[T](); got != want {
		return nil, fmt.Errorf("%w: the Dense holds %v, the operation wants %v", gorgonia.ErrType, got, want)
	}
	if d.IsMasked() {
		return nil, fmt.Errorf("%w: the Dense is masked and an Array has no mask: d.ResetMask() first", gorgonia.ErrLayout)
	}
	dims := gorgonia.Dims(d)
	size := uintptr(unsafe.Sizeof(*new(T)))
	b := h.find(d.Uintptr(), d.MemSize())
	if b == nil {
		if !d.IsNativelyAccessible() && !ours(d) {
			return nil, fmt.Errorf("%w: the Dense's memory belongs to engine %T and is not host memory: copy it to host first", gorgonia.ErrLayout, d.Engine())
		}
		if d.DataSize() == 0 {
			return array.Wrap[T](nil, dims)
		}
		a, err := array.Wrap(unsafe.Slice((*T)(ptr(d.Uintptr())), d.DataSize()), dims)
		if err != nil {
			return nil, fmt.Errorf("%w: Dense shape %v strides %v: %v", gorgonia.ErrLayout, d.Shape(), d.Strides(), err)
		}
		return a, nil
	}
	r, err := rootOf[T](h, b, d)
	if err != nil {
		return nil, err
	}
	off := d.Uintptr() - b.start
	if off%size != 0 {
		return nil, fmt.Errorf("%w: the Dense starts %d bytes into its memory, not at a whole %d-byte element", gorgonia.ErrLayout, off, size)
	}
	v, err := r.View(int(off/size), dims)
	if err != nil {
		return nil, fmt.Errorf("%w: Dense shape %v strides %v as a view of its memory: %v; call Materialize() or Clone() first", gorgonia.ErrLayout, d.Shape(), d.Strides(), err)
	}
	return v, nil
}

// ours reports whether d is a Dense of some engine of this package (one
// made WithBacking: Go memory, so host-accessible).
func ours(d *tensor.Dense) bool {
	_, ok := d.Engine().(*Engine)
	return ok
}

// rangeView is the 1-D view of bytes [p, p+n) of r's memory.
func rangeView[T array.Elem](b *block, r *array.Array[T], p, n uintptr) (*array.Array[T], error) {
	size := uintptr(unsafe.Sizeof(*new(T)))
	if (p-b.start)%size != 0 || n%size != 0 {
		return nil, fmt.Errorf("%w: bytes %d … %d of the memory are not whole %d-byte elements", gorgonia.ErrLayout, p-b.start, p-b.start+n, size)
	}
	return r.View(int((p-b.start)/size), []array.Dim{{Extent: int(n / size), Stride: 1}})
}

// fillRange sets bytes [p, p+n) of b to x: on the device where the data
// lives when the range is a box of the memory's layout, else on the host.
func fillRange[T array.Elem](h *holdings, b *block, r *array.Array[T], p, n uintptr, x T) error {
	if v, err := rangeView(b, r, p, n); err == nil {
		return ops.Fill(v, x)
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

// copyRange copies src to dst, both in the engine with element type T.
func copyRange[T array.Elem](h *holdings, dst, src memory) error {
	db, sb := h.find(dst.p, dst.n), h.find(src.p, src.n)
	dr, err := rootOf[T](h, db, nil)
	if err != nil {
		return err
	}
	sr, err := rootOf[T](h, sb, nil)
	if err != nil {
		return err
	}
	dv, err1 := rangeView(db, dr, dst.p, dst.n)
	sv, err2 := rangeView(sb, sr, src.p, src.n)
	if err1 == nil && err2 == nil {
		return ops.Copy(dv, sv)
	}
	// Not boxes of their layouts: through the host views.
	sh, err := sr.HostReadOnly()
	if err != nil {
		return err
	}
	dh, err := dr.Host()
	if err != nil {
		return err
	}
	size := unsafe.Sizeof(*new(T))
	copy(dh.Data()[(dst.p-db.start)/size:][:dst.n/size], sh.Data()[(src.p-sb.start)/size:][:src.n/size])
	return nil
}
