package opencl

import (
	"os"
	"os/exec"
	"testing"
)

// TestNoCgoBuild checks that the package compiles without cgo (Load then
// fails with ErrNoOpenCL).
func TestNoCgoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gobin, "vet", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go vet: %v\n%s", err, out)
	}
}
