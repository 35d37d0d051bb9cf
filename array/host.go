package array

import (
	"errors"

	"github.com/resident-go/resident/internal/plumb"
)

// ErrZeroView is the sentinel of the panic of any element access or Dims
// through a zero ReadView or HostView, which views no Array: take views
// with Array.Host or HostReadOnly.
var ErrZeroView = errors.New("array: zero host view")

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

// Host returns a writable host view. It copies to host only the parts of
// the Array's elements whose device copy is newer, and marks them host
// dirty so the next device consumer uploads them. Writes through Set and
// Fill after a later upload mark them dirty again; writes through Data do
// not: take a new view after each device use. A read-only view
// (BroadcastTo) has none: an error wrapping ErrReadOnly.
func (a *Array[T]) Host() (HostView[T], error) {
	a.raw.expose()
	if err := a.raw.errWritable(); err != nil {
		return HostView[T]{}, err
	}
	if err := a.syncHost(); err != nil {
		return HostView[T]{}, err
	}
	a.raw.markHostWrite()
	return HostView[T]{ReadView[T]{a}}, nil
}

// HostReadOnly returns a read-only host view; it copies to host only the
// parts whose device copy is newer and leaves the host clean.
func (a *Array[T]) HostReadOnly() (ReadView[T], error) {
	a.raw.expose()
	if err := a.syncHost(); err != nil {
		return ReadView[T]{}, err
	}
	return ReadView[T]{a}, nil
}

func (a *Array[T]) syncHost() error {
	if err := a.raw.errOpen(); err != nil {
		return err
	}
	if a.raw.st.nAway.Load() == 0 {
		return nil
	}
	if err := a.raw.errLost(); err != nil {
		return err
	}
	if !a.raw.DeviceDirty() {
		return nil
	}
	if err := plumb.CheckAutomatic(a.raw.Device(), "host view of a device-dirty "+a.raw.typ.String()+" Array"); err != nil {
		return err
	}
	return a.raw.syncHost()
}

// Raw returns the viewed Array's state (nil for the zero view).
func (v ReadView[T]) Raw() *Raw {
	if v.a == nil {
		return nil
	}
	return &v.a.raw
}

// HostOnly is true: consumers leave a host view's data current.
func (v ReadView[T]) HostOnly() bool { return true }

// Array returns the viewed Array.
func (v ReadView[T]) Array() *Array[T] { return v.a }

// ReadOnly returns the view as a ReadView, for CopyFrom and Equal.
func (v ReadView[T]) ReadOnly() ReadView[T] { return v }

// Dims returns a copy of the viewed Array's dimensions.
func (v ReadView[T]) Dims() []Dim {
	v.checkZero()
	return v.a.raw.Dims()
}

// checkZero panics with ErrZeroView for the zero view, which the doc
// calls invalid, instead of dereferencing its nil Array.
func (v ReadView[T]) checkZero() {
	if v.a == nil {
		panicf(ErrZeroView, "the zero %s view is invalid: take one with Array.Host or HostReadOnly", TypeOf[T]())
	}
}

// check panics, before a read, when the view is the zero one, its root
// was closed, a device wrote any of its elements after the view was taken
// (a stale view), or values of its elements were lost since (lost.go).
func (v ReadView[T]) check() {
	v.checkFresh(true)
}

// checkFresh is check for a read (read true) or a write, which lost
// values do not stop: writing them is how they come back.
func (v ReadView[T]) checkFresh(read bool) {
	v.checkZero()
	r := &v.a.raw
	r.checkOpen()
	if r.st.nAway.Load() == 0 {
		return
	}
	if r.DeviceDirty() {
		panicf(ErrStale, "a device wrote these elements after this host view was taken: call Host or HostReadOnly again")
	}
	if !read {
		return
	}
	if err := r.errLost(); err != nil {
		panic(err)
	}
}

func (v HostView[T]) checkWrite() {
	v.checkFresh(false)
	r := &v.a.raw
	if r.st.hasAlloc.Load() && r.gen != r.st.hostGen.Load() {
		r.markHostWrite() // again: the Array may have been uploaded since
	}
}

// At returns the element at coords, one per dimension.
func (v ReadView[T]) At(coords ...int) T {
	v.check()
	return v.a.data[v.a.raw.index(coords)]
}

// Set stores x at coords, one per dimension.
func (v HostView[T]) Set(x T, coords ...int) {
	v.checkWrite()
	v.a.data[v.a.raw.index(coords)] = x
}

// Data returns the elements from the min corner to the end of the span,
// sharing memory: element (x0, x1, …) is Data()[Σ (xi − Min_i)·Stride_i].
// Do not write through a ReadView's Data.
func (v ReadView[T]) Data() []T {
	v.check()
	r := &v.a.raw
	n := r.spanElems()
	if n == 0 {
		// An empty view's offset may lie past the storage (a crop of an
		// empty root): it addresses nothing.
		return v.a.data[:0:0]
	}
	return v.a.data[r.off : r.off+n : r.off+n]
}

// Data is ReadView.Data for writing: it marks the host dirty.
func (v HostView[T]) Data() []T {
	v.checkWrite()
	return v.ReadView.Data()
}

// Fill sets every element to x: values lost there (ErrLost) are
// replaced, and read again.
func (v HostView[T]) Fill(x T) {
	v.checkWrite()
	r := &v.a.raw
	if v.a.Dense() {
		s := v.a.data[r.off : r.off+r.Len()]
		for i := range s {
			s[i] = x
		}
	} else {
		r.forEachIndex(func(i int) { v.a.data[i] = x })
	}
	r.rewritten()
}

var (
	_ Buffer = ReadView[float32]{}
	_ Buffer = HostView[float32]{}
)
