package array

import "github.com/resident-go/resident/device"

// ReadView is the read-only host view of an Array: the way to read its
// elements. It shares memory with the Array. Obtaining one (HostReadOnly)
// is the one automatic copy to host; as a pipeline argument it is
// host-only, so the pipeline leaves its host data current.
//
// A view is stale while a device holds newer data than the host (after a
// later device write, before the next Host or HostReadOnly call); using a
// stale view panics with ErrStale. The zero ReadView is invalid.
type ReadView[T Elem] struct{ a *Array[T] }

// HostView is the writable host view of an Array: a ReadView plus writes,
// sharing memory with the Array. Both are one pointer wide, so passing one
// as an array.Buffer allocates nothing.
type HostView[T Elem] struct{ ReadView[T] }

// Host returns a writable host view. It copies to host only when the device
// copy is newer, and marks the host dirty so the next device consumer
// uploads. Writes through Set and Fill after a later upload mark it dirty
// again; writes through Data do not: take a new view after each device use.
func (a *Array[T]) Host() (HostView[T], error) {
	if err := a.syncHost(true); err != nil {
		return HostView[T]{}, err
	}
	a.markHostWrite()
	return HostView[T]{ReadView[T]{a}}, nil
}

// HostReadOnly returns a read-only host view; it copies to host only when
// the device copy is newer and leaves the dirty bits clean.
func (a *Array[T]) HostReadOnly() (ReadView[T], error) {
	if err := a.syncHost(false); err != nil {
		return ReadView[T]{}, err
	}
	return ReadView[T]{a}, nil
}

func (a *Array[T]) syncHost(write bool) error {
	a.checkOpen()
	if !a.NeedsCopyToHost() {
		a.hostGen = a.fam.devGen.Load()
		return nil
	}
	if err := device.CheckAutomatic("host view of a device-dirty " + a.typ.String() + " Array"); err != nil {
		return err
	}
	if write {
		return a.PrepareHostWrite()
	}
	return a.CopyToHost()
}

// Raw returns the viewed Array's state.
func (v ReadView[T]) Raw() *Raw { return &v.a.rawState }

// HostOnly is true: consumers leave a host view's data current.
func (v ReadView[T]) HostOnly() bool { return true }

// Array returns the viewed Array.
func (v ReadView[T]) Array() *Array[T] { return v.a }

// ReadOnly returns the view as a ReadView, for CopyFrom and Equal.
func (v ReadView[T]) ReadOnly() ReadView[T] { return v }

func (v ReadView[T]) check() {
	v.a.checkOpen()
	if v.a.deviceDirty || (v.a.fam.dirty[deviceSide].Load() != 0 && v.a.hostGen != v.a.fam.devGen.Load()) {
		panicf(ErrStale, "a device wrote the Array (or a view of its memory) after this view was taken: call Host again")
	}
}

func (v HostView[T]) checkWrite() {
	v.check()
	v.a.markHostWrite() // again: the Array may have been uploaded since
}

// markHostWrite sets the host bit of an Array that has a device copy: the
// host is about to hold newer data than the device.
func (r *Raw) markHostWrite() {
	if !r.hostDirty && r.h != nil && r.h.alloc != nil {
		r.setDirty(hostSide, true)
	}
}

// At returns the element at coords, one per dimension.
func (v ReadView[T]) At(coords ...int) T {
	v.check()
	return v.a.data[v.a.index(coords)]
}

// Set stores x at coords, one per dimension.
func (v HostView[T]) Set(x T, coords ...int) {
	v.checkWrite()
	v.a.data[v.a.index(coords)] = x
}

// Data returns the elements from the min corner to the end of the span,
// sharing memory: element (x0, x1, …) is Data()[Σ (xi − Min_i)·Stride_i].
// Do not write through a ReadView's Data.
func (v ReadView[T]) Data() []T {
	v.check()
	n := v.a.SpanElems()
	return v.a.data[v.a.off : v.a.off+n : v.a.off+n]
}

// Data is ReadView.Data for writing: it marks the host dirty.
func (v HostView[T]) Data() []T {
	v.checkWrite()
	return v.ReadView.Data()
}

// Fill sets every element to x.
func (v HostView[T]) Fill(x T) {
	v.checkWrite()
	if v.a.Dense() {
		s := v.a.data[v.a.off : v.a.off+v.a.Len()]
		for i := range s {
			s[i] = x
		}
		return
	}
	v.a.forEachIndex(func(i int) { v.a.data[i] = x })
}

var (
	_ Buffer = ReadView[float32]{}
	_ Buffer = HostView[float32]{}
)

// Dims returns a copy of the viewed Array's dimensions.
func (v ReadView[T]) Dims() []Dim { return v.a.Dims() }
