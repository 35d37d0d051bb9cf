package cudatest

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/resident-go/resident/device/cuda"
)

// Mock builds the mock once and returns two temporary folders of t that
// hold it: plain, with libcuda.so.1 and libcublas.so.13, and withNVRTC,
// which adds libnvrtc.so.13 so that kernels compile. It skips t under
// -short (a build and a child process), where the real driver loads (the
// tests ran on it), and where gcc or the mock's source is missing.
func Mock(t testing.TB) (plain, withNVRTC string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the mock driver and runs a child process")
	}
	if d, err := cuda.Open(cuda.Options{}); err == nil {
		d.Close()
		t.Skip("real CUDA here: the CUDA tests ran on it")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the mock driver")
	}
	src := source()
	if src == "" {
		t.Skip("the mock driver's source (device/cuda/testdata/mockcuda) is not here")
	}
	plain, withNVRTC = t.TempDir(), t.TempDir()
	lib := filepath.Join(plain, "libcuda.so.1")
	if out, err := exec.Command(gcc, "-O1", "-shared", "-fPIC", "-o", lib, src, "-lm", "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("building the mock driver: %v\n%s", err, out)
	}
	// one library answers for all three
	for _, l := range []string{filepath.Join(plain, "libcublas.so.13"), filepath.Join(withNVRTC, "libcuda.so.1"),
		filepath.Join(withNVRTC, "libcublas.so.13"), filepath.Join(withNVRTC, "libnvrtc.so.13")} {
		if err := os.Link(lib, l); err != nil {
			t.Fatal(err)
		}
	}
	return plain, withNVRTC
}

// source finds mockcuda.c: beside this package's source where it was
// built, else from the test's package folder or the repo root.
func source() string {
	const rel = "testdata/mockcuda/mockcuda.c"
	var cands []string
	if _, file, _, ok := runtime.Caller(0); ok {
		cands = append(cands, filepath.Join(filepath.Dir(file), "..", rel))
	}
	cands = append(cands, rel, filepath.Join("..", "device", "cuda", rel), filepath.Join("device", "cuda", rel))
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return ""
}

// The child's side of a mock run: Run passes -cudatest.mock (and
// -cudatest.case where a test names one) to the child process, as
// arguments rather than environment, so that the library reads no test
// variable.
var (
	mockFlag = flag.Bool("cudatest.mock", false, "inside a mock run (set by cudatest.Run in the child process)")
	caseFlag = flag.String("cudatest.case", "", "the case a mock run's child plays (cudatest.Run's args)")
)

// InChild reports whether this test binary is a mock run's child.
func InChild() bool { return *mockFlag }

// Case is the case the parent named for this child (-cudatest.case), ""
// outside a mock run.
func Case() string { return *caseFlag }

// Run runs the named tests of the current test binary in a child process
// that loads the libraries in dir, marked as a mock run (InChild) and
// given args (more test flags, -cudatest.case) and env (the mock's own
// MOCKCUDA_FAIL fault injection), fails t if the child fails, and
// returns its -test.v output.
func Run(t testing.TB, dir string, tests, args []string, env ...string) string {
	t.Helper()
	argv := append([]string{"-test.run", "^(" + strings.Join(tests, "|") + ")$", "-test.v", "-test.count=1", "-cudatest.mock"}, args...)
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = append(append(os.Environ(), "LD_LIBRARY_PATH="+dir), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tests on the mock driver: %v\n%s", err, out)
	}
	return string(out)
}

// Passed reports, with t.Errorf, each of tests that did not pass in out
// (Run's output), and any test that skipped there.
func Passed(t testing.TB, out string, tests ...string) {
	t.Helper()
	for _, name := range tests {
		if !regexp.MustCompile(`(?m)^--- PASS: ` + regexp.QuoteMeta(name) + ` `).MatchString(out) {
			t.Errorf("%s did not pass on the mock driver:\n%s", name, out)
		}
	}
	if strings.Contains(out, "--- SKIP") {
		t.Errorf("a test skipped on the mock driver:\n%s", out)
	}
}

// InMock is the parent side of a package's mock run: it skips t inside
// the child (InChild), else builds the mock (with NVRTC when nvrtc) and
// runs tests in a child given args and env (Run), each of which must
// pass there.
func InMock(t testing.TB, nvrtc bool, tests, args []string, env ...string) {
	t.Helper()
	if InChild() {
		t.Skip("inside the mock run")
	}
	plain, withNVRTC := Mock(t)
	dir := plain
	if nvrtc {
		dir = withNVRTC
	}
	Passed(t, Run(t, dir, tests, args, env...), tests...)
}
