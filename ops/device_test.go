package ops

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
)

// Device tests: every device op against the host op on the same data
// (exact for integers, within devTol for floats), on views too; chains
// of device ops under the transfer guard; build errors with their log.
// They run on whatever opencl.Default() opens (PoCL's CPU device in CI)
// and skip without OpenCL.

func testDev(t testing.TB) *opencl.Device {
	t.Helper()
	d, err := opencl.Default()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	return d
}

// devTol is the relative tolerance of float results against the host:
// OpenCL's single-precision division, sqrt and transcendentals may be a
// few ulps off (the host's are correctly rounded through float64), and a
// Float16/BFloat16 result may then round to the neighbouring value.
func devTol[T array.Elem]() float64 {
	var z T
	switch any(z).(type) {
	case float32:
		return 1e-5
	case float64:
		return 1e-12
	case array.Float16:
		return 2e-3
	case array.BFloat16:
		return 1.6e-2
	}
	return 0
}

func toF64[T array.Elem](x T) float64 {
	if kindOf[T]() == kHalf {
		return float64(toF32(x))
	}
	return float64(x)
}

// fromF64 converts a float64 to a float type T (Float16 and BFloat16
// through float32).
func fromF64[T array.Elem](x float64) T {
	if kindOf[T]() == kHalf {
		return fromF32[T](float32(x))
	}
	return T(x)
}

// close reports whether a device result matches the host's.
func closeTo[T array.Elem](dev, host T, tol float64) bool {
	if same(dev, host) {
		return true
	}
	if tol == 0 {
		return false
	}
	d, h := toF64(dev), toF64(host)
	if math.IsInf(h, 0) || math.IsInf(d, 0) {
		return math.Abs(h) > 1e30 && math.Abs(d) > 1e30 && (h > 0) == (d > 0) || math.IsInf(h, 0) && math.Abs(d) > 6e4 && (h > 0) == (d > 0)
	}
	return math.Abs(d-h) <= tol*math.Max(1, math.Abs(h))
}

// twin makes two equal Arrays laid out as layout says; the second is
// placed on d.
func twin[T array.Elem](t *testing.T, d *opencl.Device, seed uint64, layout string, ext []int, positive bool) (*array.Array[T], *array.Array[T]) {
	t.Helper()
	h := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, gen[T](rand.New(rand.NewPCG(seed, 2)), positive))
	g := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, gen[T](rand.New(rand.NewPCG(seed, 2)), positive))
	if err := On(d, g); err != nil {
		t.Fatal(err)
	}
	return h, g
}

// checkSame compares a device result with the host's element by element.
func checkSame[T array.Elem](t *testing.T, what string, dev, host *array.Array[T], tol float64) {
	t.Helper()
	if !dev.DeviceDirty() {
		t.Errorf("%s: result not device-dirty: the op did not run on the device", what)
	}
	dv, err := dev.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	hv, _ := host.HostReadOnly()
	bad := 0
	forEachPos(extentsOf(host), func(pos []int) {
		x, y := dv.At(coordsOf(dev, pos)...), hv.At(coordsOf(host, pos)...)
		if !closeTo(x, y, tol) && bad < 3 {
			bad++
			t.Errorf("%s at %v: device %v, host %v", what, pos, x, y)
		}
	})
}

var devLayouts = []string{"dense", "mins", "crop", "transposed"}

func testDeviceElementwise[T array.Elem](t *testing.T) {
	d := testDev(t)
	ext := []int{37, 5, 3}
	tol := devTol[T]()
	k := kindOf[T]()
	for li, layout := range devLayouts {
		seed := uint64(li * 100)
		for op := OpAdd; op <= OpPow; op++ {
			if op == OpPow && k != kFloat && k != kHalf {
				continue
			}
			ha, da := twin[T](t, d, seed+1, layout, ext, false)
			hb, db := twin[T](t, d, seed+2, "dense", ext[:2], op == OpDiv || op == OpPow) // broadcasts along dim 2
			if op == OpPow {
				ha, da = twin[T](t, d, seed+1, layout, ext, true)
			}
			hd, dd := twin[T](t, d, seed+3, layout, ext, false)
			if err := Binary(hd, ha, hb, op); err != nil {
				t.Fatal(err)
			}
			if err := Binary(dd, da, db, op); err != nil {
				t.Fatal(err)
			}
			checkSame(t, layout+" "+op.String(), dd, hd, tol)
		}
		// scalar forms
		ha, da := twin[T](t, d, seed+4, layout, ext, true)
		hd, dd := twin[T](t, d, seed+5, layout, ext, false)
		s := gen[T](rand.New(rand.NewPCG(seed, 9)), true)()
		must(t, ScalarBinary(hd, s, ha, OpDiv))
		must(t, ScalarBinary(dd, s, da, OpDiv))
		checkSame(t, layout+" s/x", dd, hd, tol)
		must(t, BinaryScalar(hd, ha, s, OpMul))
		must(t, BinaryScalar(dd, da, s, OpMul))
		checkSame(t, layout+" x*s", dd, hd, tol)
		for op := OpAbs; op <= OpTanh; op++ {
			if (op >= OpSqrt && k != kFloat && k != kHalf) || (op == OpNeg && k == kUnsigned) {
				continue
			}
			ha, da := twin[T](t, d, seed+6, layout, ext, op == OpSqrt || op == OpLog)
			must(t, Unary(hd, ha, op))
			must(t, Unary(dd, da, op))
			checkSame(t, layout+" "+op.String(), dd, hd, tol)
		}
		for op := EQ; op <= GE; op++ {
			hb, db := twin[T](t, d, seed+7, "dense", ext[:1], true)
			hm, dm := twin[uint8](t, d, seed+8, layout, ext, false)
			must(t, Compare(hm, ha, hb, op))
			must(t, Compare(dm, da, db, op))
			checkSame(t, layout+" Compare "+op.String(), dm, hm, 0)
			must(t, CompareScalar(hm, ha, s, op))
			must(t, CompareScalar(dm, da, s, op))
			checkSame(t, layout+" CompareScalar "+op.String(), dm, hm, 0)
		}
		{
			hc, dc := twin[uint8](t, d, seed+9, layout, ext[:2], false)
			hb, db := twin[T](t, d, seed+10, "dense", ext, false)
			must(t, Where(hd, hc, ha, hb))
			must(t, Where(dd, dc, da, db))
			checkSame(t, layout+" Where", dd, hd, 0)
		}
		must(t, Copy(hd, ha))
		must(t, Copy(dd, da))
		checkSame(t, layout+" Copy", dd, hd, 0)
		must(t, Fill(hd, s))
		must(t, Fill(dd, s))
		checkSame(t, layout+" Fill", dd, hd, 0)
		must(t, Iota(hd, -2))
		must(t, Iota(dd, -2))
		checkSame(t, layout+" Iota", dd, hd, 0)
	}
	// Transpose: a dense destination from a transposed source.
	ha, da := twin[T](t, d, 7, "dense", []int{9, 13}, false)
	hd, dd := twin[T](t, d, 8, "dense", []int{13, 9}, false)
	must(t, Copy(hd, ha.Transpose(0, 1)))
	must(t, Copy(dd, da.Transpose(0, 1)))
	checkSame(t, "Transpose", dd, hd, 0)
}

func testDeviceReduce[T array.Elem](t *testing.T) {
	d := testDev(t)
	tol := devTol[T]()
	if tol != 0 {
		tol *= 4
	}
	for li, layout := range devLayouts {
		for _, ext := range [][]int{{300, 7}, {5, 1000}} {
			for dim := range 2 {
				for _, op := range []reduceOp{redSum, redProd, redMin, redMax, redMean} {
					ha, da := twin[T](t, d, uint64(li*10+dim), layout, ext, op == redProd)
					if op == redProd {
						// keep products finite: a short axis of values near 1
						ha, da = twin[T](t, d, uint64(li*10+dim), layout, []int{3 + ext[0]%5, 4 + ext[1]%3}, true)
					}
					oext := append([]int(nil), extentsOf(ha)...)
					oext = append(oext[:dim], oext[dim+1:]...)
					hd, dd := twin[T](t, d, 99, "dense", oext, false)
					must(t, reduce(op, hd, ha, dim))
					must(t, reduce(op, dd, da, dim))
					checkSame(t, layout+" "+reduceNames[op], dd, hd, tol)
				}
				for _, op := range []reduceOp{redArgMin, redArgMax} {
					ha, da := twin[T](t, d, uint64(li*10+dim+5), layout, ext, false)
					oext := append([]int(nil), extentsOf(ha)...)
					oext = append(oext[:dim], oext[dim+1:]...)
					hd, dd := twin[int64](t, d, 98, "dense", oext, false)
					must(t, reduce(op, hd, ha, dim))
					must(t, reduce(op, dd, da, dim))
					checkSame(t, layout+" "+reduceNames[op], dd, hd, 0)
				}
			}
		}
		ha, da := twin[T](t, d, uint64(li), layout, []int{1000, 3}, false)
		for _, op := range []reduceOp{redSum, redMin, redMax, redMean} {
			hv, err := reduceAllValue(op, ha)
			must(t, err)
			dv, err := reduceAllValue(op, da)
			must(t, err)
			if !closeTo(dv, hv, tol) {
				t.Errorf("%s %sAll: device %v, host %v", layout, reduceNames[op], dv, hv)
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeviceElementwise(t *testing.T) {
	run := sampled(t)
	run("int8", testDeviceElementwise[int8])
	run("uint8", testDeviceElementwise[uint8])
	run("int16", testDeviceElementwise[int16])
	run("uint16", testDeviceElementwise[uint16])
	run("int32", testDeviceElementwise[int32])
	run("uint32", testDeviceElementwise[uint32])
	run("int64", testDeviceElementwise[int64])
	run("uint64", testDeviceElementwise[uint64])
	run("float32", testDeviceElementwise[float32])
	run("float64", testDeviceElementwise[float64])
	run("float16", testDeviceElementwise[array.Float16])
	run("bfloat16", testDeviceElementwise[array.BFloat16])
}

func TestDeviceReduce(t *testing.T) {
	run := sampled(t)
	run("int8", testDeviceReduce[int8])
	run("uint8", testDeviceReduce[uint8])
	run("int16", testDeviceReduce[int16])
	run("uint16", testDeviceReduce[uint16])
	run("int32", testDeviceReduce[int32])
	run("uint32", testDeviceReduce[uint32])
	run("int64", testDeviceReduce[int64])
	run("uint64", testDeviceReduce[uint64])
	run("float32", testDeviceReduce[float32])
	run("float64", testDeviceReduce[float64])
	run("float16", testDeviceReduce[array.Float16])
	run("bfloat16", testDeviceReduce[array.BFloat16])
}

// The work-group join of reductions' partials in the two-pass path
// (red_*_fing, taken from 32 partials per output on a GPU) against the
// host, forced from 2 so that PoCL's CPU device, whose units never make
// 32, runs it; the one-pass path, on by default, is turned off.
func TestDeviceReduceJoinGroup(t *testing.T) {
	run := sampled(t)
	defer func(g int, one bool) { finGroup, reduceOnePass = g, one }(finGroup, reduceOnePass)
	finGroup, reduceOnePass = 2, false
	run("int8", testDeviceReduce[int8])
	run("uint32", testDeviceReduce[uint32])
	run("int64", testDeviceReduce[int64])
	run("float32", testDeviceReduce[float32])
	run("float64", testDeviceReduce[float64])
	run("float16", testDeviceReduce[array.Float16])
}

// testDeviceReduceEmpty: Sum, Prod and Mean over an empty dimension
// fill dst on the device with the host's values (a float mean is NaN);
// Min still panics.
func testDeviceReduceEmpty[T array.Elem](t *testing.T) {
	d := testDev(t)
	a := array.New[T](0, 4)
	for _, op := range []reduceOp{redSum, redProd, redMean} {
		hd, dd := twin[T](t, d, 1, "crop", []int{4}, false)
		must(t, Fill(dd, 7)) // device-dirty: the host path would copy it home
		must(t, reduce(op, hd, a, 0))
		guard.Set(true)
		err := reduce(op, dd, a, 0)
		guard.Set(false)
		must(t, err)
		checkSame(t, "empty "+reduceNames[op], dd, hd, 0)
	}
	if err := reduce(redMin, array.New[T](4), a, 0); !errors.Is(err, array.ErrShape) {
		t.Errorf("Min over an empty dimension: %v, want ErrShape", err)
	}
}

func TestDeviceReduceEmpty(t *testing.T) {
	t.Run("int16", testDeviceReduceEmpty[int16])
	t.Run("uint64", testDeviceReduceEmpty[uint64])
	t.Run("float32", testDeviceReduceEmpty[float32])
	t.Run("float64", testDeviceReduceEmpty[float64])
	t.Run("float16", testDeviceReduceEmpty[array.Float16])
	t.Run("bfloat16", testDeviceReduceEmpty[array.BFloat16])
}

// testDeviceArgAll: ArgMinAll and ArgMaxAll on the device pick the
// element the host picks (the first extreme, a NaN first, in the host's
// order), over views and sizes that take both kernel plans, on data with
// many ties. The operand is device-dirty and the guard is on, so the host
// path would fail.
func testDeviceArgAll[T array.Elem](t *testing.T) {
	d := testDev(t)
	k := kindOf[T]()
	for li, layout := range devLayouts {
		for ei, ext := range [][]int{{5, 3}, {1000, 3}, {7, 300}, {4, 5, 6}} {
			for _, nan := range []bool{false, true} {
				if nan && k != kFloat && k != kHalf {
					continue
				}
				mk := func() *array.Array[T] {
					r := rand.New(rand.NewPCG(uint64(li), uint64(ei)))
					return makeView(rand.New(rand.NewPCG(uint64(li), 8)), layout, ext, func() T {
						v := r.IntN(4) - 1
						switch {
						case nan && r.IntN(40) == 0:
							return fromF64[T](math.NaN())
						case k == kHalf:
							return fromF32[T](float32(v))
						}
						return T(v)
					})
				}
				ha, da := mk(), mk()
				must(t, On(d, da))
				must(t, Copy(da, da)) // device-dirty
				for _, f := range []func(*array.Array[T]) ([]int, error){ArgMinAll[T], ArgMaxAll[T]} {
					hc, err := f(ha)
					must(t, err)
					guard.Set(true)
					dc, err := f(da)
					guard.Set(false)
					must(t, err)
					if !slices.Equal(dc, hc) {
						t.Errorf("%s %v NaN %v: device %v, host %v", layout, ext, nan, dc, hc)
					}
				}
			}
		}
	}
}

func TestDeviceArgAll(t *testing.T) {
	run := sampled(t)
	run("int8", testDeviceArgAll[int8])
	run("uint8", testDeviceArgAll[uint8])
	run("int16", testDeviceArgAll[int16])
	run("uint16", testDeviceArgAll[uint16])
	run("int32", testDeviceArgAll[int32])
	run("uint32", testDeviceArgAll[uint32])
	run("int64", testDeviceArgAll[int64])
	run("uint64", testDeviceArgAll[uint64])
	run("float32", testDeviceArgAll[float32])
	run("float64", testDeviceArgAll[float64])
	run("float16", testDeviceArgAll[array.Float16])
	run("bfloat16", testDeviceArgAll[array.BFloat16])
}

// castViews are the layouts of a device cast's source and destination;
// a source of extent 1 in dimension 1 broadcasts.
var castViews = []struct {
	src, dst string
	bcast    bool
}{{"dense", "dense", false}, {"mins", "crop", false}, {"crop", "transposed", false}, {"transposed", "mins", false}, {"crop", "dense", true}}

// testDeviceCast checks a device cast against the host's, bit for bit
// (any NaN matches any NaN), on srcValues over views.
func testDeviceCast[D, S array.Elem](t *testing.T) {
	d := testDev(t)
	for vi, v := range castViews {
		for _, sat := range []bool{false, true} {
			vals := srcValues[S](rand.New(rand.NewPCG(uint64(vi), 3)))
			ext := []int{len(vals), 3}
			if v.bcast {
				ext[1] = 1
			}
			src := func() *array.Array[S] {
				i := 0
				return makeView(rand.New(rand.NewPCG(uint64(vi), 4)), v.src, ext, func() S { i++; return vals[(i*5)%len(vals)] })
			}
			hs, ds := src(), src()
			must(t, On(d, ds))
			hd, dd := twin[D](t, d, uint64(vi), v.dst, []int{len(vals), 3}, false)
			cast := CastWrap[D, S]
			if sat {
				cast = CastSaturate[D, S]
			}
			must(t, cast(hd, hs))
			must(t, cast(dd, ds))
			checkSame(t, fmt.Sprintf("%s → %s view %d saturate %v", typeName[S](), typeName[D](), vi, sat), dd, hd, 0)
		}
	}
}

func testDeviceCastFrom[S array.Elem](t *testing.T) {
	run := sampled(t) // the destinations too
	run("int8", testDeviceCast[int8, S])
	run("int16", testDeviceCast[int16, S])
	run("int32", testDeviceCast[int32, S])
	run("int64", testDeviceCast[int64, S])
	run("uint8", testDeviceCast[uint8, S])
	run("uint16", testDeviceCast[uint16, S])
	run("uint32", testDeviceCast[uint32, S])
	run("uint64", testDeviceCast[uint64, S])
	run("float32", testDeviceCast[float32, S])
	run("float64", testDeviceCast[float64, S])
	run("float16", testDeviceCast[array.Float16, S])
	run("bfloat16", testDeviceCast[array.BFloat16, S])
}

// TestDeviceCast runs every pair of element types, both rules (under
// -race a drawn type of each kernel family on each side: sampled).
func TestDeviceCast(t *testing.T) {
	run := sampled(t)
	run("int8", testDeviceCastFrom[int8])
	run("int16", testDeviceCastFrom[int16])
	run("int32", testDeviceCastFrom[int32])
	run("int64", testDeviceCastFrom[int64])
	run("uint8", testDeviceCastFrom[uint8])
	run("uint16", testDeviceCastFrom[uint16])
	run("uint32", testDeviceCastFrom[uint32])
	run("uint64", testDeviceCastFrom[uint64])
	run("float32", testDeviceCastFrom[float32])
	run("float64", testDeviceCastFrom[float64])
	run("float16", testDeviceCastFrom[array.Float16])
	run("bfloat16", testDeviceCastFrom[array.BFloat16])
}

// TestDeviceHalfBits: the device's Float16 and BFloat16 conversions give
// array.F16's and array.BF16's bits, NaN payloads included, for float32
// inputs around every rounding boundary (each upper half with low halves
// at and around the ties), and convert all 65536 values of each back
// exactly.
func TestDeviceHalfBits(t *testing.T) {
	d := testDev(t)
	var xs []float32
	for hi := range uint32(1 << 16) {
		for _, lo := range []uint32{0, 1, 0x0fff, 0x1000, 0x1001, 0x2000, 0x7fff, 0x8000, 0x8001, 0xffff} {
			xs = append(xs, math.Float32frombits(hi<<16|lo))
		}
	}
	src := array.New[float32](len(xs))
	h, _ := src.Host()
	copy(h.Data(), xs)
	must(t, On(d, src))
	checkHalfBits(t, d, src, xs, array.F16)
	checkHalfBits(t, d, src, xs, array.BF16)
	checkFromHalf(t, d, array.Float16.Float32)
	checkFromHalf(t, d, array.BFloat16.Float32)
}

func checkHalfBits[H array.Elem](t *testing.T, d *opencl.Device, src *array.Array[float32], xs []float32, want func(float32) H) {
	t.Helper()
	dst := array.New[H](len(xs))
	must(t, On(d, dst))
	must(t, CastWrap(dst, src))
	if !dst.DeviceDirty() {
		t.Fatalf("%s ← float32 did not run on the device", typeName[H]())
	}
	v, err := dst.HostReadOnly()
	must(t, err)
	bad := 0
	for i, x := range xs {
		if got := v.At(i); got != want(x) && bad < 3 { // H is uint16: bits
			bad++
			t.Errorf("%s(%#08x) = %#04x, want %#04x", typeName[H](), math.Float32bits(x), got, want(x))
		}
	}
}

func checkFromHalf[H array.Elem](t *testing.T, d *opencl.Device, want func(H) float32) {
	t.Helper()
	src, dst := array.New[H](1<<16), array.New[float32](1<<16)
	h, _ := src.Host()
	for i := range h.Data() {
		h.Data()[i] = H(i)
	}
	must(t, On(d, src, dst))
	must(t, CastWrap(dst, src))
	v, err := dst.HostReadOnly()
	must(t, err)
	for i := range 1 << 16 {
		if got, w := math.Float32bits(v.At(i)), math.Float32bits(want(H(i))); got != w {
			t.Fatalf("float32 ← %s %#04x = %#08x, want %#08x", typeName[H](), i, got, w)
		}
	}
}

func testDeviceMatMul[T Float](t *testing.T) {
	d := testDev(t)
	tol := 1e-4
	if sizeOf[T]() == 8 {
		tol = 1e-11
	}
	for _, sh := range [][3]int{{37, 45, 29}, {64, 32, 16}, {5, 1, 70}} {
		m, n, k := sh[0], sh[1], sh[2]
		for li, layout := range devLayouts {
			ha, da := twin[T](t, d, uint64(li+1), layout, []int{k, m}, false)
			hb, db := twin[T](t, d, uint64(li+2), "transposed", []int{n, k}, false)
			hd, dd := twin[T](t, d, 3, layout, []int{n, m}, false)
			must(t, MatMul(hd, ha, hb))
			must(t, MatMul(dd, da, db))
			checkSame(t, layout+" MatMul", dd, hd, tol*float64(k))
		}
	}
	// batched, b shared
	ha, da := twin[T](t, d, 1, "dense", []int{12, 8, 3}, false)
	hb, db := twin[T](t, d, 2, "dense", []int{16, 12}, false)
	hd, dd := twin[T](t, d, 3, "dense", []int{16, 8, 3}, false)
	must(t, MatMul(hd, ha, hb))
	must(t, MatMul(dd, da, db))
	checkSame(t, "batched MatMul", dd, hd, tol*12)
}

func TestDeviceMatMul(t *testing.T) {
	t.Run("float32", testDeviceMatMul[float32])
	t.Run("float64", testDeviceMatMul[float64])
}

// TestDeviceChainNoTransfer runs a chain of device ops under the transfer
// guard: after the explicit upload, nothing moves until the explicit
// download.
func TestDeviceChainNoTransfer(t *testing.T) {
	d := testDev(t)
	a := array.New[float32](64, 32)
	h, _ := a.Host()
	for i := range h.Data() {
		h.Data()[i] = float32(i % 17)
	}
	b := array.New[float32](64, 32)
	c := array.New[float32](32, 64)
	s := array.New[float32](64)
	m := array.New[float32](32, 32)
	bi := array.New[int8](64, 32)
	bh := array.New[array.Float16](32, 64)
	must(t, On(d, a, b, c, s, m, bi, bh))
	defer guard.Set(guard.Set(true))
	before := d.Stats()
	must(t, BinaryScalar(b, a, 2, OpMul))
	must(t, Binary(b, b, a, OpAdd)) // 3a
	must(t, Unary(b, b.Crop(0, 0, 64), OpExp))
	must(t, Unary(b, b, OpLog))
	must(t, Copy(c, b.Transpose(0, 1)))
	must(t, Sum(s, b, -2))
	must(t, MatMul(m, b.Crop(0, 0, 32), c.Crop(1, 0, 32)))
	tot, err := Value(Sum, s)
	must(t, err)
	must(t, CastWrap(bi, b))                      // float → integer, wrapping
	must(t, CastSaturate(bh, bi.Transpose(0, 1))) // → Float16
	must(t, CastWrap(b, bh.Transpose(0, 1)))      // Float16 →
	if _, err := ArgMaxAll(bh); err != nil {
		t.Fatal(err)
	}
	if _, err := ArgMinAll(b.Crop(1, 3, 20)); err != nil {
		t.Fatal(err)
	}
	delta := d.Stats().Sub(before)
	if delta.H2DCalls+delta.D2HCalls+delta.D2DCalls != 0 {
		t.Fatalf("a chain of device ops moved data: %v", delta)
	}
	if _, err := b.HostReadOnly(); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("automatic download under the guard: %v, want ErrTransferGuard", err)
	}
	guard.Set(false)
	want := 0.0
	for i := range 64 * 32 {
		want += 3 * float64(i%17)
	}
	if math.Abs(float64(tot)-want) > 1e-3*want {
		t.Fatalf("SumAll = %v, want %v", tot, want)
	}
	// A host-fresh operand joins a device chain with a counted upload, and
	// under the guard it is an error.
	x := array.New[float32](64, 32)
	guard.Set(true)
	if err := Binary(b, b, x, OpAdd); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("Add with a host-fresh operand under the guard: %v, want ErrTransferGuard", err)
	}
	guard.Set(false)
	before = d.Stats()
	must(t, Binary(b, b, x, OpAdd))
	if got := d.Stats().Sub(before); got.H2DCalls != 1 {
		t.Fatalf("upload of the host-fresh operand: %v, want one counted H2D", got)
	}
}

// TestDevicePlacement checks the rule: host data stays on the host,
// device-dirty data pulls the op to the device.
func TestDevicePlacement(t *testing.T) {
	d := testDev(t)
	a, b := array.New[int32](10), array.New[int32](10)
	must(t, Binary(b, a, a, OpAdd))
	if b.Device() != nil {
		t.Fatal("an op on host Arrays ran on a device")
	}
	must(t, On(d, a))
	must(t, BinaryScalar(a, a, 1, OpAdd)) // a current on d, dst a: device
	if !a.DeviceDirty() {
		t.Fatal("an op on an Array current on the device ran on the host")
	}
	must(t, Binary(b, a, a, OpAdd)) // a device-dirty: b follows it
	if !b.DeviceDirty() {
		t.Fatal("an op with a device-dirty operand ran on the host")
	}
	v, _ := b.HostReadOnly()
	if v.At(3) != 2 {
		t.Fatalf("b = %v, want 2s", v)
	}
	z := array.New[int32]() // 0-D: its device write must be recorded too
	must(t, Sum(z, b, -1))
	if !z.DeviceDirty() {
		t.Fatal("Sum into a 0-D Array: not device-dirty")
	}
	if zv, _ := z.HostReadOnly(); zv.At() != 20 {
		t.Fatalf("Sum into a 0-D Array = %v, want 20", zv.At())
	}
	// host-only dst: the host path, with a counted download of a
	f := array.FromSlice(make([]int32, 10), 10)
	must(t, BinaryScalar(a, a, 1, OpAdd))
	must(t, Binary(f, a, a, OpAdd))
	if f.Device() != nil || f.Raw().HostBytes()[0] != 4 {
		t.Fatalf("host-only dst: device %v, f[0] = %v", f.Device(), f.Raw().HostBytes()[0])
	}
}

func TestDeviceBuildError(t *testing.T) {
	d := testDev(t)
	s := stateOf(d)
	_, err := s.program(progKey{kind: "broken"}, func() string { return "__kernel void k(__global int *x) { x[0] = undefined_thing; }" })
	var be *opencl.BuildError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "undefined_thing") && !strings.Contains(be.Log(), "undefined_thing") {
		t.Fatalf("build error %v: want an *opencl.BuildError carrying the log", err)
	}
}

// BenchmarkDeviceTinyOp is a tiny op's cost on the host side (enqueue
// only; the queue runs it).
func BenchmarkDeviceTinyOp(b *testing.B) {
	d := testDev(b)
	x := array.New[float32](256)
	if err := On(d, x); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		if err := BinaryScalar(x, x, 1, OpAdd); err != nil {
			b.Fatal(err)
		}
	}
	d.Sync()
}

// TestDeviceNaN: NaN wins Min, Max and the argument reductions, the first
// one in index order, as on the host.
func TestDeviceNaN(t *testing.T) {
	d := testDev(t)
	nan := float32(math.NaN())
	vals := []float32{3, 1, nan, 0, nan, -2, 7}
	mk := func() *array.Array[float32] {
		a := array.New[float32](len(vals), 3)
		h, _ := a.Host()
		for y := range 3 {
			for x, v := range vals {
				if y == 1 && v != v {
					v = float32(x) // row 1 without NaNs
				}
				h.Set(v, x, y)
			}
		}
		return a
	}
	ha, da := mk(), mk()
	must(t, On(d, da))
	for _, op := range []reduceOp{redMin, redMax} {
		hd, dd := array.New[float32](3), array.New[float32](3)
		must(t, On(d, dd))
		must(t, reduce(op, hd, ha, 0))
		must(t, reduce(op, dd, da, 0))
		checkSame(t, reduceNames[op], dd, hd, 0)
	}
	for _, op := range []reduceOp{redArgMin, redArgMax} {
		hd, dd := array.New[int64](3), array.New[int64](3)
		must(t, On(d, dd))
		must(t, reduce(op, hd, ha, 0))
		must(t, reduce(op, dd, da, 0))
		checkSame(t, reduceNames[op], dd, hd, 0)
	}
}

// TestDeviceHostOnlyOp: an op the device cannot run (a 9-D view whose
// dimensions do not merge, beyond the kernels' 8) on a device-dirty
// operand runs on the host with a counted copy home, and under the guard
// it is an error.
func TestDeviceHostOnlyOp(t *testing.T) {
	d := testDev(t)
	ext := []int{3, 3, 3, 3, 3, 3, 3, 3, 3}
	a := array.New[float32](ext...)
	must(t, On(d, a))
	v, p := a, a
	for i := range ext {
		v, p = v.Crop(i, 0, 2), p.Crop(i, 1, 1)
	}
	// dense (one dimension after merging): on the device
	must(t, Fill(a, 1))
	must(t, Fill(p, 5))
	if !a.DeviceDirty() {
		t.Fatal("Fill of a dense Array current on the device ran on the host")
	}
	defer guard.Set(guard.Set(true))
	if _, err := ArgMaxAll(v); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("ArgMaxAll of a 9-D device-dirty view under the guard: %v, want ErrTransferGuard", err)
	}
	guard.Set(false)
	before := d.Stats()
	c, err := ArgMaxAll(v)
	must(t, err)
	if got := d.Stats().Sub(before); got.D2HBytes != 512*4 || got.H2DCalls+got.D2DCalls != 0 {
		t.Fatalf("ArgMaxAll moved %v, want the view's 2048 bytes home", got)
	}
	if !slices.Equal(c, []int{1, 1, 1, 1, 1, 1, 1, 1, 1}) {
		t.Fatalf("ArgMaxAll = %v, want all 1s", c)
	}
}

// TestDeviceStateRelease: ops' per-device state goes with its device, on
// Close and when a dropped Device is collected.
func TestDeviceStateRelease(t *testing.T) {
	testDev(t)
	run := func() *opencl.Device {
		d, err := opencl.Open(opencl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a := array.New[int32](8)
		must(t, On(d, a))
		must(t, BinaryScalar(a, a, 1, OpAdd))
		v, err := a.HostReadOnly()
		must(t, err)
		if v.At(0) != 1 {
			t.Fatalf("a = %v", v)
		}
		must(t, a.DeviceFree())
		return d
	}
	n := func() int { return int(liveStates.Load()) }
	n0 := n()
	d := run()
	if n() != n0+1 {
		t.Fatalf("%d device states, want %d", n(), n0+1)
	}
	must(t, d.Close())
	if n() != n0 {
		t.Fatalf("%d device states after Close, want %d", n(), n0)
	}
	wp := weak.Make(run())
	for i := 0; i < 20 && wp.Value() != nil; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if wp.Value() != nil {
		t.Fatal("a dropped Device that ops used is never collected")
	}
}

// TestDeviceTwoDevices: operands on two devices (PoCL split in halves)
// are an error that names MoveTo, before anything runs or moves: every
// operand keeps its value and residency and no device counts a copy.
// After an explicit MoveTo the same op runs on the common device.
func TestDeviceTwoDevices(t *testing.T) {
	d0, d1 := opencltest.Halves(t)
	a, b, dst := array.New[float32](64), array.New[float32](64), array.New[float32](64)
	must(t, Iota(a, -1))
	must(t, Fill(b, 2))
	must(t, Fill(dst, -1))
	m0, m1 := array.New[float32](8, 8), array.New[float32](8, 8)
	sum0, int0, cond1 := array.New[float32](1), array.New[int32](64), array.New[uint8](64)
	must(t, On(d0, a, dst, m0, sum0, int0))
	must(t, On(d1, b, m1, cond1))
	must(t, BinaryScalar(a, a, 1, OpAdd)) // device-dirty on d0
	must(t, BinaryScalar(b, b, 3, OpMul)) // device-dirty on d1
	s0, s1 := d0.Stats(), d1.Stats()
	ops := map[string]func() error{
		"Add":       func() error { return Binary(dst, a, b, OpAdd) },
		"Copy":      func() error { return Copy(dst, b) },
		"Where":     func() error { return Where(dst, cond1, a, a) },
		"Maximum":   func() error { return Binary(dst, b, b, OpMax) },
		"Sum":       func() error { return Sum(sum0, b, -1) },
		"host dst":  func() error { return Binary(array.FromSlice(make([]float32, 64), 64), a, b, OpAdd) },
		"CastWrap":  func() error { return CastWrap(int0, b) },
		"MatMul":    func() error { return MatMul(array.New[float32](8, 8), m0, m1) },
		"Compare":   func() error { return Compare(array.New[uint8](64), a, b, LT) },
		"DeviceDst": func() error { return Unary(dst, b, OpNeg) },
	}
	for name, op := range ops {
		err := op()
		if !errors.Is(err, device.ErrForeign) || !strings.Contains(err.Error(), "MoveTo") {
			t.Errorf("%s across devices: err = %v, want device.ErrForeign naming MoveTo", name, err)
		}
	}
	if g0, g1 := d0.Stats().Sub(s0), d1.Stats().Sub(s1); g0.H2DCalls+g0.D2HCalls+g0.PeerCalls+g1.H2DCalls+g1.D2HCalls+g1.PeerCalls != 0 {
		t.Errorf("refused ops moved data: %+v, %+v", g0, g1)
	}
	if !a.DeviceDirty() || a.Device() != d0 || !b.DeviceDirty() || b.Device() != d1 {
		t.Fatal("a refused op changed residency")
	}
	if _, err := b.MoveTo(d0); err != nil {
		t.Fatal(err)
	}
	must(t, Binary(dst, a, b, OpAdd))
	if !dst.DeviceDirty() || dst.Device() != d0 {
		t.Fatal("after MoveTo the op did not run on d0")
	}
	v, err := dst.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		if want := float32(i+1) + 6; v.At(i) != want {
			t.Fatalf("dst[%d] = %v, want %v", i, v.At(i), want)
		}
	}
}

// TestDeviceConcurrentReductions: reductions from several goroutines on
// one device each get their own result, though their partials pass
// through the device's one scratch buffer.
func TestDeviceConcurrentReductions(t *testing.T) {
	d := testDev(t)
	const workers, rounds, n = 4, 40, 1 << 14
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			errs <- func() error {
				a, rows := array.New[float32](n/64, 64), array.New[float32](64)
				if err := Fill(a, float32(w+1)); err != nil {
					return err
				}
				if err := On(d, a, rows); err != nil {
					return err
				}
				for r := range rounds {
					var got float32
					var err error
					if r%2 == 0 {
						got, err = Value(Sum, a)
					} else if err = Sum(rows, a, -1); err == nil {
						got, err = Value(Sum, rows)
					}
					if err != nil {
						return err
					}
					if want := float32(n * (w + 1)); got != want {
						return fmt.Errorf("worker %d round %d: sum %v, want %v", w, r, got, want)
					}
				}
				return nil
			}()
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestDeviceNoFP64: on a device without cl_khr_fp64 (simulated on a fresh
// PoCL device) float64 ops run on the host under the placement rule —
// the device-dirty input comes home in a counted copy, refused under the
// guard — while float32 ops, float32 normals among them, stay on the
// device.
func TestDeviceNoFP64(t *testing.T) {
	testDev(t)
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	stateOf(d).fp64 = false
	f32, f64 := array.New[float32](4, 4), array.New[float64](4, 4)
	must(t, On(d, f32, f64))
	must(t, Iota(f32, -1)) // on the device
	if !f32.DeviceDirty() {
		t.Fatal("float32 Iota did not run on the device")
	}
	// Float32 normals are float32 math: on the device, the host's bits.
	n32, host := array.New[float32](67), array.New[float32](67)
	must(t, On(d, n32))
	l0 := d.Stats().Launches
	must(t, RandNormal(n32, 7, 3))
	must(t, RandNormal(host, 7, 3))
	if !n32.DeviceDirty() || d.Stats().Launches != l0+1 {
		t.Fatal("float32 RandNormal did not run on a device without fp64")
	}
	nv, _ := n32.HostReadOnly()
	if hv, _ := host.HostReadOnly(); !slices.Equal(nv.Data(), hv.Data()) {
		t.Fatalf("float32 RandNormal without fp64 = %v, the host's %v", nv.Data(), hv.Data())
	}
	guard.Set(true)
	err = CastWrap(f64, f32)
	guard.Set(false)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("float64 cast of a device-dirty input under the guard: %v, want ErrTransferGuard", err)
	}
	s0 := d.Stats()
	must(t, CastWrap(f64, f32))
	r := array.New[float64](4, 4)
	must(t, On(d, r))
	must(t, MatMul(r, f64, f64))
	if f64.DeviceDirty() || r.DeviceDirty() {
		t.Fatal("a float64 op ran on a device without fp64")
	}
	if g := d.Stats().Sub(s0); g.D2HCalls != 1 {
		t.Errorf("float64 cast's download: %d D2H calls, want 1", g.D2HCalls)
	}
	m, err := Value(Sum, f32) // float32 sums accumulate in float on the device
	must(t, err)
	if m != 24 {
		t.Fatalf("SumAll = %v, want 24", m)
	}
	hv, _ := f64.HostReadOnly()
	h, want := array.FromSlice(slices.Clone(hv.Data()), 4, 4), array.New[float64](4, 4)
	must(t, MatMul(want, h, h))
	rv, _ := r.HostReadOnly()
	wv, _ := want.HostReadOnly()
	if !slices.Equal(rv.Data(), wv.Data()) || wv.At(1, 1) == 0 {
		t.Fatalf("float64 MatMul = %v, want %v", rv.Data(), wv.Data())
	}
}

// TestDeviceCPUAndGPU: PoCL's CPU device and a GPU (NVIDIA's on the H200
// machine), each in its own context. Ops follow the data to either; mixing
// them is refused; MoveTo stages between them (D2H on the sender, H2D on
// the receiver); every result equals the same ops on host-only Arrays.
// Skips without a GPU.
func TestDeviceCPUAndGPU(t *testing.T) {
	testDev(t)
	cpu, gpu := opencltest.CPUAndGPU(t)
	twoContexts(t, cpu, gpu)
}

// TestDeviceTwoContexts is TestDeviceCPUAndGPU on two contexts of the one
// CPU device, which CI has.
func TestDeviceTwoContexts(t *testing.T) {
	testDev(t)
	var ds [2]*opencl.Device
	for i := range ds {
		d, err := opencl.Open(opencl.Options{Platform: "Portable", Type: opencl.DeviceCPU})
		if err != nil {
			t.Skipf("no PoCL CPU device: %v", err)
		}
		defer d.Close()
		ds[i] = d
	}
	twoContexts(t, ds[0], ds[1])
}

// twoContexts: ops run where their Arrays live, on cpu or gpu; mixing is
// refused; MoveTo stages; the results equal host-only ops.
func twoContexts(t *testing.T, cpu, gpu *opencl.Device) {
	const w, h = 96, 64
	mk := func(d *opencl.Device) (a, b *array.Array[float32]) {
		a, b = array.New[float32](w, h), array.New[float32](w, h)
		if d != nil {
			must(t, On(d, a, b))
		}
		must(t, Iota(a, -1))
		must(t, BinaryScalar(a, a, 0.5, OpMul))
		must(t, Fill(b, 1))
		return a, b
	}
	ha, hb := mk(nil)
	a, _ := mk(cpu)
	_, b := mk(gpu)
	if a.Device() != device.Device(cpu) || !a.DeviceDirty() || b.Device() != device.Device(gpu) || !b.DeviceDirty() {
		t.Fatal("ops did not run where their Arrays live")
	}
	c0, g0 := cpu.Stats(), gpu.Stats()
	if err := Binary(b, a, b, OpAdd); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("Add across CPU and GPU: %v, want device.ErrForeign", err)
	}
	p, err := a.MoveTo(gpu)
	if err != nil || p != device.PathStaged {
		t.Fatalf("MoveTo(gpu): %v, %v; want a staged copy", p, err)
	}
	if c, g := cpu.Stats().Sub(c0), gpu.Stats().Sub(g0); c.D2HCalls == 0 || g.H2DCalls == 0 || c.PeerCalls+g.PeerCalls != 0 {
		t.Fatalf("staged MoveTo counted cpu %v, gpu %v", c, g)
	}
	must(t, Binary(b, a, b, OpAdd))
	must(t, Binary(hb, ha, hb, OpAdd))
	m, hm := array.New[float32](h, h), array.New[float32](h, h)
	must(t, On(gpu, m))
	must(t, MatMul(m, b, b.Transpose(0, 1)))
	must(t, MatMul(hm, hb, hb.Transpose(0, 1)))
	if !m.DeviceDirty() || m.Device() != device.Device(gpu) {
		t.Fatal("MatMul did not run on the GPU")
	}
	if _, err := m.MoveTo(cpu); err != nil {
		t.Fatal(err)
	}
	must(t, Unary(m, m, OpSqrt))
	must(t, Unary(hm, hm, OpSqrt))
	if m.Device() != device.Device(cpu) || !m.DeviceDirty() {
		t.Fatal("Sqrt did not run on the CPU device after MoveTo")
	}
	checkSame(t, "CPU+GPU chain", m, hm, 1e-4)
}
