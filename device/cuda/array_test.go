package cuda_test

import (
	"errors"
	"math"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
)

// TestArrayResidency walks an Array through the device path: On uploads
// once, a second On moves nothing, a crop's host view downloads only after
// a device write, Close of the device brings device-dirty data home.
func TestArrayResidency(t *testing.T) {
	d := open(t, cuda.Options{})
	a := array.New[float32](64, 48)
	defer a.Close()
	hv, _ := a.Host()
	data := hv.Data()
	for i := range data {
		data[i] = float32(i)
	}
	if err := ops.On(d, a); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.H2DCalls != 1 || s.H2DBytes != 64*48*4 || s.AllocsLive != 1 || a.Device() != device.Device(d) {
		t.Fatalf("after On: %v, device %v", s, a.Device())
	}
	if err := ops.On(d, a); err != nil || d.Stats().H2DCalls != 1 {
		t.Fatalf("second On moved data: %v %v", err, d.Stats())
	}
	// A device write: MatMul by the identity into b, resident.
	id := array.New[float32](64, 64)
	defer id.Close()
	iv, _ := id.Host()
	for i := range 64 {
		iv.Set(1, i, i)
	}
	b := array.New[float32](64, 48)
	defer b.Close()
	if err := ops.On(d, id); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	was := device.SetDeviceGuard(d, true)
	err := ops.MatMul(b, a, id)
	device.SetDeviceGuard(d, was)
	if err != nil {
		t.Fatalf("MatMul of resident operands under the guard: %v", err)
	}
	if s := d.Stats().Sub(before); s.Launches != 1 || s.H2DCalls != 0 || s.D2HCalls != 0 || !b.DeviceDirty() || b.Device() != device.Device(d) {
		t.Fatalf("MatMul: %v, dst device-dirty %v on %v", s, b.DeviceDirty(), b.Device())
	}
	crop := b.Crop(0, 8, 16).Crop(1, 4, 8)
	cv, err := crop.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	for y := 4; y < 12; y++ {
		for x := 8; x < 24; x++ {
			if got, want := cv.At(x, y), float32(y*64+x); got != want {
				t.Fatalf("b(%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	if s := d.Stats().Sub(before); s.D2HCalls != 1 || s.D2HBytes > 16*8*4*2 {
		t.Fatalf("the crop's view moved %v", s)
	}
	// Device-dirty again, then Close the device: the data comes home.
	if err := ops.MatMul(b, a, id); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	bv, err := b.HostReadOnly()
	if err != nil {
		t.Fatalf("after the device closed: %v", err)
	}
	if got := bv.At(63, 47); got != 47*64+63 {
		t.Fatalf("after Close b(63, 47) = %v", got)
	}
}

// TestMatMulCUDA multiplies views (dense, transposed, cropped, batched,
// shared batch operand) of every element type on cuBLAS and checks the
// result against a float64 product of the same elements, within the
// element type's tolerance, and that the work ran on the device.
func TestMatMulCUDA(t *testing.T) {
	d := open(t, cuda.Options{})
	for _, l := range []struct {
		name       string
		K, M, N    int
		batch      int
		transposed bool // a is the transpose of an (M, K) Array
	}{
		{"dense", 70, 50, 30, 0, false},
		{"square-256", 256, 256, 256, 0, false},
		{"a-transposed", 33, 17, 9, 0, true},
		{"batched", 16, 8, 12, 3, false},
		{"batched-transposed", 16, 8, 12, 2, true},
		{"vector", 100, 1, 1, 0, false},
	} {
		if raceEnabled && l.M*l.N*l.K > 1<<20 {
			continue // the race detector makes the host reference slow; the others cover the same paths
		}
		t.Run(l.name, func(t *testing.T) {
			exact := testMatMulF32(t, d, l.K, l.M, l.N, l.batch, l.transposed, device.PrecisionExact)
			tf32 := testMatMulF32(t, d, l.K, l.M, l.N, l.batch, l.transposed, device.PrecisionTF32)
			t.Logf("float32 largest error relative to Σ|a·b|: exact %.2g, TF32 %.2g", exact, tf32)
			testMatMulT[float64](t, d, l.K, l.M, l.N, l.batch, func(f float64) float64 { return f }, func(x float64) float64 { return x }, 1e-12)
			testMatMulT[array.Float16](t, d, l.K, l.M, l.N, l.batch, func(f float64) array.Float16 { return array.F16(float32(f)) }, func(x array.Float16) float64 { return float64(x.Float32()) }, 2e-3)
			testMatMulT[array.BFloat16](t, d, l.K, l.M, l.N, l.batch, func(f float64) array.BFloat16 { return array.BF16(float32(f)) }, func(x array.BFloat16) float64 { return float64(x.Float32()) }, 1e-2)
		})
	}
}

// operands makes a (K, M[, B]) and b (N, K[, B]) filled by f and dst (N,
// M[, B]); with transposed, a is the transpose of an (M, K) Array.
func operands[T array.Elem](K, M, N, batch int, transposed bool, f func(i int) T) (a, b, dst *array.Array[T], closeAll func()) {
	ext := func(x, y int) []int {
		if batch > 0 {
			return []int{x, y, batch}
		}
		return []int{x, y}
	}
	var root *array.Array[T]
	if transposed {
		root = array.New[T](ext(M, K)...)
		a = root.Transpose(0, 1)
	} else {
		root = array.New[T](ext(K, M)...)
		a = root
	}
	b, dst = array.New[T](ext(N, K)...), array.New[T](ext(N, M)...)
	for k, x := range []*array.Array[T]{root, b} {
		v, _ := x.Host()
		data := v.Data()
		for i := range data {
			data[i] = f(i*7 + k*3)
		}
	}
	return a, b, dst, func() { root.Close(); b.Close(); dst.Close() }
}

// check compares dst with the float64 product of a and b and returns the
// largest error relative to Σ|a·b|.
func check[T array.Elem](t *testing.T, a, b, dst *array.Array[T], val func(T) float64, tol float64) float64 {
	t.Helper()
	av, _ := a.HostReadOnly()
	bv, _ := b.HostReadOnly()
	dv, err := dst.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	K, M, N := a.Dim(0).Extent, a.Dim(1).Extent, b.Dim(0).Extent
	batch, worst := 1, 0.0
	if a.Rank() == 3 {
		batch = a.Dim(2).Extent
	}
	for z := range batch {
		c := func(x, y int) []int {
			if a.Rank() == 3 {
				return []int{x, y, z}
			}
			return []int{x, y}
		}
		for i := range M {
			for j := range N {
				want, scale := 0.0, 0.0
				for p := range K {
					x := val(av.At(c(p, i)...)) * val(bv.At(c(j, p)...))
					want += x
					scale += math.Abs(x)
				}
				got := val(dv.At(c(j, i)...))
				if math.Abs(got-want) > tol*max(scale, 1) {
					t.Fatalf("%T dst(%d, %d, %d) = %v, want %v (tolerance %g of %g)", *new(T), j, i, z, got, want, tol, scale)
				}
				worst = max(worst, math.Abs(got-want)/max(scale, 1))
			}
		}
	}
	return worst
}

func small(i int) float64 { return float64(i%13-6) / 8 }

func testMatMulF32(t *testing.T, d *cuda.Device, K, M, N, batch int, transposed bool, p device.Precision) float64 {
	a, b, dst, done := operands(K, M, N, batch, transposed, func(i int) float32 { return float32(math.Sin(float64(i))) })
	defer done()
	if err := ops.On(d, a, b); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	if err := ops.MatMulWith(dst, a, b, p); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.Launches < 1 || s.H2DCalls != 0 || s.D2HCalls != 0 || dst.Device() != device.Device(d) {
		t.Fatalf("float32 %v: %v on %v", p, s, dst.Device())
	}
	// Exact float32 sums stay within a few ulps of Σ|a·b| (cuBLAS sums
	// in blocks); TF32 rounds each operand to 10 mantissa bits, about
	// 1e-3 relative: the exact bound would catch TF32 used unasked.
	tol := 2e-5
	if p == device.PrecisionTF32 {
		tol = 4e-3
	}
	return check(t, a, b, dst, func(x float32) float64 { return float64(x) }, tol)
}

func testMatMulT[T ops.MatElem](t *testing.T, d *cuda.Device, K, M, N, batch int, conv func(float64) T, val func(T) float64, tol float64) {
	a, b, dst, done := operands(K, M, N, batch, false, func(i int) T { return conv(small(i)) })
	defer done()
	if err := ops.On(d, a, b); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	if err := ops.MatMulWith(dst, a, b, device.PrecisionExact); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.Launches != 1 || s.H2DCalls != 0 || s.D2HCalls != 0 {
		t.Fatalf("%T: %v", *new(T), s)
	}
	check(t, a, b, dst, val, tol)
}

// TestMatMulNoUnitStride: an operand with no unit stride (a slice of
// interleaved pairs) goes through a dense temporary on the device,
// counted as D2D, never through the host.
func TestMatMulNoUnitStride(t *testing.T) {
	d := open(t, cuda.Options{})
	const K, M, N = 20, 12, 10
	pairs := array.New[float32](2, K, M)
	defer pairs.Close()
	pv, _ := pairs.Host()
	for i := range pv.Data() {
		pv.Data()[i] = float32(i%9) - 4
	}
	a := pairs.Slice(0, 1) // (K, M), strides (2, 2K)
	if a.Dim(0).Stride == 1 || a.Dim(1).Stride == 1 {
		t.Fatalf("the slice has a unit stride: %v", a.Dims())
	}
	_, b, dst, done := operands(K, M, N, 0, false, func(i int) float32 { return float32(i%7) - 3 })
	defer done()
	if err := ops.On(d, pairs, b); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	if err := ops.MatMul(dst, a, b); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.D2DBytes != K*M*4 || s.H2DCalls != 0 || s.D2HCalls != 0 || s.Launches != 1 {
		t.Fatalf("MatMul with a strided operand: %v", s)
	}
	check(t, a, b, dst, func(x float32) float64 { return float64(x) }, 1e-5)
}

// TestMoveBetween moves a device-dirty Array from an OpenCL device to the
// CUDA device and back: staged through the host, counted on both sides.
func TestMoveBetween(t *testing.T) {
	d := open(t, cuda.Options{})
	o, err := opencl.Default()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	a, b, dst, done := operands(64, 32, 16, 0, false, func(i int) float32 { return float32(i%5) - 2 })
	defer done()
	if err := ops.On(o, a, b); err != nil {
		t.Fatal(err)
	}
	if err := ops.MatMul(dst, a, b); err != nil {
		t.Fatal(err)
	}
	if !dst.DeviceDirty() || dst.Device() != device.Device(o) {
		t.Fatalf("MatMul on %s left dst on %v, device-dirty %v", o.Name(), dst.Device(), dst.DeviceDirty())
	}
	ob, cb := o.Stats(), d.Stats()
	path, err := dst.MoveTo(d)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(16 * 32 * 4)
	if so, sc := o.Stats().Sub(ob), d.Stats().Sub(cb); path != device.PathStaged || so.D2HBytes != n || sc.H2DBytes != n || sc.PeerCalls != 0 {
		t.Fatalf("MoveTo %s: path %v, %s: %v; %s: %v", d.Name(), path, o.Name(), so, d.Name(), sc)
	}
	if dst.Device() != device.Device(d) || !dst.DeviceDirty() {
		t.Fatalf("after MoveTo: on %v, device-dirty %v", dst.Device(), dst.DeviceDirty())
	}
	check(t, a, b, dst, func(x float32) float64 { return float64(x) }, 1e-5)
	if _, err := dst.MoveTo(o); err != nil {
		t.Fatal(err)
	}
	check(t, a, b, dst, func(x float32) float64 { return float64(x) }, 1e-5)
}

// TestGuardRefusesAutomatic: under the device's guard, a host view of a
// device-dirty Array is refused before anything moves.
func TestGuardRefusesAutomatic(t *testing.T) {
	d := open(t, cuda.Options{})
	a, b, dst, done := operands(8, 8, 8, 0, false, func(i int) float32 { return 1 })
	defer done()
	if err := ops.On(d, a, b); err != nil {
		t.Fatal(err)
	}
	if err := ops.MatMul(dst, a, b); err != nil {
		t.Fatal(err)
	}
	was := device.SetDeviceGuard(d, true)
	before := d.Stats()
	_, err := dst.HostReadOnly()
	device.SetDeviceGuard(d, was)
	if !errors.Is(err, device.ErrTransferGuard) || d.Stats().Sub(before).D2HCalls != 0 {
		t.Fatalf("host view under the guard: %v, %v", err, d.Stats().Sub(before))
	}
	if err := dst.CopyToHost(); err != nil {
		t.Fatalf("explicit CopyToHost: %v", err)
	}
}

// TestHostFallback: an op with no CUDA form (kernels off, as without
// NVRTC) on a device-dirty operand runs on the host with one counted
// download, refused under the guard.
func TestHostFallback(t *testing.T) {
	d := open(t, cuda.Options{NoKernels: true})
	a, b, dst, done := operands(8, 6, 4, 0, false, func(i int) float32 { return float32(i % 3) })
	defer done()
	if err := ops.On(d, a, b); err != nil {
		t.Fatal(err)
	}
	if err := ops.MatMul(dst, a, b); err != nil {
		t.Fatal(err)
	}
	out := array.New[float32](4, 6)
	defer out.Close()
	was := device.SetDeviceGuard(d, true)
	err := ops.BinaryScalar(out, dst, 1, ops.OpAdd)
	device.SetDeviceGuard(d, was)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("AddScalar of a device-dirty operand under the guard: %v", err)
	}
	before := d.Stats()
	if err := ops.BinaryScalar(out, dst, 1, ops.OpAdd); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.D2HCalls != 1 || s.D2HBytes != 4*6*4 || out.Device() != nil {
		t.Fatalf("AddScalar on the host: %v, out on %v", s, out.Device())
	}
	ov, _ := out.HostReadOnly()
	dv, _ := dst.HostReadOnly()
	if ov.At(3, 5) != dv.At(3, 5)+1 {
		t.Fatalf("out(3, 5) = %v, dst(3, 5) = %v", ov.At(3, 5), dv.At(3, 5))
	}
}

// TestMoveBetweenCUDA moves a device-dirty Array between two Devices on
// one GPU: one device-to-device copy, counted as Peer, no host.
func TestMoveBetweenCUDA(t *testing.T) {
	d1, d2 := open(t, cuda.Options{}), open(t, cuda.Options{})
	a, b, dst, done := operands(16, 8, 4, 0, false, func(i int) float32 { return float32(i%5) - 2 })
	defer done()
	if err := ops.On(d1, a, b); err != nil {
		t.Fatal(err)
	}
	if err := ops.MatMul(dst, a, b); err != nil {
		t.Fatal(err)
	}
	s1, s2 := d1.Stats(), d2.Stats()
	path, err := dst.MoveTo(d2)
	if err != nil {
		t.Fatal(err)
	}
	if from, to := d1.Stats().Sub(s1), d2.Stats().Sub(s2); path != device.PathDirect || from.D2HCalls != 0 || to.H2DCalls != 0 || to.PeerBytes != 4*8*4 {
		t.Fatalf("MoveTo: path %v, source %v, destination %v", path, from, to)
	}
	check(t, a, b, dst, func(x float32) float64 { return float64(x) }, 1e-5)
}
