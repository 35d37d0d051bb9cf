package ops_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// ExampleAdd_sim: an op on Arrays resident on a computing device runs
// there (here the simulator, whose kernels are ops' host kernels on its
// memory): one launch, no transfer, the result device-dirty.
func ExampleAdd_sim() {
	d := sim.NewCompute("gpu", 0)
	defer d.Close()
	a, b := array.New[float32](4), array.New[float32](4)
	h, _ := a.Host()
	copy(h.Data(), []float32{1, 2, 3, 4})
	_ = a.CopyToDevice(d) // one explicit upload
	s0 := d.Stats()
	_ = ops.Binary(b, a, a, ops.OpAdd) // a is current on d: runs on d
	s := d.Stats().Sub(s0)
	fmt.Println(d.Runs(), s.H2DCalls, s.D2HCalls, b.Device() == d, b.DeviceDirty())
	v, _ := b.HostReadOnly() // the one copy home
	fmt.Println(v.Data())
	// Output:
	// 1 0 0 true true
	// [2 4 6 8]
}

// TestSimFault: a launch the device refuses is the op's error, and dst
// keeps its state.
func TestSimFault(t *testing.T) {
	d := sim.NewCompute("gpu", 0)
	defer d.Close()
	a := array.New[int32](8)
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	d.FailNext("Run", boom)
	if err := ops.BinaryScalar(a, a, 1, ops.OpAdd); !errors.Is(err, boom) {
		t.Fatalf("AddScalar with a failing launch: %v, want boom", err)
	}
	if err := ops.BinaryScalar(a, a, 1, ops.OpAdd); err != nil {
		t.Fatal(err)
	}
	if got, err := ops.Value(ops.Sum, a); err != nil || got != 8 {
		t.Fatalf("SumAll = %v, %v; want 8 (on the device: %d launches)", got, err, d.Runs())
	}
	if d.Runs() != 2 {
		t.Fatalf("%d launches, want 2", d.Runs())
	}
}

// ExampleClone: On refuses caller-held memory, naming the fix; Clone
// makes a device-resident copy, and ops on it run on the device.
func ExampleClone() {
	d := sim.NewCompute("gpu", 0)
	defer d.Close()
	x := array.FromSlice([]float32{1, 2, 3}, 3) // host-only
	err := ops.On(d, x)
	fmt.Println(errors.Is(err, ops.ErrHostOnly))
	c, _ := ops.Clone(d, x) // one counted upload
	defer c.Close()
	_ = ops.BinaryScalar(c, c, 2, ops.OpMul) // c is current on d: runs on d
	fmt.Println(c.Device() == d, c.DeviceDirty(), d.Runs(), d.Stats().H2DCalls)
	v, _ := c.HostReadOnly()
	fmt.Println(v.Data())
	// Output:
	// true
	// true true 1 1
	// [2 4 6]
}

// TestOnClosed: On of a closed Array is an error wrapping
// device.ErrClosed.
func TestOnClosed(t *testing.T) {
	d := sim.NewCompute("gpu", 0)
	defer d.Close()
	r := array.New[uint8](6, 4)
	v := r.Permute(1, 0)
	r.Close()
	for _, b := range []array.Buffer{r, v} {
		if err := ops.On(d, b); !errors.Is(err, device.ErrClosed) {
			t.Errorf("On(closed %v): %v, want ErrClosed", b.Raw().Dims(), err)
		}
	}
}
