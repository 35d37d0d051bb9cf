package array

import (
	"strings"
	"testing"
)

// TestZeroViewPanicsWithSentinel: every use of a zero ReadView or HostView
// (documented invalid) panics with ErrShape and a message naming the
// fix, not with a nil dereference.
func TestZeroViewPanicsWithSentinel(t *testing.T) {
	var w HostView[float32]
	var r ReadView[uint8]
	for name, f := range map[string]func(){
		"HostView.At":      func() { w.At(0) },
		"HostView.Set":     func() { w.Set(1, 0) },
		"HostView.Fill":    func() { w.Fill(1) },
		"HostView.Data":    func() { w.Data() },
		"HostView.Dims":    func() { w.Dims() },
		"ReadView.At":      func() { r.At() },
		"ReadView.Data":    func() { r.Data() },
		"ReadView.Dims":    func() { r.Dims() },
		"ReadView{nil}.At": func() { ReadView[int32]{}.At(1, 2) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				err, _ := recover().(error)
				mustPanic(t, ErrZeroView, func() { panic(err) })
				if !strings.Contains(err.Error(), "Array.Host") {
					t.Errorf("message %q does not name the fix", err)
				}
			}()
			f()
		})
	}
	if w.Raw() != nil || w.Array() != nil || !w.HostOnly() {
		t.Error("Raw, Array and HostOnly of the zero view")
	}
}

// TestNilHostSource: NewOver and NewIn given no block or allocator return an
// error naming the fix (NewOver dereferenced nil); Like of a nil Array
// panics with ErrShape.
func TestNilHostSource(t *testing.T) {
	if a, err := NewOver[float32](nil, 4); err == nil || a != nil || !strings.Contains(err.Error(), "HostBlock is nil") {
		t.Errorf("NewOver(nil, 4) = %v, %v; want an error naming the fix", a, err)
	}
	if a, err := NewIn[uint16](nil, 2, 3); err == nil || a != nil || !strings.Contains(err.Error(), "HostAllocator is nil") {
		t.Errorf("NewIn(nil, 2, 3) = %v, %v; want an error naming the fix", a, err)
	}
	// Bad extents stay the programmer error every constructor panics with.
	mustPanic(t, ErrShape, func() { NewIn[uint16](nil, -1) })
	mustPanic(t, ErrShape, func() { Like[int8](nil) })
}
