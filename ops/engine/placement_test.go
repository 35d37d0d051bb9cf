package engine_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops/engine"
)

// A Dense whose first device use cannot be placed (here the device is
// out of memory; under Close racing work, its device closing) fails with
// the device's error and loses nothing: its host values stay, nothing
// stays allocated, a later use on a device with room works, and the
// collector's parking of its memory (which used to find a half-typed
// block and crash) runs cleanly.
func TestFirstPlacementFails(t *testing.T) {
	const n = 1 << 18 // 1 MiB of float32: two do not fit in 1.5 MiB
	dev := sim.NewCompute("sim", 3<<19)
	e := engine.New(dev)
	defer e.Close()
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i % 7)
	}
	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
	h, err := engine.Host(a)
	if err != nil {
		t.Fatal(err)
	}
	copy(h.Data().([]float32), want)
	// a fits; a+a's result does not.
	if _, err := a.Add(a); !outOfMemory(err) {
		t.Fatalf("a+a with room for one operand: err %v, want sim's out of memory", err)
	}
	// Nothing but a's own copy stays on the device, and a keeps its values.
	if live := dev.Stats().BytesLive; live > 4*n {
		t.Errorf("after the failed op: %d bytes live on the device, want at most a's %d", live, 4*n)
	}
	h, err = engine.Host(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Data().([]float32); !slices.Equal(got, want) {
		t.Fatalf("a after the failed op differs from what was written (first %v)", got[:4])
	}
	// A Dense whose own first placement fails, then is dropped: the
	// collector parks or frees it with no crash and no device memory kept.
	for range 3 {
		b := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
		c := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
		if _, err := b.Add(c); !outOfMemory(err) {
			t.Fatalf("b+c with no room: err %v, want sim's out of memory", err)
		}
		runtime.KeepAlive(b)
		runtime.KeepAlive(c)
		runtime.GC()
		runtime.GC()
	}
	// A later op that fits (a and a 0-D sum) works on the device: the
	// failures left nothing behind that would take its room.
	s, err := a.Sum()
	if err != nil {
		t.Fatalf("Sum after the failed ops: %v", err)
	}
	var want64 float64
	for _, v := range want {
		want64 += float64(v)
	}
	if got := float64(s.ScalarValue().(float32)); got != want64 {
		t.Errorf("Sum after the failed ops = %v, want %v", got, want64)
	}
	if ra, err := engine.Array[float32](e, a); err != nil {
		t.Error(err)
	} else if ra.Raw().Device() != dev {
		t.Errorf("a after the Sum is on %v, want %s", ra.Raw().Device(), dev.Name())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if live := dev.Stats().AllocsLive; live != 0 {
		t.Errorf("after Close: %d allocations live on the device, want 0", live)
	}
}

// outOfMemory reports whether err is sim's allocation over its limit.
func outOfMemory(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeds the device's")
}
