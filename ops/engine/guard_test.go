package engine_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// A Dense written through Host before its first use needs an upload at
// that use: under the transfer guard it is refused like every automatic
// copy (it was made through ops.On, explicit, and passed); without the
// guard it is one counted upload and the op reads the values.
func TestGuardRefusesFirstUseUpload(t *testing.T) {
	dev := sim.NewCompute("sim", 1<<20)
	e := engine.New(dev)
	defer e.Close()
	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4), tensor.WithEngine(e))
	h, err := engine.Host(a)
	if err != nil {
		t.Fatal(err)
	}
	copy(h.Data().([]float32), []float32{1, 2, 3, 4})
	before := dev.Stats()
	was := guard.Set(true)
	_, err = a.Add(a)
	guard.Set(was)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("Add under the guard of a Dense written through Host: err %v, want one wrapping device.ErrTransferGuard", err)
	}
	if moved := dev.Stats().Sub(before); moved.H2DCalls != 0 {
		t.Fatalf("under the guard: %d uploads, want 0", moved.H2DCalls)
	}
	c, err := a.Add(a)
	if err != nil {
		t.Fatal(err)
	}
	if moved := dev.Stats().Sub(before); moved.H2DCalls != 1 {
		t.Errorf("without the guard: %d uploads, want 1", moved.H2DCalls)
	}
	hc, err := engine.Host(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := hc.Data().([]float32); !slices.Equal(got, []float32{2, 4, 6, 8}) {
		t.Errorf("a+a = %v, want [2 4 6 8]", got)
	}
}

// Dense.Zero of a Dense whose newest values are on the device (gorgonia's
// solvers zero gradients so) is seen at its next use and set on the
// device with no upload; a write through Data() to one element of the
// Dense (the engine's Alloc) or of an op's result lands on the newest
// values, filled from the device at the write (a dropped host copy:
// hostwrites.go) where pages can be watched, one D2H transfer in the
// device's Stats; elsewhere the result came home when its call ended, and
// the write is seen in a host copy current on both sides.
func TestZeroBehindTheEngine(t *testing.T) {
	dev := sim.NewCompute("sim", 1<<20)
	e := engine.New(dev)
	defer e.Close()
	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4), tensor.WithEngine(e))
	if err := e.Memset(a, float32(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.MulScalar(a, float32(2), true, tensor.UseUnsafe()); err != nil {
		t.Fatal(err)
	}
	a.Zero()
	before := dev.Stats()
	c, err := a.Add(a)
	if err != nil {
		t.Fatal(err)
	}
	if moved := dev.Stats().Sub(before); resident() && moved.H2DCalls != 0 {
		t.Errorf("%d uploads for a zeroed Dense, want 0", moved.H2DCalls)
	}
	hc, err := engine.Host(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := hc.Data().([]float32); !slices.Equal(got, []float32{0, 0, 0, 0}) {
		t.Fatalf("after Zero, a+a = %v, want zeros", got)
	}
	if _, err := e.AddScalar(a, float32(1), true, tensor.UseUnsafe()); err != nil {
		t.Fatal(err)
	}
	a.Data().([]float32)[0] = 5
	switch c, err := a.Add(a); {
	case err != nil:
		t.Fatalf("after a write through Data to one element: %v", err)
	default:
		if got := hostVals[float32](t, c); !slices.Equal(got, []float32{10, 2, 2, 2}) {
			t.Fatalf("after a write of 5 to the first of [1 1 1 1], a+a = %v, want [10 2 2 2]", got)
		}
	}
	r, err := a.AddScalar(float32(1), true) // [2 2 2 2], an op's result
	if err != nil {
		t.Fatal(err)
	}
	rd := r
	_, fills := uffd.Fills()
	st := dev.Stats()
	rd.Data().([]float32)[0] = 5
	fill := dev.Stats().Sub(st) // the fill, before any engine call
	c, err = rd.Add(rd)
	if err != nil {
		t.Fatalf("after a write through Data to one element of a result: %v", err)
	}
	if _, f := uffd.Fills(); resident() && f != fills+1 {
		t.Fatalf("the write filled the host copy %d times, want 1", f-fills)
	}
	if resident() && (fill.D2HCalls != 1 || fill.D2HBytes != 16) {
		t.Fatalf("the fill is %d D2H transfers of %d bytes in the device's Stats, want 1 of 16", fill.D2HCalls, fill.D2HBytes)
	}
	if got := hostVals[float32](t, c); !slices.Equal(got, []float32{10, 4, 4, 4}) {
		t.Fatalf("after a write of 5 to the first of the result [2 2 2 2], r+r = %v, want [10 4 4 4]", got)
	}
}
