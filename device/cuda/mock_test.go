package cuda_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
	"github.com/resident-go/resident/internal/plumb/plumbtest"
	"github.com/resident-go/resident/ops"
)

// mockTests are the tests the mock runs; each must pass, none skip.
var mockTests = []string{"TestOpen", "TestTransfers", "TestCopyAndCrop", "TestCache", "TestClose", "TestForeign", "TestConcurrent",
	"TestArrayResidency", "TestMatMulCUDA", "TestMatMulNoUnitStride", "TestGuardRefusesAutomatic", "TestHostFallback", "TestMoveBetweenCUDA", "TestNoKernels", "TestStreams", "Example"}

// TestMockCUDA runs this package's tests in a child process whose
// libcuda.so.1 and libcublas.so.13 are the mock, built here with gcc: the
// whole path from Arrays to driver calls runs where there is no GPU, and
// the mock refuses what the driver and cuBLAS would (a missing context or
// stream, bad pitches and leading dimensions, alpha of the wrong type,
// unknown frees). Then TestMockLeaks checks, in a fresh child, that
// nothing is left allocated.
func TestMockCUDA(t *testing.T) {
	if cudatest.InChild() {
		t.Skip("inside the mock run")
	}
	libs, withNVRTC := cudatest.Mock(t)
	run := func(tests []string, args ...string) string { // args: the case, then the fault
		if len(args) == 0 {
			return cudatest.Run(t, libs, tests, nil)
		}
		return cudatest.Run(t, libs, tests, []string{"-cudatest.case=" + args[0]}, "MOCKCUDA_FAIL="+args[1])
	}
	cudatest.Passed(t, run(mockTests), mockTests...)
	// MoveTo between OpenCL and CUDA needs an OpenCL device too (PoCL).
	if out := run([]string{"TestMoveBetween"}); !strings.Contains(out, "--- PASS: TestMoveBetween") && !strings.Contains(out, "no OpenCL device") {
		t.Errorf("TestMoveBetween:\n%s", out)
	}
	if out := run([]string{"TestMockLeaks"}); !strings.Contains(out, "--- PASS: TestMockLeaks") {
		t.Errorf("TestMockLeaks:\n%s", out)
	}
	for name, fault := range mockFaults {
		out := run([]string{"TestMockFault"}, name, fault)
		if !strings.Contains(out, "--- PASS: TestMockFault") {
			t.Errorf("TestMockFault %s (%s):\n%s", name, fault, out)
		}
	}
	libs = withNVRTC // the mock NVRTC too: kernels compile
	if out := run([]string{"TestMockKernels", "TestCaptureMock", "TestCaptureGoMock"}); !strings.Contains(out, "--- PASS: TestMockKernels") ||
		!strings.Contains(out, "--- PASS: TestCaptureMock") || !strings.Contains(out, "--- PASS: TestCaptureGoMock") {
		t.Errorf("TestMockKernels, TestCaptureMock, TestCaptureGoMock:\n%s", out)
	}
	if out := run([]string{"TestCaptureMockFault"}, "capture", captureFaults); !strings.Contains(out, "--- PASS: TestCaptureMockFault") {
		t.Errorf("TestCaptureMockFault (%s):\n%s", captureFaults, out)
	}
	for name, fault := range mockKernelFaults {
		out := run([]string{"TestMockKernelFault"}, name, fault)
		if !strings.Contains(out, "--- PASS: TestMockKernelFault") {
			t.Errorf("TestMockKernelFault %s (%s):\n%s", name, fault, out)
		}
	}
}

// TestMockLeaks (mock only) runs a workload with failures in it, closes
// everything, and checks that the mock holds no device memory, stream or
// event.
func TestMockLeaks(t *testing.T) {
	if !cudatest.InChild() {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	func() {
		d := open(t, cuda.Options{StagingMin: 1, StagingMinD2H: 1})
		a, b, dst, done := operands(20, 10, 5, 2, true, func(i int) float32 { return float32(i % 3) })
		defer done()
		if err := ops.On(d, a, b); err != nil {
			t.Fatal(err)
		}
		if err := ops.MatMul(dst, a, b); err != nil {
			t.Fatal(err)
		}
		x, _ := d.Malloc(100)
		if err := d.CopyIn(x, 0, make([]byte, 200), device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 200, Stride: 1}}}); !errors.Is(err, device.ErrOutOfRange) {
			t.Fatalf("CopyIn past the end: %v", err)
		}
		c := array.New[float32](5, 10, 2)
		defer c.Close()
		if err := ops.On(d, c); err != nil {
			t.Fatal(err)
		}
		plumbtest.Streams(t, d, 1<<16+3)  // the upload and download streams, spare events
		if err := d.Close(); err != nil { // x, the Arrays' allocations, the cache, the streams
			t.Fatal(err)
		}
	}()
	cudatest.NoLeak(t, "device memory, a stream or an event")
}

// mockFaults are TestMockFault's cases: the entry points the mock fails
// (MOCKCUDA_FAIL) for each.
var mockFaults = map[string]string{
	"alloc-retry":      "cuMemAlloc_v2:2",
	"alloc-fail":       "cuMemAlloc_v2:1+",
	"staging-fail":     "cuMemHostAlloc:1",
	"copy2d-fail":      "cuMemcpy2DAsync_v2:2",
	"gemm-fail":        "cublasGemm:1",
	"gemm-dense-fail":  "cublasGemm:1",
	"blas-create-fail": "cublasCreate_v2:1",
}

// TestMockFault (mock only) runs the case named by -cudatest.case
// with its fault injected: the error comes back as a value wrapping
// *cuda.Error, the device stays usable, and after Close the mock holds no
// device memory.
func TestMockFault(t *testing.T) {
	name := cudatest.Case()
	if !cudatest.InChild() || name == "" {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	var ce *cuda.Error
	d := open(t, cuda.Options{StagingMin: 1 << 20, StagingMinD2H: 1 << 20}) // the 1 MiB cases staged
	dense := func(n int) device.Region {
		return device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
	}
	switch name {
	case "alloc-retry": // the cache is released and the allocation tried again
		a, _ := d.Malloc(1 << 20)
		d.Free(a)
		b, err := d.Malloc(2 << 20)
		if err != nil || d.Stats().CachedBytes != 0 {
			t.Fatalf("Malloc after an out-of-memory with a cached block: %v, %v", err, d.Stats())
		}
		d.Free(b)
	case "alloc-fail":
		if _, err := d.Malloc(100); !errors.As(err, &ce) || d.Stats().AllocsLive != 0 {
			t.Fatalf("Malloc: %v, %v", err, d.Stats())
		}
		a := array.New[float32](10)
		defer a.Close()
		hv, _ := a.Host()
		hv.Set(5, 3)
		if err := ops.On(d, a); !errors.As(err, &ce) {
			t.Fatalf("On: %v", err)
		}
		if v, err := a.HostReadOnly(); err != nil || v.At(3) != 5 {
			t.Fatalf("the Array after a failed On: %v", err)
		}
	case "staging-fail":
		a, _ := d.Malloc(1 << 20)
		src := make([]byte, 1<<20)
		src[12345] = 7
		if err := d.CopyIn(a, 0, src, dense(1<<20)); !errors.As(err, &ce) {
			t.Fatalf("CopyIn without staging memory: %v", err)
		}
		if s := d.Stats(); s.H2DCalls != 0 {
			t.Fatalf("a failed CopyIn was counted: %v", s)
		}
		if err := d.CopyIn(a, 0, src, dense(1<<20)); err != nil {
			t.Fatalf("CopyIn once staging memory is there: %v", err)
		}
		got := make([]byte, 1<<20)
		if err := d.CopyOut(got, a, 0, dense(1<<20)); err != nil || got[12345] != 7 {
			t.Fatalf("CopyOut: %v", err)
		}
	case "copy2d-fail":
		tc := transferCases()[7] // box3d: one 2-D copy per slice
		blk, err := d.AllocHost(tc.r.SpanBytes())
		if err != nil {
			t.Fatal(err)
		}
		a, _ := d.Malloc(tc.r.SpanBytes())
		if err := d.CopyIn(a, 0, blk.Bytes(), tc.r); !errors.As(err, &ce) || d.Stats().H2DCalls != 0 {
			t.Fatalf("CopyIn with its second 2-D copy failing: %v, %v", err, d.Stats())
		}
		blk.Free() // before NoLeak: the mock counts pinned blocks
	case "gemm-fail", "gemm-dense-fail", "blas-create-fail":
		a, b, dst, done := operands(8, 6, 4, 0, false, func(i int) float32 { return float32(i % 5) })
		defer done()
		if name == "gemm-dense-fail" {
			pairs := array.New[float32](2, 8, 6)
			defer pairs.Close()
			a = pairs.Slice(0, 0)
		}
		if err := ops.On(d, a, b); err != nil {
			t.Fatal(err)
		}
		live := d.Stats().AllocsLive
		if err := ops.MatMul(dst, a, b); !errors.As(err, &ce) {
			t.Fatalf("MatMul: %v", err)
		}
		if n := d.Stats().AllocsLive; n != live+1 { // dst's allocation, no temporary
			t.Fatalf("%d allocations live after a failed MatMul, want %d", n, live+1)
		}
		if dst.DeviceDirty() {
			t.Fatal("a failed MatMul marked dst written")
		}
		if err := ops.MatMul(dst, a, b); err != nil {
			t.Fatalf("MatMul after the failure: %v", err)
		}
		check(t, a, b, dst, func(x float32) float64 { return float64(x) }, 1e-5)
	default:
		t.Fatalf("unknown case %q", name)
	}
	t.Logf("%s: %v", name, ce)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	cudatest.NoLeak(t, "device memory")
}
