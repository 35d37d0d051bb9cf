package cu

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestLoad: Load either works or fails wrapping ErrNoCUDA with the reason,
// the same error every time.
func TestLoad(t *testing.T) {
	err := Load()
	if err == nil {
		n, err := DeviceCount()
		t.Logf("CUDA loaded: %d devices (%v)", n, err)
		return
	}
	if !errors.Is(err, ErrNoCUDA) || err.Error() == ErrNoCUDA.Error() {
		t.Fatalf("Load error %q must wrap ErrNoCUDA and say why", err)
	}
	if err2 := Load(); err2 != err {
		t.Fatalf("second Load: %v, want the first error", err2)
	}
	t.Logf("no CUDA (as expected on a machine without the driver): %v", err)
}

func TestError(t *testing.T) {
	e := fmt.Errorf("wrapped: %w", &Error{Op: "cuMemAlloc_v2", Code: ErrorOutOfMemory, Msg: "CUDA_ERROR_OUT_OF_MEMORY: out of memory"})
	if !errors.Is(e, &Error{Code: ErrorOutOfMemory}) || errors.Is(e, &Error{Code: 1}) || errors.Is(e, &Error{Op: "cuMemFree_v2", Code: ErrorOutOfMemory}) {
		t.Fatal("Error.Is matches by code and, when given, op")
	}
	if !IsOutOfMemory(e) || IsOutOfMemory(&Error{Op: "cublasGemmEx", Code: ErrorOutOfMemory}) || !IsOutOfMemory(&Error{Op: "cublasCreate_v2", Code: BlasAllocFailed}) {
		t.Fatal("IsOutOfMemory: driver code 2, cuBLAS code 3")
	}
	if got := e.Error(); got != "wrapped: cuda: cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY: out of memory (2)" {
		t.Fatalf("message %q", got)
	}
}

// TestNoCgoBuild checks that the package compiles without cgo.
func TestNoCgoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gobin, "vet", ".", "../../device/cuda")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go vet: %v\n%s", err, out)
	}
}
