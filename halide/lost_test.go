package halide_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops"
)

// lostOn returns a 2-D uint8 Array whose values were lost when its device
// closed: made newest on a compute sim device by a Fill there, then the
// device's copy home at Close fails.
func lostOn(t *testing.T, name string) *array.Array[uint8] {
	t.Helper()
	d := sim.NewCompute(name, 0)
	a := array.New[uint8](8, 4)
	if err := ops.On(d, a); err != nil {
		t.Fatal(err)
	}
	if err := ops.Fill(a, 9); err != nil {
		t.Fatal(err)
	}
	if a.Device() == nil || !a.DeviceDirty() {
		t.Fatalf("%s: the Fill left %v, want it newest on the device", name, a)
	}
	d.FailNext("CopyOut", errors.New("driver: device lost"))
	d.Close()
	if _, err := a.HostReadOnly(); !errors.Is(err, array.ErrLost) {
		t.Fatalf("%s: a read after the failed copy home: %v, want ErrLost", name, err)
	}
	return a
}

// TestLostValuesInPipelines: a host pipeline given an input whose values
// were lost at its device's close fails with array.ErrLost before it
// runs (its output untouched), and one whose output (a drawn crop of a
// lost root) holds lost values replaces them, as ops' whole outputs do,
// leaving the rest of the root lost.
func TestLostValuesInPipelines(t *testing.T) {
	p := halide.MustLookup("brighter_host")

	in := lostOn(t, "closing input")
	out := array.New[uint8](8, 4)
	err := p.Call(in, uint8(1), out)
	if !errors.Is(err, array.ErrLost) {
		t.Fatalf("a lost input: %v, want an error wrapping array.ErrLost", err)
	}
	if v, err := out.HostReadOnly(); err != nil || v.At(3, 2) != 0 {
		t.Fatalf("the output after a refused call: %v, %v; want it untouched (0)", v, err)
	}

	// Outputs: drawn crops of lost roots; the crop is replaced, the rest
	// of its root stays lost.
	r := draw.Rand(t)
	for round := range 20 {
		root := lostOn(t, "closing output")
		x0, y0 := r.IntN(8), r.IntN(4)
		w, h := 1+r.IntN(8-x0), 1+r.IntN(4-y0)
		dst := root.Crop(0, x0, w).Crop(1, y0, h)
		src := array.NewWithMins[uint8]([]int{x0, y0}, []int{w, h})
		if err := ops.Fill(src, 3); err != nil {
			t.Fatal(err)
		}
		if err := p.Call(src, uint8(2), dst); err != nil {
			t.Fatalf("round %d: an output over lost values (%v): %v, want the pipeline to replace them", round, dst.Dims(), err)
		}
		if dst.Device() != nil || dst.DeviceDirty() {
			t.Fatalf("round %d: the host pipeline left its output on %v", round, dst.Device())
		}
		v, err := dst.HostReadOnly()
		if err != nil {
			t.Fatalf("round %d: the output after the pipeline wrote it: %v", round, err)
		}
		for c, x := range v.All() {
			if x != 5 {
				t.Fatalf("round %d: output at %v = %d, want 3 + 2", round, c, x)
			}
		}
		if w*h < 32 {
			if _, err := root.HostReadOnly(); !errors.Is(err, array.ErrLost) {
				t.Fatalf("round %d: the root beside the %d×%d output read %v, want its other values still lost", round, w, h, err)
			}
		}
	}
}
