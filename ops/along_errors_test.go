package ops_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// mustPanicWith runs fn and checks that it panics with an error wrapping
// sentinel whose text names want.
func mustPanicWith(t *testing.T, sentinel error, want string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		err, ok := recover().(error)
		if !ok || !errors.Is(err, sentinel) {
			t.Fatalf("panic %v, want one wrapping %v", err, sentinel)
		}
		if want != "" && !containsStr(err.Error(), want) {
			t.Fatalf("panic %q does not name %q", err, want)
		}
	}()
	fn()
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestAlongBadInput: wrong shapes, dimensions, orders and k panic with
// the package sentinels, naming the fix; integer types where an op wants
// floats and NormMax over nothing return errors; none of them writes dst.
func TestAlongBadInput(t *testing.T) {
	a := array.New[float32](4, 3)
	r := array.New[float32](5)
	mustPanicWith(t, array.ErrShape, "(3, 4)", func() { _ = ops.Var(r, a, -1, 0) }) // NumPy's shape
	mustPanicWith(t, array.ErrOutOfRange, "axis -3 of an Array of shape (3, 4)", func() { _ = ops.Std(r, a, -3, 0) })
	mustPanicWith(t, array.ErrOutOfRange, "axis 2 of an Array", func() { _ = ops.Softmax(a, a, 2) })
	mustPanicWith(t, array.ErrOutOfRange, "NormMax", func() { _ = ops.Norm(array.New[float32](3), a, -1, ops.NormOrd(7)) })
	mustPanicWith(t, array.ErrShape, "want a's shape", func() { _ = ops.CumSum(array.New[float32](3, 4), a, -1) })
	mustPanicWith(t, array.ErrShape, "at most 4", func() { _ = ops.TopK(array.New[float32](5, 3), nil, a, -1) })
	mustPanicWith(t, array.ErrShape, "pass vals, idx or both", func() { _ = ops.TopK[float32](nil, nil, a, -1) })
	mustPanicWith(t, array.ErrShape, "", func() { _ = ops.TopK(array.New[float32](2, 3), array.New[int64](3, 3), a, -1) })
	mustPanicWith(t, array.ErrShape, "", func() { _ = ops.ArgSort(array.New[int64](4), a, -1) })

	ia := array.FromSlice([]int32{1, 2, 3}, 3)
	id := array.FromSlice([]int32{7}, 1)
	for name, err := range map[string]error{
		"Var":       ops.Var(id, ia, -1, 0),
		"Norm":      ops.Norm(id, ia, -1, ops.NormL1),
		"LogSumExp": ops.LogSumExp(id, ia, -1),
		"Softmax":   ops.Softmax(ia, ia, -1),
	} {
		if !errors.Is(err, ops.ErrUnsupported) {
			t.Errorf("%s on int32: %v, want ErrUnsupported", name, err)
		}
	}
	if _, err := ops.ValueOp(ops.Std, ia, 0); !errors.Is(err, ops.ErrUnsupported) {
		t.Errorf("StdAll on int32: %v, want ErrUnsupported", err)
	}
	if v, _ := id.HostReadOnly(); v.At(0) != 7 {
		t.Errorf("a refused op wrote dst: %v", v.At(0))
	}
	empty := array.New[float32](0, 3)
	if err := ops.Norm(array.New[float32](3), empty, -1, ops.NormMax); !errors.Is(err, array.ErrShape) {
		t.Errorf("NormMax over no elements: %v, want ErrShape", err)
	}
	if _, err := ops.ValueOp(ops.Norm, empty, ops.NormMax); !errors.Is(err, array.ErrShape) {
		t.Errorf("NormAll(NormMax) of nothing: %v, want ErrShape", err)
	}
	// defined over nothing, as in NumPy
	if v, err := ops.ValueOp(ops.Var, empty, 0); err != nil || !math.IsNaN(float64(v)) {
		t.Errorf("ValueOp(Var) of nothing = %v, %v; want NaN", v, err)
	}
	if v, err := ops.Value(ops.LogSumExp, empty); err != nil || !math.IsInf(float64(v), -1) {
		t.Errorf("Value(LogSumExp) of nothing = %v, %v; want -Inf", v, err)
	}
	if v, err := ops.Value(ops.All, empty); err != nil || v != 1 {
		t.Errorf("Value(All) of nothing = %v, %v; want 1", v, err)
	}
}

// alongDevices is sim and, where there is one, the OpenCL device.
func alongDevices(t *testing.T) []device.Device {
	devs := []device.Device{sim.NewCompute("along", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	}
	return devs
}

// TestAlongLaunches: with the operands on a device, each op is the
// launches its kernels need there (one per pass; Sort 2 plus one per
// bitonic stage; sim one Run) and moves nothing; dst stays device-dirty
// there. On the host nothing launches.
func TestAlongLaunches(t *testing.T) {
	for _, d := range alongDevices(t) {
		_, isCL := d.(*opencl.Device)
		x := array.New[float32](6, 5) // rows of 6 along dimension 0
		h, _ := x.Host()
		for i := range 30 {
			h.Set(float32(i%7)-3, i%6, i/6)
		}
		red, full := array.New[float32](5), array.New[float32](6, 5)
		idx, cnt, any := array.New[int64](6, 5), array.New[int64](5), array.New[uint8](5)
		top := array.New[float32](2, 5)
		if err := ops.On(d, x, red, full, idx, cnt, any, top); err != nil {
			t.Fatal(err)
		}
		// 6 → P = 8: 6 bitonic stages
		sortLaunches := 1
		if isCL {
			sortLaunches = 2 + 6
		}
		cases := []struct {
			name     string
			launches int
			dst      array.Buffer
			fn       func() error
		}{
			{"Var", 1, red, func() error { return ops.Var(red, x, -1, 1) }},
			{"Norm", 1, red, func() error { return ops.Norm(red, x, -1, ops.NormL2) }},
			{"LogSumExp", 1, red, func() error { return ops.LogSumExp(red, x, -1) }},
			{"CountNonzero", 1, cnt, func() error { return ops.CountNonzero(cnt, x, -1) }},
			{"Any", 1, any, func() error { return ops.Any(any, x, -1) }},
			{"CumSum", 1, full, func() error { return ops.CumSum(full, x, -1) }},
			{"Softmax", 1, full, func() error { return ops.Softmax(full, x, -1) }},
			{"Sort", sortLaunches, full, func() error { return ops.Sort(full, x, -1) }},
			{"ArgSort", sortLaunches, idx, func() error { return ops.ArgSort(idx, x, -1) }},
			{"TopK", sortLaunches, top, func() error { return ops.TopK(top, nil, x, -1) }},
			{"StdAll", 1, nil, func() error { _, err := ops.ValueOp(ops.Std, x, 0); return err }},
			{"CountNonzeroAll", 1, nil, func() error { _, err := ops.Value(ops.CountNonzero, x); return err }},
		}
		for _, c := range cases {
			before := d.Stats()
			if err := c.fn(); err != nil {
				t.Fatalf("%s on %s: %v", c.name, d.Name(), err)
			}
			s := d.Stats().Sub(before)
			if s.Launches != int64(c.launches) || s.H2DCalls != 0 || s.D2HCalls != 0 {
				t.Errorf("%s on %s: %d launches, %d H2D, %d D2H; want %d, 0, 0", c.name, d.Name(), s.Launches, s.H2DCalls, s.D2HCalls, c.launches)
			}
			if c.dst != nil && (c.dst.Raw().Device() != d || !c.dst.Raw().DeviceDirty()) {
				t.Errorf("%s on %s: dst not device-dirty there", c.name, d.Name())
			}
		}
		// the same ops with host operands: nothing launches
		hx := array.New[float32](6, 5)
		before := d.Stats()
		if err := ops.Sort(hx, hx, -1); err != nil {
			t.Fatal(err)
		}
		if _, err := ops.ValueOp(ops.Var, hx, 0); err != nil {
			t.Fatal(err)
		}
		if s := d.Stats().Sub(before); s.Launches != 0 {
			t.Errorf("host ops launched %d kernels on %s", s.Launches, d.Name())
		}
	}
}

// TestAlongDeviceFailure: a launch that fails (sim's FailNext) returns
// its error; a's values are intact and the next call succeeds.
func TestAlongDeviceFailure(t *testing.T) {
	d := sim.NewCompute("fail", 0)
	defer d.Close()
	x := array.New[float32](4)
	h, _ := x.Host()
	for i, v := range []float32{3, 1, 2, 0} {
		h.Set(v, i)
	}
	dst := array.New[float32](4)
	if err := ops.On(d, x, dst); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for name, fn := range map[string]func() error{
		"Sort":    func() error { return ops.Sort(dst, x, -1) },
		"CumSum":  func() error { return ops.CumSum(dst, x, -1) },
		"Softmax": func() error { return ops.Softmax(dst, x, -1) },
		"VarAll":  func() error { _, err := ops.ValueOp(ops.Var, x, 0); return err },
		"TopK":    func() error { return ops.TopK(dst.Crop(0, 0, 2), nil, x, -1) },
	} {
		d.FailNext("Run", boom)
		if err := fn(); !errors.Is(err, boom) {
			t.Errorf("%s with a failing launch: %v, want boom", name, err)
		}
	}
	if err := ops.Sort(dst, x, -1); err != nil {
		t.Fatal(err)
	}
	v, _ := dst.HostReadOnly()
	xv, _ := x.HostReadOnly()
	for i := range 4 {
		if v.At(i) != float32(i) || xv.At(i) != []float32{3, 1, 2, 0}[i] {
			t.Fatalf("after the failures: sorted %v of %v", v.Data(), xv.Data())
		}
	}
}

// Statistics of each row (dimension 0 is the row's elements), and the
// order of a row.
func Example_along() {
	x := array.FromSlice([]float32{1, 2, 3, 4, 4, 3, 2, 1, 0}, 3, 3) // rows [1 2 3] [4 4 3] [2 1 0]
	v := array.FromSlice(make([]float32, 3), 3)
	_ = ops.Var(v, x, -1, 1)
	sm := array.FromSlice(make([]float32, 9), 3, 3)
	_ = ops.Softmax(sm, x, -1)
	idx := array.FromSlice(make([]int64, 9), 3, 3)
	_ = ops.ArgSort(idx, x, -1)
	top := array.FromSlice(make([]float32, 3), 1, 3)
	_ = ops.TopK(top, nil, x, -1)
	std, _ := ops.ValueOp(ops.Std, x, 0)
	n, _ := ops.Value(ops.CountNonzero, x)
	vv, _ := v.HostReadOnly()
	sv, _ := sm.HostReadOnly()
	iv, _ := idx.HostReadOnly()
	tv, _ := top.HostReadOnly()
	fmt.Println(vv.Data(), iv.Data(), tv.Data())
	fmt.Printf("%.4f %.4f %d\n", sv.Data()[:3], std, n)
	// Output:
	// [1 0.33333334 1] [0 1 2 2 0 1 2 1 0] [3 4 2]
	// [0.0900 0.2447 0.6652] 1.3147 8
}
