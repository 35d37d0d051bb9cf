package ops_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops"
)

// TestLostOutputRewritten: an Array whose values were lost when its
// device closed (array.ErrLost) can be a host op's whole output: each op
// below replaces the lost values of its dst (and MaxPool2D's idx) and
// leaves it readable, holding what the same op writes into a fresh Array,
// with no device (the op ran on the host). Each dst is a drawn crop of a
// lost root up to two wider along a drawn dimension: the rest of the root
// stays lost. Put writes only some elements, so it still fails with
// ErrLost and the values stay lost.
func TestLostOutputRewritten(t *testing.T) {
	r := draw.Rand(t)
	filled := func(ext ...int) *array.Array[float32] {
		a := array.New[float32](ext...)
		h, err := a.Host()
		must(t, err)
		for i := range h.Data() {
			h.Data()[i] = r.Float32()*2 - 1
		}
		return a
	}
	a, b, x := filled(5, 4), filled(3, 5), filled(6, 6, 2, 1) // 4×5, 5×3, (1, 2, 6, 6)
	pool := ops.Pool2D{Kernel: [2]int{3, 3}, Stride: [2]int{3, 3}}
	for _, c := range []struct {
		name string
		ext  []int
		op   func(dst *array.Array[float32], idx *array.Array[int32]) error
	}{
		{"MatMul", []int{3, 4}, func(dst *array.Array[float32], _ *array.Array[int32]) error { return ops.MatMul(dst, a, b) }},
		{"Im2Col", []int{18, 4, 4, 1}, func(dst *array.Array[float32], _ *array.Array[int32]) error {
			return ops.Im2Col(dst, x, ops.Conv2D{Kernel: [2]int{3, 3}})
		}},
		{"MaxPool2D", []int{2, 2, 2, 1}, func(dst *array.Array[float32], idx *array.Array[int32]) error {
			return ops.MaxPool2D(dst, idx, x, pool)
		}},
		{"CumSum", []int{5, 4}, func(dst *array.Array[float32], _ *array.Array[int32]) error { return ops.CumSum(dst, a, -1) }},
		{"Softmax", []int{5, 4}, func(dst *array.Array[float32], _ *array.Array[int32]) error { return ops.Softmax(dst, a, -2) }},
		{"Sort", []int{5, 4}, func(dst *array.Array[float32], _ *array.Array[int32]) error { return ops.Sort(dst, a, -1) }},
		{"Add", []int{5, 4}, func(dst *array.Array[float32], _ *array.Array[int32]) error { return ops.Binary(dst, a, a, ops.OpAdd) }},
	} {
		want, wantIdx := array.New[float32](c.ext...), array.New[int32](2, 2, 2, 1)
		must(t, c.op(want, wantIdx))
		root, dst := lostView[float32](t, r, c.ext)
		idxRoot, idx := lostView[int32](t, r, []int{2, 2, 2, 1}) // MaxPool2D's
		if err := c.op(dst, idx); err != nil {
			t.Errorf("%s into a lost %v: %v", c.name, dst, err)
		} else {
			lostWritten(t, c.name+"'s dst", root, dst, want)
			if c.name == "MaxPool2D" {
				lostWritten(t, "its idx", idxRoot, idx, wantIdx)
			}
		}
		for _, x := range []interface{ Close() error }{root, idxRoot, want, wantIdx} {
			x.Close()
		}
	}
	root, dst := lostView[float32](t, r, []int{5, 4})
	defer root.Close()
	at, v := array.FromSlice([]int64{1}, 1), array.FromSlice([]float32{2}, 1)
	if err := ops.Put(dst, at, v); !errors.Is(err, array.ErrLost) {
		t.Errorf("Put into a lost Array: %v, want ErrLost", err)
	}
	if _, err := dst.HostReadOnly(); !errors.Is(err, array.ErrLost) {
		t.Errorf("after Put: %v, want the values still lost", err)
	}
}

// lostView returns a view of extents ext over a root whose values were
// all lost when its device closed: the root is up to two wider along a
// drawn dimension, and the view a drawn crop of it there.
func lostView[T array.Elem](t *testing.T, r *rand.Rand, ext []int) (root, v *array.Array[T]) {
	t.Helper()
	k, extra := r.IntN(len(ext)), r.IntN(3)
	rext := slices.Clone(ext)
	rext[k] += extra
	d := sim.NewCompute("closing", 0)
	root = array.New[T](rext...)
	must(t, ops.On(d, root))
	must(t, ops.Fill(root, 7)) // on the device: its newest values are there
	d.FailNext("CopyOut", errors.New("driver: device lost"))
	must(t, d.Close())
	if _, err := root.HostReadOnly(); !errors.Is(err, array.ErrLost) {
		t.Fatalf("after the failed download: %v, want ErrLost", err)
	}
	return root, root.Crop(k, r.IntN(extra+1), ext[k])
}

// lostWritten checks v, a lost view an op wrote: on the host, holding
// want's values; the rest of root, if any, still lost.
func lostWritten[T array.Elem](t *testing.T, what string, root, v, want *array.Array[T]) {
	t.Helper()
	if v.Device() != nil || root.Device() != nil {
		t.Errorf("%s: on %v after its device closed, want the host", what, v.Device())
	}
	got, err := v.HostReadOnly()
	if err != nil {
		t.Errorf("%s: reading it: %v", what, err)
		return
	}
	if wv, _ := want.HostReadOnly(); !slices.Equal(slices.Collect(got.Values()), slices.Collect(wv.Values())) {
		t.Errorf("%s: %v, want %v", what, slices.Collect(got.Values()), slices.Collect(wv.Values()))
	}
	if _, err := root.HostReadOnly(); (root.Len() > v.Len()) != errors.Is(err, array.ErrLost) {
		t.Errorf("%s: its root (%d elements, %d written) reads %v", what, root.Len(), v.Len(), err)
	}
}
