package ops

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
)

// unaryRefs are the unary ops added since the op table, each checked
// against package math on the host, op by op on the device and fused on
// the device, float32 and float64 (the differential tests draw only the
// ops drefUnary knows). lo, hi bound the random inputs; edges are always
// checked. ulps is the device's allowance (OpenCL 3.0's for the built-in,
// float; its double allowance is the same or smaller); the host is exact,
// its kernel (or hostF64's) being the reference in float64.
var unaryRefs = []struct {
	op     UnaryOp
	ref    func(float64) float64
	lo, hi float64
	edges  []float64
	ulps   int64
}{
	{OpErf, math.Erf, -4, 4, []float64{0.84375, -0.84375, 1.25, 2.857, 5.9, 6, -6, 27, 1e-300}, 16},
	{OpExpm1, math.Expm1, -5, 5, []float64{88.7, 89, -88, 709.7, 710, -40, -745, 1e-10, -1e-10, 1e-300, 0.3465}, 3},
	{OpLog1p, math.Log1p, -0.99, 10, []float64{-2, -1.5, -0.999999, -0.29, 0.41, 1e-10, -1e-10, 1e-300, 3e38, 1e300}, 2},
}

// hostF64 are the float64 host references of the ops whose kernels
// are not package math's (their accuracy has its own test: hyp64_test.go).
var hostF64 = map[UnaryOp]func(float64) float64{OpExpm1: expm1F64one, OpLog1p: log1p64}

// unaryRefEdges are every op's edge inputs besides its own.
var unaryRefEdges = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
	1e-30, -1e-30, 1e-8, -1e-8, 0.5, -0.5, 3, -3, 30, -30, 1e30, -1e30}

func TestUnaryRef(t *testing.T) {
	seed := uint64(time.Now().Unix() / 86400) // a new draw each day, the same all day
	for _, c := range unaryRefs {
		t.Run(c.op.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, uint64(c.op)))
			in := append(append([]float64{}, unaryRefEdges...), c.edges...)
			for range 200 {
				in = append(in, c.lo+(c.hi-c.lo)*r.Float64())
			}
			t.Logf("seed %d", seed)
			checkUnaryRef[float32](t, c.op, c.ref, c.ulps, in)
			checkUnaryRef[float64](t, c.op, c.ref, c.ulps, in)
			for _, err := range []error{Unary(array.New[int32](2), array.New[int32](2), c.op),
				Unary(array.New[uint8](2), array.New[uint8](2), c.op)} {
				if !errors.Is(err, ErrUnsupported) {
					t.Errorf("%v on integers: %v, want ErrUnsupported", c.op, err)
				}
			}
		})
	}
}

// checkUnaryRef runs op over in as T: on the host (no device, exactly
// T(ref(x)), or hostF64's), on the OpenCL device op by op (1 launch, no transfer) and
// fused as 2·op(x) (1 launch, no transfer), within ulps of the reference.
func checkUnaryRef[T float32 | float64](t *testing.T, op UnaryOp, ref func(float64) float64, ulps int64, in []float64) {
	t.Helper()
	n := len(in)
	xs := make([]T, n)
	want := make([]T, n)
	for i, v := range in {
		xs[i] = T(v)
		want[i] = T(ref(float64(xs[i])))
	}
	name := typeName[T]() + " " + op.String()
	hostWant := want
	if f := hostF64[op]; f != nil && typeName[T]() == "float64" {
		hostWant = make([]T, n)
		for i, v := range xs {
			hostWant[i] = T(f(float64(v)))
		}
	}
	check := func(how string, a *array.Array[T], ulps int64, scale T) {
		t.Helper()
		h, err := a.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		want := want
		if how == "host" || how == "host fused" {
			want = hostWant
		}
		for i, got := range h.Data() {
			if w := scale * want[i]; ulpDiff(float64(got), float64(w), typeName[T]() == "float32") > ulps {
				t.Errorf("%s %s(%v) = %v, want %v (within %d ulps)", how, name, xs[i], got, w, ulps)
			}
		}
	}
	x, dst := array.New[T](n), array.New[T](n)
	defer x.Close()
	defer dst.Close()
	xh, _ := x.Host()
	copy(xh.Data(), xs)
	must(t, Unary(dst, x, op))
	check("host", dst, 0, 1)
	must(t, Eval(dst, In(x).Unary(op).Binary(OpMul, Const[T](2))))
	check("host fused", dst, 0, 2)

	d := testDev(t)
	if !fits(stateOf(d).fp64, array.TypeOf[T]()) {
		t.Logf("%s: %s has no fp64: the host runs it", name, d.Name())
		return
	}
	dx, dd := array.New[T](n), array.New[T](n)
	defer dx.Close()
	defer dd.Close()
	dh, _ := dx.Host()
	copy(dh.Data(), xs)
	must(t, On(d, dx, dd))
	must(t, Unary(dd, dx, op)) // the program builds and dx uploads here
	for _, c := range []struct {
		how   string
		run   func() error
		scale T
	}{
		{"device", func() error { return Unary(dd, dx, op) }, 1},
		{"device fused", func() error { return Eval(dd, In(dx).Unary(op).Binary(OpMul, Const[T](2))) }, 2},
	} {
		must(t, c.run()) // builds the fused program
		before := d.Stats()
		must(t, c.run())
		st := d.Stats().Sub(before)
		if st.Launches != 1 || st.H2DCalls+st.D2HCalls != 0 || !dd.DeviceDirty() {
			t.Errorf("%s %s: %d launches, %d transfers, device-dirty %v: want 1 launch, no transfer, the result on the device",
				c.how, name, st.Launches, st.H2DCalls+st.D2HCalls, dd.DeviceDirty())
		}
		check(c.how, dd, ulps, c.scale)
	}
}

// ulpDiff is how many representable values of float32 (f32) or float64
// lie between a and b: 0 for equal values (±0 equal) and for two NaNs,
// the most for a NaN against a number.
func ulpDiff(a, b float64, f32 bool) int64 {
	switch {
	case a != a || b != b:
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	case a == b:
		return 0
	}
	ord := func(v float64) int64 {
		var u int64
		if f32 {
			u = int64(math.Float32bits(float32(v)))
			if u&(1<<31) != 0 {
				u = -(u &^ (1 << 31))
			}
			return u
		}
		u = int64(math.Float64bits(v))
		if u < 0 {
			u = -(u &^ math.MinInt64)
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return d
}
