package halide_test

import (
	"encoding/binary"
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
)

// foreignUC is the user_context Halide's user_context aottest passes: an
// address nothing is mapped at.
const foreignUC = 0xf00dd00d

var ucChild = flag.Bool("uc.child", false, "TestForeignUserContext's child process")

// TestForeignUserContext: C calls pipelines built with user_context with
// a user_context of its own, which the library must never dereference.
// With 0xf00dd00d the error handler read the pointer's first word and the
// process died (SIGSEGV), so the calls run in a child process and the
// test reads its verdict; the error text, which belongs to no call of the
// library, goes to stderr.
func TestForeignUserContext(t *testing.T) {
	if *ucChild {
		foreignUserContextCalls(t)
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestForeignUserContext$", "-test.v", "-test.count=1", "-uc.child")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the calls with user_context %#x failed or killed the process: %v\n%s", foreignUC, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestForeignUserContext") {
		t.Fatalf("the child did not pass:\n%s", out)
	}
	if !strings.Contains(string(out), "Input buffer input") {
		t.Errorf("the runtime's error text did not reach stderr:\n%s", out)
	}
}

// foreignUserContextCalls runs in the child.
func foreignUserContextCalls(t *testing.T) {
	in := blur.CNewUint16(0, 0, 4, 4, 4)
	defer blur.CFree(in)
	out := blur.CNewUint16(0, 0, 4, 4, 4) // needs input outside in: an error
	defer blur.CFree(out)
	if rc := blur.CBlurWithContext(foreignUC, in, out); rc >= 0 {
		t.Errorf("blur with too small an input returned %d, want a Halide error code", rc)
	}
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
		t.Log("no OpenCL device, OpenCL calls skipped:", err)
		return
	}
	// A Go call first gives the C side the device (the fallback that
	// runtime calls outside the library's own calls get).
	gin, gout := array.New[uint16](8, 8), array.New[uint16](6, 6)
	if err := blur.BlurOpencl(gin, gout.Translate(0, 1).Translate(1, 1)); err != nil {
		t.Fatal(err)
	}
	if rc := blur.COpenCLBlurWithContext(foreignUC, in, out); rc >= 0 {
		t.Errorf("blur_opencl with too small an input returned %d, want a Halide error code", rc)
	}
	const x0, y0, w, h = 4, 6, 31, 15
	cin := blur.CNewUint16(x0, y0, w, h, w+5)
	defer blur.CFree(cin)
	cout := blur.CNewUint16(x0+1, y0+1, w-2, h-2, w)
	defer blur.CFree(cout)
	if rc := blur.COpenCLBlurWithContext(foreignUC, cin, cout); rc != 0 {
		t.Fatalf("blur_opencl with user_context %#x: %d", foreignUC, rc)
	}
	checkBlur(t, func(x, y int) uint16 { return blur.CAt(cout, x, y) }, x0+1, y0+1, w-2, h-2)
}

// TestUserContextLookingLikeOurs: a user_context pointing at memory that
// starts with what the library's own per-call context used to start with
// (its marker, "resident") is still the caller's: an error in the call
// leaves that memory as it was (the handler wrote its message into it).
func TestUserContextLookingLikeOurs(t *testing.T) {
	mem := make([]byte, 8192)
	binary.LittleEndian.PutUint64(mem, 0x7265736964656e74)
	want := string(mem)
	in := blur.CNewUint16(0, 0, 4, 4, 4)
	defer blur.CFree(in)
	out := blur.CNewUint16(0, 0, 4, 4, 4)
	defer blur.CFree(out)
	if rc := blur.CBlurWithContext(uintptr(unsafe.Pointer(&mem[0])), in, out); rc >= 0 {
		t.Errorf("blur with too small an input returned %d, want a Halide error code", rc)
	}
	runtime.KeepAlive(mem)
	for i := range mem {
		if mem[i] != want[i] {
			t.Errorf("the caller's user_context memory was written at byte %d: %q", i, strings.TrimRight(string(mem[i:min(i+80, len(mem))]), "\x00"))
			break
		}
	}
}
