package array_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/plumb"
)

// each calls fn with the coordinates of every element of dims and the
// element's offset from the min corner, dimension 0 fastest.
func each(dims []array.Dim, fn func(c []int, off int)) {
	c := make([]int, len(dims))
	for i, d := range dims {
		if d.Extent == 0 {
			return
		}
		c[i] = d.Min
	}
	for {
		off := 0
		for i, d := range dims {
			off += (c[i] - d.Min) * d.Stride
		}
		fn(c, off)
		k := 0
		for ; k < len(dims); k++ {
			if c[k]++; c[k] <= dims[k].Max() {
				break
			}
			c[k] = dims[k].Min
		}
		if k == len(dims) {
			return
		}
	}
}

// deviceWrite stands in for a device pipeline writing v: val(c) into every
// element of v's device copy on d, then recorded as the pipeline bridge
// records it. It writes nothing when fail is set, like a failed call.
func deviceWrite(t testing.TB, d *sim.Device, v *array.Array[uint16], val func(c []int) uint16, fail bool) error {
	t.Helper()
	r := v.Raw()
	if err := plumb.Array.Alloc(r, d); err != nil {
		return err
	}
	if fail {
		return errors.New("injected failure")
	}
	a, off := r.Allocation()
	mem := a.(*sim.Alloc).Mem()
	each(v.Dims(), func(c []int, o int) {
		binary.LittleEndian.PutUint16(mem[off+2*o:], val(c))
	})
	plumb.Array.Wrote(r, plumb.Device)
	return nil
}

// deviceRead stands in for a device pipeline reading v: it makes v current
// on d and returns its elements as the device holds them.
func deviceRead(t testing.TB, d device.Device, v *array.Array[uint16]) ([]uint16, error) {
	t.Helper()
	r := v.Raw()
	if err := plumb.Array.SyncDevice(r, d); err != nil {
		return nil, err
	}
	var out []uint16
	if v.Len() == 0 {
		return out, nil
	}
	a, off := r.Allocation()
	mem := a.(*sim.Alloc).Mem()
	each(v.Dims(), func(c []int, o int) {
		out = append(out, binary.LittleEndian.Uint16(mem[off+2*o:]))
	})
	return out, nil
}

// mustPanicWith runs f and fails unless it panics with an error wrapping
// want.
func mustPanicWith(t *testing.T, want error, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		err, _ := recover().(error)
		if !errors.Is(err, want) {
			t.Fatalf("got panic %v, want one wrapping %v", err, want)
		}
	}()
	f()
}
