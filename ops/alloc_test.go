package ops_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// placements are where the allocating forms are checked: the host (nil),
// a computing sim and PoCL when it is there.
func placements(t *testing.T) []device.Device {
	devs := []device.Device{nil, sim.NewCompute("alloc", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	} else {
		t.Logf("no OpenCL device: %v", err)
	}
	return devs
}

func devName(d device.Device) string {
	if d == nil {
		return "host"
	}
	return d.Name()
}

// vals reads a's elements in C order (dimension 0 fastest) through index
// arithmetic on its Dims.
func vals[T array.Elem](t testing.TB, a *array.Array[T]) []T {
	t.Helper()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	dims := a.Dims()
	out := []T{}
	c := make([]int, len(dims))
	for i, d := range dims {
		if d.Extent == 0 {
			return out
		}
		c[i] = d.Min
	}
	for {
		out = append(out, v.At(c...))
		k := 0
		for ; k < len(dims); k++ {
			if c[k]++; c[k] <= dims[k].Max() {
				break
			}
			c[k] = dims[k].Min
		}
		if k == len(dims) {
			return out
		}
	}
}

// filled is a dense float32 Array of extents with values from r.
func filled(r *rand.Rand, ext ...int) *array.Array[float32] {
	a := array.New[float32](ext...)
	h, _ := a.Host()
	d := h.Data()
	for i := range d {
		d[i] = float32(r.IntN(19) - 9)
	}
	return a
}

// onDev places xs on d (nothing for the host).
func onDev(t *testing.T, d device.Device, xs ...array.Buffer) {
	t.Helper()
	if d == nil {
		return
	}
	if err := ops.On(d, xs...); err != nil {
		t.Fatal(err)
	}
}

// checkPlaced: res lives where its inputs do, written there, and no
// transfer ran during the op (since before).
func checkPlaced[T array.Elem](t *testing.T, what string, d device.Device, res *array.Array[T], before device.Stats) {
	t.Helper()
	if d == nil {
		if res.Device() != nil {
			t.Fatalf("%s on the host: result on %s", what, res.Device().Name())
		}
		return
	}
	s := d.Stats().Sub(before)
	if res.Len() > 0 && (res.Device() != d || !res.DeviceDirty()) {
		t.Fatalf("%s on %s: result on %v (device dirty %v), want %s", what, d.Name(), res.Device(), res.DeviceDirty(), d.Name())
	}
	if s.H2DCalls != 0 || s.D2HCalls != 0 {
		t.Fatalf("%s on %s: %d uploads and %d downloads, want none", what, d.Name(), s.H2DCalls, s.D2HCalls)
	}
	if res.Len() > 0 && s.Launches == 0 {
		t.Fatalf("%s on %s: no launch counted", what, d.Name())
	}
}

// TestNewPlacement: every allocating form, on inputs resident on the
// host, a sim and PoCL: the result is where the inputs are, with no
// transfer, and equals the dst-first op run on host copies.
func TestNewPlacement(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 2))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			a := filled(r, 5, 3, 2)
			b := filled(r, 5, 1) // broadcasts along dimensions 1 and 2
			m := filled(r, 4, 5) // (N=4, K=5) for MatMul against a's (K=5, M=3, B=2)
			ha, hb, hm := hostCopy(t, a), hostCopy(t, b), hostCopy(t, m)
			onDev(t, d, a, b, m)
			cond := array.New[uint8](5, 3)
			if err := ops.CompareScalar(cond, ha.Crop(2, 0, 1).Slice(2, 0), 0, ops.GT); err != nil {
				t.Fatal(err)
			}
			onDev(t, d, cond)

			type form struct {
				name string
				got  func() (any, error)
				want func() any
			}
			f32 := func(ext []int, op func(dst *array.Array[float32]) error) any {
				x := array.New[float32](ext...)
				if err := op(x); err != nil {
					t.Fatal(err)
				}
				return x
			}
			forms := []form{
				{"New1(Abs)", func() (any, error) { return ops.New1Op(ops.Unary, a, ops.OpAbs) },
					func() any {
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.Unary(x, ha, ops.OpAbs) })
					}},
				{"New1(Copy, Transpose)", func() (any, error) { return ops.New1(ops.Copy, a.Transpose(0, 2)) },
					func() any {
						return f32([]int{2, 3, 5}, func(x *array.Array[float32]) error { return ops.Copy(x, ha.Transpose(0, 2)) })
					}},
				{"New1Op(Unary)", func() (any, error) { return ops.New1Op(ops.Unary, a, ops.OpNeg) },
					func() any {
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.Unary(x, ha, ops.OpNeg) })
					}},
				{"New2(Add)", func() (any, error) { return ops.New2Op(ops.Binary, a, b, ops.OpAdd) },
					func() any {
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.Binary(x, ha, hb, ops.OpAdd) })
					}},
				{"New2(Sub) broadcast first", func() (any, error) { return ops.New2Op(ops.Binary, b, a, ops.OpSub) },
					func() any {
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.Binary(x, hb, ha, ops.OpSub) })
					}},
				{"New2Op(Binary)", func() (any, error) { return ops.New2Op(ops.Binary, a, b, ops.OpMax) },
					func() any {
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.Binary(x, ha, hb, ops.OpMax) })
					}},
				{"NewScalar(MulScalar)", func() (any, error) { return ops.NewScalarOp(ops.BinaryScalar, a, 3, ops.OpMul) },
					func() any {
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.BinaryScalar(x, ha, 3, ops.OpMul) })
					}},
				{"NewReduce(Sum, -1)", func() (any, error) { return ops.NewReduce(ops.Sum, a, -1) },
					func() any { return f32([]int{3, 2}, func(x *array.Array[float32]) error { return ops.Sum(x, ha, -1) }) }},
				{"NewReduce(Max, 0)", func() (any, error) { return ops.NewReduce(ops.Max, a, 0) },
					func() any { return f32([]int{5, 3}, func(x *array.Array[float32]) error { return ops.Max(x, ha, -3) }) }},
				{"NewMatMul", func() (any, error) { return ops.NewMatMul(a, m) },
					func() any {
						return f32([]int{4, 3, 2}, func(x *array.Array[float32]) error { return ops.MatMul(x, ha, hm) })
					}},
				{"NewWhere", func() (any, error) { return ops.NewWhere(cond, a, b) },
					func() any {
						hc := hostCopy(t, cond)
						return f32(ha.Extents(), func(x *array.Array[float32]) error { return ops.Where(x, hc, ha, hb) })
					}},
				{"New2Op(Compare)", func() (any, error) { return ops.New2Op(ops.Compare, a, b, ops.LT) },
					func() any {
						x := array.New[uint8](ha.Extents()...)
						must(t, ops.Compare(x, ha, hb, ops.LT))
						return x
					}},
				{"NewScalarOp(CompareScalar)", func() (any, error) { return ops.NewScalarOp(ops.CompareScalar, a, 0, ops.GE) },
					func() any {
						x := array.New[uint8](ha.Extents()...)
						must(t, ops.CompareScalar(x, ha, 0, ops.GE))
						return x
					}},
				{"NewReduce(ArgMax, -1)", func() (any, error) { return ops.NewReduce(ops.ArgMax, a, -1) },
					func() any {
						x := array.New[int64](3, 2)
						must(t, ops.ArgMax(x, ha, -1))
						return x
					}},
				{"New1(CastWrap)", func() (any, error) { return ops.New1(ops.CastWrap[int32, float32], a) },
					func() any {
						x := array.New[int32](ha.Extents()...)
						must(t, ops.CastWrap(x, ha))
						return x
					}},
			}
			for _, f := range forms {
				var before device.Stats
				if d != nil {
					before = d.Stats()
				}
				got, err := f.got()
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				want := f.want()
				switch g := got.(type) {
				case *array.Array[float32]:
					checkPlaced(t, f.name, d, g, before)
					sameVals(t, f.name, g, want.(*array.Array[float32]))
					g.Close()
				case *array.Array[uint8]:
					checkPlaced(t, f.name, d, g, before)
					sameVals(t, f.name, g, want.(*array.Array[uint8]))
					g.Close()
				case *array.Array[int64]:
					checkPlaced(t, f.name, d, g, before)
					sameVals(t, f.name, g, want.(*array.Array[int64]))
					g.Close()
				case *array.Array[int32]:
					checkPlaced(t, f.name, d, g, before)
					sameVals(t, f.name, g, want.(*array.Array[int32]))
					g.Close()
				default:
					t.Fatalf("%s: result %T", f.name, got)
				}
			}
			for _, x := range []interface{ Close() error }{a, b, m, cond} {
				x.Close()
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hostCopy is a host-resident copy of a (with a's extents, mins 0).
func hostCopy[T array.Elem](t testing.TB, a *array.Array[T]) *array.Array[T] {
	t.Helper()
	c := array.New[T](a.Extents()...)
	src, err := a.SetMin(make([]int, a.Rank())...).HostReadOnly()
	must(t, err)
	h, err := c.Host()
	must(t, err)
	h.CopyFrom(src)
	return c
}

func sameVals[T array.Elem](t *testing.T, what string, got, want *array.Array[T]) {
	t.Helper()
	if !slices.Equal(got.Extents(), want.Extents()) {
		t.Fatalf("%s: extents %v, want %v", what, got.Extents(), want.Extents())
	}
	g, w := vals(t, got), vals(t, want)
	for i := range g {
		gf, wf := toF(g[i]), toF(w[i])
		if gf != wf && math.Abs(gf-wf) > 1e-5*math.Max(1, math.Abs(wf)) {
			t.Fatalf("%s: element %d is %v, want %v", what, i, g[i], w[i])
		}
	}
}

func toF[T array.Elem](x T) float64 {
	switch v := any(x).(type) {
	case float32:
		return float64(v)
	case uint8:
		return float64(v)
	case int64:
		return float64(v)
	case int32:
		return float64(v)
	}
	panic(fmt.Sprintf("toF: %T", x))
}

// TestNewFailureCloses: a device failure inside the op returns the error,
// closes the result (nothing leaks on the device) and leaves the inputs
// as they were.
func TestNewFailureCloses(t *testing.T) {
	d := sim.NewCompute("fail", 0)
	a := array.New[float32](8)
	must(t, ops.Fill(a, 2))
	must(t, ops.On(d, a))
	live := d.Stats()
	boom := errors.New("boom")
	d.FailNext("Run", boom)
	res, err := ops.New2Op(ops.Binary, a, a, ops.OpAdd)
	if !errors.Is(err, boom) || res != nil {
		t.Fatalf("got %v, %v; want nil and the injected failure", res, err)
	}
	if s := d.Stats(); s.AllocsLive != live.AllocsLive {
		t.Fatalf("%d live allocations after the failure, %d before", s.AllocsLive, live.AllocsLive)
	}
	sameVals(t, "input after the failure", a, array.Full[float32](2, 8))
	a.Close()
	if _, err := ops.New1Op(ops.Unary, a, ops.OpAbs); !errors.Is(err, array.ErrClosed) {
		t.Fatalf("New1 of a closed Array: %v, want ErrClosed", err)
	}
}

// TestNewBadShape: shapes that do not broadcast panic with ErrShape
// before anything is allocated or run.
func TestNewBadShape(t *testing.T) {
	a, b := array.New[float32](3, 2), array.New[float32](4, 2)
	for name, f := range map[string]func(){
		"New2":      func() { ops.New2Op(ops.Binary, a, b, ops.OpAdd) },
		"NewReduce": func() { ops.NewReduce(ops.Sum, a, 2) },
		"NewMatMul": func() { ops.NewMatMul(a, array.New[float32](3)) },
	} {
		func() {
			defer func() {
				e, _ := recover().(error)
				if !errors.Is(e, array.ErrShape) {
					t.Errorf("%s: panic %v, want one wrapping array.ErrShape", name, e)
				}
			}()
			f()
		}()
	}
}

// residency states an input of an allocating form is drawn from.
var states = []string{"host", "host-only", "current", "device-dirty", "host-dirty"}

// inState makes a float32 input of extents ext in state s on d, and a
// host copy of its values taken before (reading it would change the
// state).
func inState(t *testing.T, r *rand.Rand, d device.Device, s string, ext ...int) (*array.Array[float32], *array.Array[float32]) {
	t.Helper()
	a := filled(r, ext...)
	hc := hostCopy(t, a)
	switch s {
	case "host-only":
		h, _ := a.HostReadOnly()
		return array.FromSlice(slices.Clone(h.Data()), ext...), hc
	case "current":
		onDev(t, d, a)
	case "device-dirty":
		onDev(t, d, a)
		must(t, ops.BinaryScalar(a, a, 0, ops.OpAdd)) // written on d
	case "host-dirty":
		onDev(t, d, a)
		h, _ := a.Host()
		h.Set(h.At(make([]int, len(ext))...), make([]int, len(ext))...)
	}
	return a, hc
}

// wantDevice is the placement rule (array's "Where work runs") as the
// model sees it, for inputs in states sa and sb on d with a fresh dst.
func wantDevice(d device.Device, sa, sb string) device.Device {
	st := []string{sa, sb}
	if slices.Contains(st, "host-only") {
		return nil
	}
	if slices.Contains(st, "device-dirty") {
		return d
	}
	for _, s := range st {
		if s != "current" {
			return nil
		}
	}
	return d
}

// TestNewPlacementRule: New2 over every pair of residency states, on the
// sim and PoCL, with the transfer guard on and off: the result is where
// the rule says, transfers are those the rule implies, and under the
// guard a needed automatic copy is an error that leaks nothing.
func TestNewPlacementRule(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 4))
	for _, d := range placements(t)[1:] {
		for _, sa := range states {
			for _, sb := range states {
				for _, guard := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s+%s/guard=%v", devName(d), sa, sb, guard)
					a, ha := inState(t, r, d, sa, 7, 3)
					b, hb := inState(t, r, d, sb, 7, 1)
					want := wantDevice(d, sa, sb)
					// A copy is needed when the op runs on d with a
					// host-newer input, or on the host with a device-newer one.
					needsCopy := false
					for _, s := range []string{sa, sb} {
						needsCopy = needsCopy || want == d && (s == "host" || s == "host-dirty" || s == "host-only") ||
							want == nil && s == "device-dirty"
					}
					was := device.SetDeviceGuard(d, guard)
					live := d.Stats().AllocsLive
					res, err := ops.New2Op(ops.Binary, a, b, ops.OpAdd)
					device.SetDeviceGuard(d, was)
					if guard && needsCopy {
						if !errors.Is(err, device.ErrTransferGuard) || res != nil {
							t.Fatalf("%s: got %v, %v; want an error wrapping ErrTransferGuard", name, res, err)
						}
						if n := d.Stats().AllocsLive; n != live {
							t.Fatalf("%s: %d live allocations after the refusal, %d before", name, n, live)
						}
					} else {
						must(t, err)
						if got := res.Device(); got != want {
							t.Fatalf("%s: result on %s, want %s", name, devName(got), devName(want))
						}
						w := array.New[float32](7, 3)
						must(t, ops.Binary(w, ha, hb, ops.OpAdd))
						sameVals(t, name, res, w)
						res.Close()
					}
					a.Close()
					b.Close()
				}
			}
		}
	}
}
