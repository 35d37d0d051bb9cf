package engine_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/uffd"
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops/engine"
)

// deviceNewer is a Dense of e holding vals, its newest copy on the device
// (written through Host, then used once by an op).
func deviceNewer(t *testing.T, e *engine.Engine, vals []float64, shape ...int) *tensor.Dense {
	t.Helper()
	a := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(shape...), tensor.WithEngine(e))
	h, err := engine.Host(a)
	if err != nil {
		t.Fatal(err)
	}
	copy(h.Data().([]float64), vals)
	r, err := a.MulScalar(1.0, true)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hostValues(t *testing.T, d tensor.Tensor) []float64 {
	t.Helper()
	h, err := engine.Host(d.(*tensor.Dense))
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(h.Data().([]float64))
}

func closeTo(a, b []float64, tol float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) <= tol*max(1, math.Abs(y)) })
}

// gorgonia's SoftMax op (softmaxOp.Do) allocates its result on the
// standard engine and passes it WithReuse with UseUnsafe, forward and
// backward: the engine takes that Dense over and runs on the device, so
// under the transfer guard the step moves nothing, and the values are the
// standard engine's.
func TestSoftMaxStdReuseOnDevice(t *testing.T) {
	dev := sim.NewCompute("sim", 1<<20)
	e := engine.New(dev)
	defer e.Close()
	xv := []float64{1, -2, 3, 0.5, 4, -5, 6, 7}
	gv := []float64{0.1, 0.2, -0.3, 0.4, 1, -1, 0.5, 0.25}
	x, g := deviceNewer(t, e, xv, 2, 4), deviceNewer(t, e, gv, 2, 4)
	sx := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking(slices.Clone(xv)))
	sg := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking(slices.Clone(gv)))
	for _, log := range []bool{false, true} {
		fwd, bwd := tensor.SoftMax, tensor.SoftMaxB
		if log {
			fwd, bwd = tensor.LogSoftMax, tensor.LogSoftMaxB
		}
		want, err := fwd(sx, 1)
		if err != nil {
			t.Fatal(err)
		}
		wantB, err := bwd(want, sg, -1)
		if err != nil {
			t.Fatal(err)
		}
		before := dev.Stats()
		was := guardResident()
		y := tensor.New(tensor.WithShape(2, 4), tensor.Of(tensor.Float64)) // as softmaxOp.Do
		_, err = fwd(x, 1, tensor.WithReuse(y), tensor.UseUnsafe())
		var gx *tensor.Dense
		if err == nil {
			gx = tensor.New(tensor.WithShape(2, 4), tensor.Of(tensor.Float64)) // as softmaxDiffOp.Do
			_, err = bwd(y, g, -1, tensor.WithReuse(gx), tensor.UseUnsafe())
		}
		guard.Set(was)
		if err != nil {
			t.Fatalf("log %v: under the guard: %v", log, err)
		}
		// y and gx are Go memory too small to let go: each comes home once
		// its op is done, where pages can be watched (Data() is current).
		moved := dev.Stats().Sub(before)
		down := int64(0)
		if uffd.Available() {
			down = 2
		}
		if moved.H2DCalls != 0 || resident() && moved.D2HCalls != down || moved.Launches == 0 {
			t.Fatalf("log %v: the step moved %v; want %d copies home and kernels launched", log, moved, down)
		}
		if got := y.Data().([]float64); !closeTo(got, want.Data().([]float64), 1e-12) {
			t.Errorf("log %v: y.Data() %v, standard engine %v", log, got, want.Data())
		}
		if got := hostValues(t, y); !closeTo(got, want.Data().([]float64), 1e-12) {
			t.Errorf("log %v: forward %v, standard engine %v", log, got, want.Data())
		}
		if got := hostValues(t, gx); !closeTo(got, wantB.Data().([]float64), 1e-12) {
			t.Errorf("log %v: backward %v, standard engine %v", log, got, wantB.Data())
		}
	}
}

// tensor's Map (Dense.Apply): a known function runs as its device op
// (nothing moves under the guard); any other Go function runs on the host:
// refused under the guard with device.ErrTransferGuard, and without it one
// counted copy home, fn's values, the result host-newer (uploaded before
// its next device use).
func TestMap(t *testing.T) {
	dev := sim.NewCompute("sim", 1<<20)
	e := engine.New(dev)
	defer e.Close()
	xv := []float64{0.5, -1, 2, 3}
	x := deviceNewer(t, e, xv, 4)

	before := dev.Stats()
	was := guardResident()
	s, err := x.Apply(math.Sin)
	guard.Set(was)
	if err != nil {
		t.Fatalf("Map(math.Sin) under the guard: %v", err)
	}
	if moved := dev.Stats().Sub(before); moved.H2DCalls != 0 || resident() && moved.D2HCalls != 0 {
		t.Fatalf("Map(math.Sin) moved %v", moved)
	}
	want := make([]float64, len(xv))
	for i, v := range xv {
		want[i] = math.Sin(v)
	}
	if got := hostValues(t, s); !closeTo(got, want, 1e-12) {
		t.Errorf("Map(math.Sin) = %v, want %v", got, want)
	}

	x = deviceNewer(t, e, xv, 4)
	fn := func(v float64) float64 { return v*v + 1 }
	was = guard.Set(true)
	_, err = x.Apply(fn)
	guard.Set(was)
	if resident() && !errors.Is(err, device.ErrTransferGuard) { // else x came home with its op
		t.Fatalf("Map of a Go function under the guard: %v, want device.ErrTransferGuard", err)
	}
	before = dev.Stats()
	r, err := x.Apply(fn, tensor.UseUnsafe())
	if err != nil {
		t.Fatal(err)
	}
	if moved := dev.Stats().Sub(before); resident() && moved.D2HCalls != 1 || moved.H2DCalls != 0 {
		t.Fatalf("Map of a Go function moved %v, want one download", moved)
	}
	for i, v := range xv {
		want[i] = v*v + 1
	}
	// The result is host-newer: a device op uploads it first.
	d, err := r.(*tensor.Dense).AddScalar(1.0, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i]++
	}
	if got := hostValues(t, d); !closeTo(got, want, 0) {
		t.Errorf("Map then +1 = %v, want %v", got, want)
	}
}
