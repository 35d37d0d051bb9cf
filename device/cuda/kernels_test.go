package cuda_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
	"github.com/resident-go/resident/internal/clcuda"
	"github.com/resident-go/resident/ops"
)

// TestNoKernels: without NVRTC (here with Options.NoKernels, and on the
// mock, whose first run has no libnvrtc), Caps().OpenCLC is false,
// Compile fails wrapping ErrNoNVRTC and saying why, and ops on resident
// Arrays run on the host with counted copies; MatMul still runs cuBLAS.
func TestNoKernels(t *testing.T) {
	for _, o := range []cuda.Options{{NoKernels: true}, {}} {
		d := open(t, o)
		if d.Caps().OpenCLC {
			if o.NoKernels {
				t.Fatal("Options.NoKernels, yet Caps().OpenCLC")
			}
			continue // NVRTC is here: TestMockKernels and TestCUDAOps cover it
		}
		_, err := d.Compile("__kernel void k(__global int *a) { a[0] = 1; }", "")
		if !errors.Is(err, cuda.ErrNoNVRTC) {
			t.Fatalf("Compile without NVRTC: %v, want ErrNoNVRTC", err)
		}
		why := "libnvrtc"
		if o.NoKernels {
			why = "NoKernels"
		}
		if !strings.Contains(err.Error(), why) {
			t.Fatalf("Compile's error %q does not name %s", err, why)
		}
		a := array.New[float32](100)
		b := array.New[float32](100)
		defer a.Close()
		defer b.Close()
		ops.Fill(a, 2)
		if err := ops.On(d, a, b); err != nil {
			t.Fatal(err)
		}
		if err := ops.Binary(b, a, a, ops.OpAdd); err != nil {
			t.Fatal(err)
		}
		before := d.Stats()
		if err := ops.Binary(b, b, a, ops.OpAdd); err != nil { // b host-newer now: the host path reads a home
			t.Fatal(err)
		}
		if s := d.Stats().Sub(before); s.Launches != 0 || b.DeviceDirty() {
			t.Fatalf("Add without kernels: %v, b device-dirty %v", s, b.DeviceDirty())
		}
		v, _ := b.HostReadOnly()
		if v.At(7) != 6 {
			t.Fatalf("b[7] = %v, want 6", v.At(7))
		}
	}
}

// storeSrc is a kernel the mock runs (mock_store: it writes its
// parameters' bytes through its first one) with one parameter of each
// kind.
const storeSrc = `typedef struct { long a, b; } pair_t;
__kernel void mock_store(__global ulong *out, __global uchar *buf, __local float *lm, int i32, long i64, pair_t pr, __local double *lm2, float f, uchar u8) {
	if (get_global_id(0) == 0) { out[0] = (ulong)buf; lm[0] = f; lm2[0] = lm[0]; out[1] = (ulong)lm2[0]; }
}
__kernel void other(__global int *a) { a[get_global_id(0)] = 1; }
`

// TestMockKernels (mock with NVRTC only): Compile, Kernel, Enqueue's
// argument passing end to end (the mock's mock_store writes what the
// driver received), its refusals, CopyBytes and ReadBytes, Release, and
// after Close no module or NVRTC program left.
func TestMockKernels(t *testing.T) {
	if !cudatest.InChild() {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	func() {
		keep := t.TempDir() // Options.KeepRejected
		d := open(t, cuda.Options{KeepRejected: keep})
		if !d.Caps().OpenCLC || !device.BuildsOpenCLC(d.Caps()) {
			t.Fatalf("caps %+v: the mock NVRTC is there", d.Caps())
		}
		p, err := d.Compile(storeSrc, "-DFP64 -cl-mad-enable")
		if err != nil {
			t.Fatal(err)
		}
		k, err := p.Kernel("mock_store")
		if err != nil || k.Name() != "mock_store" {
			t.Fatalf("Kernel: %v", err)
		}
		if _, err := p.Kernel("missing"); err == nil || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("Kernel of no such name: %v", err)
		}
		out, _ := d.Malloc(256)
		buf, _ := d.Malloc(64)
		pair := make([]byte, 16)
		binary.LittleEndian.PutUint64(pair, 11)
		binary.LittleEndian.PutUint64(pair[8:], 22)
		args := []any{device.Buffer(out.Native()), device.Buffer(buf.Native()), device.Local(10), int32(-5), int64(1 << 40),
			pair, device.Local(60000), float32(1.5), uint8(200)}
		before := d.Stats()
		if err := d.Enqueue(k, device.Grid{Dims: 1, Global: [3]int{1000}}, args); err != nil {
			t.Fatal(err)
		}
		if n := d.Stats().Sub(before).Launches; n != 1 {
			t.Fatalf("%d launches counted, want 1", n)
		}
		got := make([]byte, 8*16)
		if err := d.ReadBytes(got, device.Buffer(out.Native()), 0); err != nil {
			t.Fatal(err)
		}
		w := func(i int) uint64 { return binary.LittleEndian.Uint64(got[8*i:]) }
		want := []uint64{uint64(buf.Native()), 0, 0xfffffffb, 1 << 40, 11, 22, 16, uint64(math.Float32bits(1.5)), 200,
			4, 1, 1, 250, 1, 1, 16 + 60000} // then grid, block, shared bytes
		for i, x := range want {
			if w(i) != x {
				t.Errorf("word %d the driver received: %#x, want %#x", i, w(i), x)
			}
		}
		if s := d.Stats().Sub(before); s.D2HCalls != 0 || s.D2DCalls != 0 {
			t.Errorf("ReadBytes counted as a transfer: %v", s)
		}
		// refusals, none of them launched
		before = d.Stats()
		for _, c := range []struct {
			g    device.Grid
			args []any
		}{
			{device.Grid{Dims: 1, Global: [3]int{1000}}, args[:5]},                                                       // too few
			{device.Grid{Dims: 1, Global: [3]int{1000}}, append(args[:8:8], int32(200))},                                 // 4 bytes for a uchar
			{device.Grid{Dims: 1, Global: [3]int{1000}, Local: [3]int{300}}, args},                                       // 300 ∤ 1000
			{device.Grid{Dims: 1, Global: [3]int{1000}}, append(args[:6:6], device.Local(300000), float32(1), uint8(1))}, // too much local memory
		} {
			if err := d.Enqueue(k, c.g, c.args); err == nil {
				t.Errorf("Enqueue(%+v, %d args) did not fail", c.g, len(c.args))
			}
		}
		if n := d.Stats().Sub(before).Launches; n != 0 {
			t.Fatalf("%d refused launches counted", n)
		}
		// CopyBytes: an op's copy, a launch, not a transfer
		if err := d.CopyBytes(device.Buffer(buf.Native()), 8, device.Buffer(out.Native()), 0, 16); err != nil {
			t.Fatal(err)
		}
		two := make([]byte, 16)
		if err := d.ReadBytes(two, device.Buffer(buf.Native()), 8); err != nil || binary.LittleEndian.Uint64(two) != uint64(buf.Native()) {
			t.Fatalf("CopyBytes then ReadBytes: %v, %x", err, two)
		}
		if s := d.Stats().Sub(before); s.Launches != 1 || s.D2DCalls != 0 {
			t.Errorf("CopyBytes counted %v", s)
		}
		if err := d.CopyBytes(device.Buffer(buf.Native()), -1, device.Buffer(out.Native()), 0, 1); !errors.Is(err, device.ErrOutOfRange) {
			t.Errorf("CopyBytes at -1: %v", err)
		}
		// build failures carry the log, and are kept under
		// Options.KeepRejected; bad options are refused
		var be *cuda.BuildError
		if _, err := d.Compile("#error nope\n"+storeSrc, ""); !errors.As(err, &be) || !strings.Contains(be.Log, "#error") || !strings.Contains(be.Log, "--gpu-architecture=sm_90") {
			t.Fatalf("Compile of a broken program: %v", err)
		}
		if kept, _ := filepath.Glob(filepath.Join(keep, "*")); len(kept) != 2 {
			t.Fatalf("kept %v, want the program and its log", kept)
		}
		if b, _ := os.ReadFile(filepath.Join(keep, "1.cu")); !strings.Contains(string(b), `extern "C" __global__ void mock_store(`) {
			t.Fatalf("kept program:\n%s", b)
		}
		if _, err := d.Compile(storeSrc, "-O3"); err == nil {
			t.Fatal("Compile with an option NVRTC has no form of")
		}
		// a released program's kernels are refused; Release is idempotent
		p2, err := d.Compile(storeSrc, "")
		if err != nil {
			t.Fatal(err)
		}
		k2, _ := p2.Kernel("other")
		if err := errors.Join(p2.Release(), p2.Release()); err != nil {
			t.Fatal(err)
		}
		if err := d.Enqueue(k2, device.Grid{Dims: 1, Global: [3]int{4}}, []any{device.Buffer(buf.Native())}); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Enqueue of a released program's kernel: %v", err)
		}
		if _, err := p2.Kernel("other"); err == nil {
			t.Fatal("Kernel of a released program")
		}
		// p is still loaded: Close unloads it
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Compile(storeSrc, ""); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Compile after Close: %v", err)
		}
		if err := d.Enqueue(k, device.Grid{Dims: 1, Global: [3]int{1}}, args); !errors.Is(err, device.ErrClosed) {
			t.Fatalf("Enqueue after Close: %v", err)
		}
		if err := p.Release(); err != nil {
			t.Fatalf("Release after Close: %v", err)
		}
	}()
	cudatest.NoLeak(t, "a module, an NVRTC program or memory")
}

// mockKernelFaults are TestMockKernelFault's cases (with the mock NVRTC).
var mockKernelFaults = map[string]string{
	"nvrtc-fail":  "nvrtcCompileProgram:1",
	"module-fail": "cuModuleLoadData:1",
	"launch-fail": "cuLaunchKernel:1",
}

// TestMockKernelFault (mock only) runs the case named by
// -cudatest.case with its fault: the error comes back as a
// value, nothing is counted or leaked, and the next try works.
func TestMockKernelFault(t *testing.T) {
	name := cudatest.Case()
	if !cudatest.InChild() || name == "" {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	d := open(t, cuda.Options{})
	var ce *cuda.Error
	_, err := d.Compile(storeSrc, "")
	switch name {
	case "nvrtc-fail", "module-fail":
		if !errors.As(err, &ce) {
			t.Fatalf("Compile with %s failing: %v", name, err)
		}
	case "launch-fail":
		if err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.Compile(storeSrc, "")
	if err != nil {
		t.Fatalf("Compile after the fault: %v", err)
	}
	k, _ := p.Kernel("other")
	a, _ := d.Malloc(64)
	g := device.Grid{Dims: 1, Global: [3]int{16}}
	before := d.Stats()
	err = d.Enqueue(k, g, []any{device.Buffer(a.Native())})
	if name == "launch-fail" {
		if !errors.As(err, &ce) || d.Stats().Sub(before).Launches != 0 {
			t.Fatalf("Enqueue with the launch failing: %v, %v", err, d.Stats().Sub(before))
		}
		err = d.Enqueue(k, g, []any{device.Buffer(a.Native())})
	}
	if err != nil || d.Stats().Sub(before).Launches != 1 {
		t.Fatalf("Enqueue: %v, %v", err, d.Stats().Sub(before))
	}
	t.Logf("%s: %v", name, ce)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	cudatest.NoLeak(t, "device memory")
}

// kernelSrc exercises, on a real GPU, what the translation rewrites: a
// struct argument, two __local parameters (a work-group reduction with
// barriers), vector literals, arithmetic and swizzles.
const kernelSrc = `typedef struct { long n; float scale; } arg_t;
__kernel void scale_sum(__global const float *a, __global float *out, arg_t p, __local float *lm, __local double *lm2) {
	long lid = get_local_id(0), ls = get_local_size(0);
	float s = 0;
	for (long i = get_global_id(0); i < p.n; i += get_global_size(0)) s += a[i] * p.scale;
	lm[lid] = s;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (long h = ls / 2; h > 0; h /= 2) {
		if (lid < h) lm[lid] += lm[lid + h];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid == 0) { lm2[0] = lm[0]; out[get_group_id(0)] = (float)lm2[0]; }
}
__kernel void swap4(__global float4 *d, __global const float4 *a, float x) {
	long i = get_global_id(0);
	float4 v = a[i] + (float4)(x);
	d[i] = (float4)(v.s3, v.s2, v.y, v.x);
}
`

// TestCUDAKernels (a GPU and NVRTC) builds kernelSrc and checks what its
// kernels compute: the smallest test of Compile and Enqueue on the
// device, apart from package ops (whose tests run its kernels here too).
func TestCUDAKernels(t *testing.T) {
	if cudatest.InChild() {
		t.Skip("the mock runs no kernels")
	}
	d := open(t, cuda.Options{})
	if !d.Caps().OpenCLC {
		_, err := d.Compile("", "")
		t.Skipf("no kernels on %s: %v", d.Name(), err)
	}
	p, err := d.Compile(kernelSrc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	const n, groups, wg = 10000, 4, 128
	a, _ := d.Malloc(4 * n)
	out, _ := d.Malloc(4 * n)
	host := make([]byte, 4*n)
	var want float64
	for i := range n {
		binary.LittleEndian.PutUint32(host[4*i:], math.Float32bits(float32(i%7)))
		want += float64(i%7) * 0.5
	}
	dense := device.Region{ElemSize: 4, Shape: []device.Span{{Extent: n, Stride: 1}}}
	if err := d.CopyIn(a, 0, host, dense); err != nil {
		t.Fatal(err)
	}
	arg := make([]byte, 16)
	binary.LittleEndian.PutUint64(arg, n)
	binary.LittleEndian.PutUint32(arg[8:], math.Float32bits(0.5))
	k, err := p.Kernel("scale_sum")
	if err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	err = d.Enqueue(k, device.Grid{Dims: 1, Global: [3]int{groups * wg}, Local: [3]int{wg}},
		[]any{device.Buffer(a.Native()), device.Buffer(out.Native()), arg, device.Local(4 * wg), device.Local(8)})
	if err != nil {
		t.Fatal(err)
	}
	sums := make([]byte, 4*groups)
	if err := d.ReadBytes(sums, device.Buffer(out.Native()), 0); err != nil {
		t.Fatal(err)
	}
	var got float64
	for g := range groups {
		got += float64(math.Float32frombits(binary.LittleEndian.Uint32(sums[4*g:])))
	}
	if got != want {
		t.Fatalf("scale_sum: %v, want %v", got, want)
	}
	k2, err := p.Kernel("swap4")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Enqueue(k2, device.Grid{Dims: 1, Global: [3]int{n / 4}}, []any{device.Buffer(out.Native()), device.Buffer(a.Native()), float32(1)}); err != nil {
		t.Fatal(err)
	}
	res := make([]byte, 4*n)
	if err := d.ReadBytes(res, device.Buffer(out.Native()), 0); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		src := i/4*4 + 3 - i%4
		if got, want := math.Float32frombits(binary.LittleEndian.Uint32(res[4*i:])), float32(src%7)+1; got != want {
			t.Fatalf("swap4 element %d: %v, want %v", i, got, want)
		}
	}
	if s := d.Stats().Sub(before); s.Launches != 2 || s.D2HCalls != 0 {
		t.Fatalf("two kernels: %v", s)
	}
}

// TestKernelSourcesParse: this file's kernel sources translate into C++
// that g++ parses over a stub of CUDA, so a failure of TestCUDAKernels on
// a GPU is about NVRTC or the device, not the test's source.
func TestKernelSourcesParse(t *testing.T) {
	if clcuda.GCC() == "" {
		t.Skip("no g++")
	}
	for _, src := range []string{kernelSrc, storeSrc} {
		p, err := clcuda.Translate(src, "")
		if err == nil {
			err = clcuda.CheckWithGCC(p)
		}
		if err != nil {
			t.Error(err)
		}
	}
}
