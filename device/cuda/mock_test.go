package cuda_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/ops"
)

// mockEnv marks a child process running the tests against
// testdata/mockcuda (a libcuda.so.1 and libcublas.so.13 over host memory).
const mockEnv = "RESIDENT_CUDA_MOCK"

// mockTests are the tests the mock runs; each must pass, none skip.
var mockTests = []string{"TestOpen", "TestTransfers", "TestCopyAndCrop", "TestCache", "TestClose", "TestForeign",
	"TestArrayResidency", "TestMatMulCUDA", "TestMatMulNoUnitStride", "TestGuardRefusesAutomatic"}

// TestMockCUDA runs this package's tests in a child process whose
// libcuda.so.1 and libcublas.so.13 are the mock, built here with gcc: the
// whole path from Arrays to driver calls runs where there is no GPU, and
// the mock refuses what the driver and cuBLAS would (a missing context or
// stream, bad pitches and leading dimensions, alpha of the wrong type,
// unknown frees). Then TestMockLeaks checks, in a fresh child, that
// nothing is left allocated.
func TestMockCUDA(t *testing.T) {
	if os.Getenv(mockEnv) != "" {
		t.Skip("inside the mock run")
	}
	if testing.Short() {
		t.Skip("builds the mock and runs a child process")
	}
	if d, err := cuda.Open(cuda.Options{}); err == nil {
		d.Close()
		t.Skip("real CUDA here: the tests ran on it")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the mock")
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libcuda.so.1")
	if out, err := exec.Command(gcc, "-O1", "-shared", "-fPIC", "-o", lib, "testdata/mockcuda/mockcuda.c", "-lm", "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("building the mock: %v\n%s", err, out)
	}
	blas, _ := os.ReadFile(lib)
	if err := os.WriteFile(filepath.Join(dir, "libcublas.so.13"), blas, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(tests []string) string {
		cmd := exec.Command(os.Args[0], "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), mockEnv+"=1", "LD_LIBRARY_PATH="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tests on the mock: %v\n%s", err, out)
		}
		return string(out)
	}
	out := run(mockTests)
	for _, name := range mockTests {
		if !regexp.MustCompile(`(?m)^--- PASS: ` + name + ` `).MatchString(out) {
			t.Errorf("%s did not pass on the mock:\n%s", name, out)
		}
	}
	if strings.Contains(out, "--- SKIP") {
		t.Errorf("a test skipped on the mock:\n%s", out)
	}
	if out := run([]string{"TestMockLeaks"}); !strings.Contains(out, "--- PASS: TestMockLeaks") {
		t.Errorf("TestMockLeaks:\n%s", out)
	}
}

// TestMockLeaks (mock only) runs a workload with failures in it, closes
// everything, and checks that the mock holds no device memory.
func TestMockLeaks(t *testing.T) {
	if os.Getenv(mockEnv) == "" {
		t.Skip("runs on the mock only (TestMockCUDA)")
	}
	func() {
		d := open(t, cuda.Options{StagingMin: 1})
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
		if err := d.Close(); err != nil { // x, the Arrays' allocations, the cache
			t.Fatal(err)
		}
	}()
	d := open(t, cuda.Options{})
	free, total, err := d.MemInfo()
	if err != nil || free != total {
		t.Fatalf("after Close: %d of %d bytes free (%v): device memory leaked", free, total, err)
	}
}
