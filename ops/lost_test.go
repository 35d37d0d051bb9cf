package ops_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// TestLostOutputRewritten: an Array whose values were lost when its
// device closed (array.ErrLost) can be a host op's whole output: each op
// below replaces the lost values and leaves the Array readable, holding
// what the same op writes into a fresh Array. Put writes only some
// elements, so it still fails with ErrLost and the values stay lost.
func TestLostOutputRewritten(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	filled := func(ext ...int) *array.Array[float32] {
		a := array.New[float32](ext...)
		h, err := a.Host()
		must(t, err)
		for i := range h.Data() {
			h.Data()[i] = r.Float32()*2 - 1
		}
		return a
	}
	lost := func(ext ...int) *array.Array[float32] {
		d := sim.NewCompute("closing", 0)
		a := array.New[float32](ext...)
		must(t, ops.On(d, a))
		must(t, ops.Fill(a, 7)) // on the device: its newest values are there
		d.FailNext("CopyOut", errors.New("driver: device lost"))
		must(t, d.Close())
		if _, err := a.HostReadOnly(); !errors.Is(err, array.ErrLost) {
			t.Fatalf("after the failed download: %v, want ErrLost", err)
		}
		return a
	}
	a, b, x := filled(5, 4), filled(3, 5), filled(6, 6, 2, 1) // 4×5, 5×3, (1, 2, 6, 6)
	idx := array.New[int32](2, 2, 2, 1)
	for _, c := range []struct {
		name string
		ext  []int
		op   func(dst *array.Array[float32]) error
	}{
		{"MatMul", []int{3, 4}, func(dst *array.Array[float32]) error { return ops.MatMul(dst, a, b) }},
		{"Im2Col", []int{18, 4, 4, 1}, func(dst *array.Array[float32]) error {
			return ops.Im2Col(dst, x, ops.Conv2D{Kernel: [2]int{3, 3}})
		}},
		{"MaxPool2D", []int{2, 2, 2, 1}, func(dst *array.Array[float32]) error {
			return ops.MaxPool2D(dst, idx, x, ops.Pool2D{Kernel: [2]int{3, 3}, Stride: [2]int{3, 3}})
		}},
		{"CumSum", []int{5, 4}, func(dst *array.Array[float32]) error { return ops.CumSum(dst, a, 0) }},
		{"Softmax", []int{5, 4}, func(dst *array.Array[float32]) error { return ops.Softmax(dst, a, 1) }},
		{"Sort", []int{5, 4}, func(dst *array.Array[float32]) error { return ops.Sort(dst, a, 0) }},
		{"Add", []int{5, 4}, func(dst *array.Array[float32]) error { return ops.Add(dst, a, a) }},
	} {
		want := array.New[float32](c.ext...)
		must(t, c.op(want))
		dst := lost(c.ext...)
		if err := c.op(dst); err != nil {
			t.Errorf("%s into a lost Array: %v", c.name, err)
		} else if got, err := dst.HostReadOnly(); err != nil {
			t.Errorf("%s: reading its output: %v", c.name, err)
		} else if wv, _ := want.HostReadOnly(); !slices.Equal(got.Data(), wv.Data()) {
			t.Errorf("%s into a lost Array: %v, want %v", c.name, got.Data(), wv.Data())
		}
		dst.Close()
		want.Close()
	}
	dst := lost(5, 4)
	at, v := array.FromSlice([]int64{1}, 1), array.FromSlice([]float32{2}, 1)
	if err := ops.Put(dst, at, v); !errors.Is(err, array.ErrLost) {
		t.Errorf("Put into a lost Array: %v, want ErrLost", err)
	}
	if _, err := dst.HostReadOnly(); !errors.Is(err, array.ErrLost) {
		t.Errorf("after Put: %v, want the values still lost", err)
	}
}
