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

// fuseDevices are the devices of the fused tests: a Go device (sim) and
// OpenCL when there is one.
func fuseDevices(t testing.TB) []device.Device {
	sd := sim.NewCompute("fuse", 0)
	t.Cleanup(func() { sd.Close() })
	devs := []device.Device{sd}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	}
	return devs
}

// image is a w×h uint8 image of a fixed pattern.
func image(w, h int) *array.Array[uint8] {
	a := array.New[uint8](w, h)
	v, _ := a.Host()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v.Set(uint8(x*7+y*13), x, y)
		}
	}
	return a
}

// The mixed chain's cast → scale → sum is one pass: on a device one
// launch that reads the image where it is, with no transfer, its last
// work-group joining the partial sums (two launches, the kernel and the
// join, with ReduceTuning.TwoPass); elementwise, one launch; on the
// host, no launch. Results equal the op-by-op chain's (the sum within float32's
// rounding of the op-by-op reduction, which adds in another order).
func TestFuseMixedChainLaunches(t *testing.T) {
	const w, h = 300, 200
	const scale = float32(1.0 / 255)
	ref := func(img *array.Array[uint8]) (float32, *array.Array[float32]) {
		f := array.New[float32](w, h)
		if err := ops.CastWrap(f, img); err != nil {
			t.Fatal(err)
		}
		if err := ops.BinaryScalar(f, f, scale, ops.OpMul); err != nil {
			t.Fatal(err)
		}
		s, err := ops.Value(ops.Sum, f)
		if err != nil {
			t.Fatal(err)
		}
		return s, f
	}
	wantSum, wantF := ref(image(w, h))
	wv, _ := wantF.HostReadOnly()
	// run calls ran right after the op, before reading its result back
	check := func(where string, d device.Device, wantLaunches int64, run func(e ops.Expr[float32], ran func()) error) {
		img := image(w, h)
		defer img.Close()
		if d != nil {
			if err := ops.On(d, img); err != nil {
				t.Fatal(err)
			}
		}
		var before, after device.Stats
		if d != nil {
			before = d.Stats()
		}
		ran := func() {
			if d != nil {
				after = d.Stats()
			}
		}
		if err := run(ops.AsType[float32](ops.In(img)).Scale(scale), ran); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if d == nil {
			return
		}
		st := after.Sub(before)
		if st.Launches != wantLaunches || st.H2DCalls != 0 || st.D2HCalls != 0 {
			t.Errorf("%s on %s: %d launches, %d H2D, %d D2H; want %d launches and no transfer", where, d.Name(), st.Launches, st.H2DCalls, st.D2HCalls, wantLaunches)
		}
	}
	for _, d := range append([]device.Device{nil}, fuseDevices(t)...) {
		name := "host"
		sumLaunches := int64(1) // a Go device: one run
		if d != nil {
			name = d.Name()
			if _, ok := d.(device.Kernels); ok {
				sumLaunches = 1 // the fused kernel, its last work-group joining
				if ops.TuningOf(d).Reduce.TwoPass {
					sumLaunches = 2 // the fused kernel and the join of its partial sums
				}
				// once before counting: the build, and the counters' allocation
				img := image(w, h)
				if err := ops.On(d, img); err != nil {
					t.Fatal(err)
				}
				if _, err := ops.EvalSumAll(ops.AsType[float32](ops.In(img)).Scale(scale)); err != nil {
					t.Fatal(err)
				}
				img.Close()
			}
		}
		check("EvalSumAll", d, sumLaunches, func(e ops.Expr[float32], ran func()) error {
			got, err := ops.EvalSumAll(e)
			ran()
			if err == nil && math.Abs(float64(got-wantSum)) > 1e-6*float64(w*h) {
				t.Errorf("%s: EvalSumAll %v, op by op %v", name, got, wantSum)
			}
			return err
		})
		check("EvalSum", d, sumLaunches, func(e ops.Expr[float32], ran func()) error {
			dst := array.New[float32]()
			defer dst.Close()
			if err := ops.EvalSum(dst, e); err != nil {
				return err
			}
			ran()
			if d != nil && (!dst.DeviceDirty() || dst.Device() != d) {
				t.Errorf("%s: EvalSum's result is not device-dirty on the device", name)
			}
			v, err := dst.HostReadOnly()
			if err == nil && math.Abs(float64(v.At()-wantSum)) > 1e-6*float64(w*h) {
				t.Errorf("%s: EvalSum %v, op by op %v", name, v.At(), wantSum)
			}
			return nil
		})
		check("Eval", d, 1, func(e ops.Expr[float32], ran func()) error {
			dst := array.New[float32](w, h)
			defer dst.Close()
			if err := ops.Eval(dst, e); err != nil {
				return err
			}
			ran()
			v, err := dst.HostReadOnly()
			if err != nil {
				return err
			}
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					if v.At(x, y) != wv.At(x, y) {
						t.Fatalf("%s: Eval at (%d,%d): %v, op by op %v", name, x, y, v.At(x, y), wv.At(x, y))
					}
				}
			}
			return nil
		})
	}
}

// A program is built once per device and expression structure: the same
// expression with other constants and other Arrays of the same types
// reuses it.
func TestFuseExprString(t *testing.T) {
	a := array.New[uint8](4)
	e1 := ops.AsType[float32](ops.In(a)).Scale(2)
	e2 := ops.AsType[float32](ops.In(array.New[uint8](9))).Scale(3)
	if e1.String() != e2.String() {
		t.Errorf("signatures differ only by constants and Arrays: %q vs %q", e1, e2)
	}
	want := "%0 = in0 uint8; %1 = CastWrap(%0) float32; %2 = const float32; %3 = Mul(%1, %2) float32"
	if e1.String() != want {
		t.Errorf("String %q, want %q", e1, want)
	}
	if e3 := ops.AsTypeSaturate[float32](ops.In(a)).Scale(2); e3.String() == e1.String() {
		t.Errorf("saturating and wrapping casts share a signature")
	}
	// unary nodes, a second leaf, a shared node and slots past 9
	b, c := array.New[float64](4), array.New[float64](4)
	x := ops.In(b).Unary(ops.OpSqrt)
	y := x.Binary(ops.OpAdd, ops.In(c)).Binary(ops.OpMul, x)
	for range 3 {
		y = y.Binary(ops.OpAdd, y).Unary(ops.OpNeg)
	}
	want = "%0 = in0 float64; %1 = Sqrt(%0) float64; %2 = in1 float64; %3 = Add(%1, %2) float64; %4 = Mul(%3, %1) float64; " +
		"%5 = Add(%4, %4) float64; %6 = Neg(%5) float64; %7 = Add(%6, %6) float64; %8 = Neg(%7) float64; %9 = Add(%8, %8) float64; %10 = Neg(%9) float64"
	if y.String() != want {
		t.Errorf("String\n%q, want\n%q", y, want)
	}
}

func TestFuseErrors(t *testing.T) {
	a := array.New[int32](3)
	if err := ops.Eval(a, ops.In(a).Unary(ops.OpSqrt)); !errors.Is(err, ops.ErrUnsupported) {
		t.Errorf("Sqrt of int32: %v, want ErrUnsupported", err)
	}
	if _, err := ops.EvalMinAll(ops.In(array.New[int32](0))); !errors.Is(err, array.ErrShape) {
		t.Errorf("EvalMinAll of nothing: %v, want ErrShape", err)
	}
	if s, err := ops.EvalSumAll(ops.In(array.New[int32](0, 3))); err != nil || s != 0 {
		t.Errorf("EvalSumAll of nothing: %v, %v; want 0", s, err)
	}
	mustPanic(t, ops.ErrExpr, func() { ops.Eval(a, ops.Expr[int32]{}) })
	mustPanic(t, array.ErrShape, func() { ops.Eval(a, ops.In(array.New[int32](4))) })
	mustPanic(t, array.ErrShape, func() { ops.EvalSum(a, ops.In(a)) })
	mustPanic(t, array.ErrShape, func() {
		ops.EvalSumAll(ops.In(array.New[int32](3)).Binary(ops.OpAdd, ops.In(array.New[int32](4))))
	})
}

func mustPanic(t *testing.T, want error, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, _ := r.(error)
		if !errors.Is(err, want) {
			t.Errorf("panic %v, want one wrapping %v", r, want)
		}
	}()
	fn()
}

// Up to 7 distinct Arrays fuse into one launch; an eighth makes the
// expression run op by op: one launch per node, the same values.
func TestFuseFallbackOpByOp(t *testing.T) {
	for _, d := range fuseDevices(t) {
		for _, n := range []int{7, 8} {
			xs := make([]*array.Array[int32], n)
			e := ops.Const[int32](1)
			for i := range xs {
				xs[i] = array.FromSlice([]int32{int32(i), int32(10 * i), 3})
				c, err := ops.Clone(d, xs[i])
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				e = e.Binary(ops.OpAdd, ops.In(c))
			}
			dst := array.New[int32](3)
			before := d.Stats()
			if err := ops.Eval(dst, e); err != nil {
				t.Fatal(err)
			}
			st := d.Stats().Sub(before)
			want := int64(1)
			if n > 7 {
				want = int64(n) // one Add per Array, the first with the constant
			}
			if st.Launches != want || st.H2DCalls != 0 {
				t.Errorf("%s, %d Arrays: %d launches and %d H2D, want %d launches and none", d.Name(), n, st.Launches, st.H2DCalls, want)
			}
			v, err := dst.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			w := int32(n*(n-1)/2) + 1
			if v.At(0) != w || v.At(1) != 10*(w-1)+1 || v.At(2) != int32(3*n+1) {
				t.Errorf("%s, %d Arrays: %v, want [%d %d %d]", d.Name(), n, v.Data(), w, 10*(w-1)+1, 3*n+1)
			}
			dst.Close()
		}
	}
}

// An expression is written once and evaluated where its Arrays are: here
// on the host, as one pass with no temporary Arrays.
func ExampleEvalSumAll() {
	img := array.FromSlice([]uint8{0, 51, 102, 255}, 2, 2)
	e := ops.AsType[float32](ops.In(img)).Scale(1.0 / 255) // cast → scale
	sum, err := ops.EvalSumAll(e)                          // → sum, one read of img
	fmt.Println(sum, err)
	fmt.Println(e)

	dst := array.New[float32](2, 2)
	_ = ops.Eval(dst, e.Unary(ops.OpSqrt).Binary(ops.OpAdd, ops.Const[float32](1)))
	v, _ := dst.HostReadOnly()
	fmt.Printf("%.3f\n", v.Data())
	// Output:
	// 1.6 <nil>
	// %0 = in0 uint8; %1 = CastWrap(%0) float32; %2 = const float32; %3 = Mul(%1, %2) float32
	// [1.000 1.447 1.632 2.000]
}
