package halide_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/scale3d"
	"github.com/resident-go/resident/ops"
)

// cuDevice is the default CUDA device, or a skip naming what is missing.
func cuDevice(t testing.TB) *cuda.Device {
	t.Helper()
	d := cuDeviceOrMock(t)
	if strings.Contains(strings.ToLower(d.Name()), "mock") {
		t.Skip("the mock libcuda runs no PTX: this test launches kernels (it runs on a GPU)")
	}
	return d
}

// cuDeviceOrMock is cuDevice for tests that launch no kernel, which also
// run on the mock libcuda (TestCUDAMock).
func cuDeviceOrMock(t testing.TB) *cuda.Device {
	t.Helper()
	d, err := halide.DefaultDevice("CUDA")
	if err != nil {
		t.Skip("no CUDA device (these tests run on a GPU, e.g. bin/halide.test on the H200, and on the mock: TestCUDAMock):", err)
	}
	return d.(*cuda.Device)
}

// Only the first call uploads; then brighter_cuda runs N times on the
// resident Arrays with no transfer at all (device Stats, and the copies
// Halide's CUDA runtime might make by itself), on the Device's context,
// and the values are the host pipeline's.
func TestCUDAResident(t *testing.T) {
	d := cuDevice(t)
	if api := brighter.BrighterCudaPipeline.API(); api != "CUDA" {
		t.Fatalf("brighter_cuda: API %q, want CUDA", api)
	}
	const w, h, n = 257, 131, 8 // odd sizes: the guarded tails run
	src := pattern(w, h)
	a, b := array.New[uint8](w, h), array.New[uint8](w, h)
	av, _ := a.Host()
	copy(av.Data(), src)
	defer a.Close()
	defer b.Close()
	ref := array.New[uint8](w, h) // the host pipeline's chain
	defer ref.Close()
	tmp := array.FromSlice(append([]uint8(nil), src...), w, h)

	before, acq := d.Stats(), halide.CUDAAcquires(d)
	if err := brighter.BrighterCuda(a, 3, b); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.H2DCalls != 1 || s.D2HCalls != 0 {
		t.Fatalf("first call: %v, want one upload", s)
	}
	if b.Device() != device.Device(d) || !b.DeviceDirty() || a.Device() != device.Device(d) {
		t.Fatalf("after the call: input on %v, output on %v device-dirty %v, want both on %s", a.Device(), b.Device(), b.DeviceDirty(), d.Name())
	}
	if err := brighter.BrighterHost(tmp, 3, ref); err != nil {
		t.Fatal(err)
	}
	mid := d.Stats()
	rr, rw := halide.CUDARuntimeTransfers()
	x, y := b, a
	for i := 1; i < n; i++ {
		if err := brighter.BrighterCuda(x, 3, y); err != nil {
			t.Fatal(err)
		}
		x, y = y, x
		if err := brighter.BrighterHost(ref, 3, tmp); err != nil {
			t.Fatal(err)
		}
		ref, tmp = tmp, ref
	}
	if s := d.Stats().Sub(mid); s.H2DCalls+s.D2HCalls+s.D2DCalls+s.PeerCalls != 0 || s.AllocsTotal != 0 || s.AllocsLive != mid.AllocsLive {
		t.Errorf("%d resident calls moved data: %v", n-1, s)
	}
	if r, w := halide.CUDARuntimeTransfers(); r != rr || w != rw {
		t.Errorf("Halide's runtime copied by itself: %d reads, %d writes", r-rr, w-rw)
	}
	if got := halide.CUDAAcquires(d) - acq; got < n {
		t.Errorf("%d acquires of the Device's context for %d calls", got, n)
	}
	mid = d.Stats()
	got, err := x.HostReadOnly() // the one download
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(mid); s.D2HCalls != 1 {
		t.Errorf("reading the result: %v, want one download", s)
	}
	want, _ := ref.HostReadOnly()
	for i := range want.Data() {
		if got.Data()[i] != want.Data()[i] {
			t.Fatalf("element %d: %d, the host pipeline %d", i, got.Data()[i], want.Data()[i])
		}
	}
}

// A host-only output (a Go slice) comes back when the call returns, its
// temporary device copy freed; a host-only input goes up for the call only.
func TestCUDAHostOnly(t *testing.T) {
	d := cuDevice(t)
	const w, h, k = 100, 37, 200
	src := pattern(w, h)
	in := array.FromSlice(append([]uint8(nil), src...), w, h)
	outData := make([]uint8, w*h)
	out := array.FromSlice(outData, w, h)
	before := d.Stats()
	if err := brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, in, uint8(k), out); err != nil {
		t.Fatal(err)
	}
	s := d.Stats().Sub(before)
	if s.H2DCalls != 1 || s.D2HCalls != 1 || s.AllocsLive != 0 {
		t.Errorf("host-only call: %v, want one upload, one download, nothing left allocated", s)
	}
	if in.Device() != nil || out.Device() != nil {
		t.Errorf("host-only Arrays kept a device copy: %v, %v", in.Device(), out.Device())
	}
	for i, x := range src {
		if outData[i] != satAdd(x, k) {
			t.Fatalf("element %d: %d, want %d", i, outData[i], satAdd(x, k))
		}
	}
	// A crop at an odd byte offset runs in place: a CUdeviceptr takes any
	// offset, so no aligned temporary (no device copy).
	a, b := array.New[uint8](w, h), array.New[uint8](w, h)
	defer a.Close()
	defer b.Close()
	av, _ := a.Host()
	copy(av.Data(), src)
	if err := brighter.BrighterCuda(a, 1, b); err != nil {
		t.Fatal(err)
	}
	before = d.Stats()
	ca, cb := b.Crop(0, 3, w-5).Crop(1, 1, h-2), a.Crop(0, 3, w-5).Crop(1, 1, h-2)
	if err := brighter.BrighterCuda(ca, 1, cb); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.D2DCalls+s.H2DCalls+s.D2HCalls != 0 {
		t.Errorf("a call on unaligned crops: %v, want no copy", s)
	}
	av2, _ := a.HostReadOnly()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			want := satAdd(src[y*w+x], 1) // the first call wrote b; a is src
			if x >= 3 && x < w-2 && y >= 1 && y < h-1 {
				want = satAdd(want, 1)
			} else {
				want = src[y*w+x]
			}
			if av2.Data()[y*w+x] != want {
				t.Fatalf("(%d, %d): %d, want %d", x, y, av2.Data()[y*w+x], want)
			}
		}
	}
}

// Under the transfer guard a call that would copy is refused before
// anything moves or is allocated; the resident chain runs.
func TestCUDAGuard(t *testing.T) {
	d := cuDevice(t)
	const w, h = 64, 16
	a, b := array.New[uint8](w, h), array.New[uint8](w, h)
	defer a.Close()
	defer b.Close()
	if err := brighter.BrighterCuda(a, 1, b); err != nil {
		t.Fatal(err)
	}
	guard := halide.Options{Guard: true}
	if err := brighter.BrighterCudaPipeline.CallWith(guard, b, uint8(1), a); err != nil {
		t.Fatalf("resident call under the guard: %v", err)
	}
	before := d.Stats()
	out := array.FromSlice(make([]uint8, w*h), w, h)
	if err := brighter.BrighterCudaPipeline.CallWith(guard, a, uint8(1), out); !errors.Is(err, device.ErrTransferGuard) {
		t.Errorf("host-only output under the guard: %v, want ErrTransferGuard", err)
	}
	fresh := array.New[uint8](w, h) // host-dirty: needs an upload
	defer fresh.Close()
	if err := brighter.BrighterCudaPipeline.CallWith(guard, fresh, uint8(1), b); !errors.Is(err, device.ErrTransferGuard) {
		t.Errorf("upload under the guard: %v, want ErrTransferGuard", err)
	}
	// Sub keeps the levels (live, cached) as they are: compare those.
	if s := d.Stats().Sub(before); s.H2DCalls+s.D2HCalls+s.D2DCalls+s.PeerCalls+s.AllocsTotal+s.Launches != 0 || s.AllocsLive != before.AllocsLive {
		t.Errorf("refused calls moved or allocated: %v", s)
	}
}

// A CUDA pipeline's output feeds ops.MatMul (cuBLAS) on the same Device
// with no transfer between them: scale3d_cuda writes (n, n, 1), its slice
// is MatMul's left operand.
func TestCUDAChainMatMul(t *testing.T) {
	d := cuDevice(t)
	const n = 48
	in, bias, out := array.New[float32](n, n, 1), array.New[float32](1), array.New[float32](n, n, 1)
	b, dst := array.New[float32](n, n), array.New[float32](n, n)
	for _, a := range []*array.Array[float32]{in, bias, out, b, dst} {
		defer a.Close()
	}
	iv, _ := in.Host()
	for i := range iv.Data() {
		iv.Data()[i] = float32(i%11) - 5
	}
	bv, _ := bias.Host()
	bv.Data()[0] = 0.5
	hb, _ := b.Host()
	for i := range hb.Data() {
		hb.Data()[i] = float32(i%7) - 3
	}
	if err := b.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if err := scale3d.Scale3dCuda(in, bias, float32(2), out); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	if err := ops.MatMul(dst, out.Slice(2, 0), b); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.H2DCalls+s.D2HCalls != 0 || dst.Device() != device.Device(d) || !dst.DeviceDirty() {
		t.Fatalf("MatMul after the pipeline: %v, dst on %v device-dirty %v", s, dst.Device(), dst.DeviceDirty())
	}
	iv2, _ := in.HostReadOnly()
	hb2, _ := b.HostReadOnly()
	got, _ := dst.HostReadOnly()
	for y := range n {
		for x := range n {
			var want float64
			for k := range n {
				want += float64(iv2.Data()[y*n+k]*2+0.5) * float64(hb2.Data()[k*n+x])
			}
			if g := float64(got.Data()[y*n+x]); math.Abs(g-want) > 1e-3*math.Max(1, math.Abs(want)) {
				t.Fatalf("(%d, %d): %g, want %g", x, y, g, want)
			}
		}
	}
}

// A runtime failure (the input too small for the output: Halide's bounds
// check) returns an error and leaves every Array as it was (the output not
// marked written, the input in sync), and once the Arrays are closed the
// Device holds nothing more than before.
func TestCUDAFailureLeaksNothing(t *testing.T) {
	d := cuDeviceOrMock(t) // Halide checks bounds before it launches
	before := d.Stats()
	in, out := array.New[uint8](8, 8), array.New[uint8](16, 16)
	if err := in.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	err := brighter.BrighterCuda(in, 1, out)
	if !errors.Is(err, halide.ErrAccessOutOfBounds) {
		t.Fatalf("input smaller than the output: %v, want ErrAccessOutOfBounds", err)
	}
	if out.DeviceDirty() || in.DeviceDirty() || in.HostDirty() {
		t.Errorf("a failed call changed residency: out device-dirty %v, in device-dirty %v host-dirty %v", out.DeviceDirty(), in.DeviceDirty(), in.HostDirty())
	}
	if s := d.Stats().Sub(before); s.H2DCalls != 1 || s.D2HCalls != 0 {
		t.Errorf("a failed call moved data: %v (the one upload is CopyToDevice's)", s)
	}
	in.Close()
	out.Close()
	if s := d.Stats().Sub(before); s.AllocsLive != 0 || s.BytesLive != 0 {
		t.Errorf("after closing the Arrays the device holds %d more allocations, %d more bytes", s.AllocsLive, s.BytesLive)
	}
}

// A CUDA pipeline refuses a device of another kind, chosen or where its
// Arrays live, before anything moves. Runs without CUDA (device/sim).
func TestCUDAWrongDevice(t *testing.T) {
	sd := sim.New("other", 0)
	defer sd.Close()
	const w, h = 16, 8
	in, out := array.New[uint8](w, h), array.New[uint8](w, h)
	defer in.Close()
	defer out.Close()
	err := brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: sd}, in, uint8(1), out)
	if !errors.Is(err, halide.ErrNoDevice) || !strings.Contains(err.Error(), "not a CUDA device") {
		t.Errorf("Options.Device a sim device: %v, want ErrNoDevice naming the fix", err)
	}
	if err := in.CopyToDevice(sd); err != nil {
		t.Fatal(err)
	}
	in.SetDeviceDirty(true)
	err = brighter.BrighterCuda(in, 1, out)
	if !errors.Is(err, device.ErrForeign) || !strings.Contains(err.Error(), "not a CUDA device") {
		t.Errorf("input on sim: %v, want ErrForeign naming the fix", err)
	}
	if s := sd.Stats(); s.D2HCalls != 0 || s.AllocsLive != 1 || out.Device() != nil {
		t.Errorf("refused calls moved or allocated: %v, out on %v", s, out.Device())
	}
}

// A closed Device refuses the call with ErrDeviceClosed (wrapping
// cuda.ErrClosed) and nothing runs.
func TestCUDAClosedDevice(t *testing.T) {
	cuDevice(t)
	d, err := cuda.Open(cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const w, h = 32, 8
	in, out := array.New[uint8](w, h), array.New[uint8](w, h)
	defer in.Close()
	defer out.Close()
	if err := brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, in, uint8(2), out); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if in.Device() != nil || out.Device() != nil {
		t.Errorf("Close left Arrays on the device: %v, %v", in.Device(), out.Device())
	}
	err = brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, in, uint8(2), out)
	if !errors.Is(err, halide.ErrDeviceClosed) || !errors.Is(err, cuda.ErrClosed) {
		t.Errorf("call on a closed device: %v, want ErrDeviceClosed wrapping cuda.ErrClosed", err)
	}
	ov, _ := out.HostReadOnly()
	for i := range ov.Data() {
		if ov.Data()[i] != 2 { // out = satAdd(0, 2): the first call, brought home by Close
			t.Fatalf("element %d: %d, want 2", i, ov.Data()[i])
		}
	}
	// The default device still runs.
	if err := brighter.BrighterCuda(in, 1, out); err != nil {
		t.Fatal(err)
	}
}
