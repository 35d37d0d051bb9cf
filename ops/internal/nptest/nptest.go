// Package nptest runs NumPy for package ops' differential tests: one
// Python program per test, the cases as JSON on its stdin, its answer as
// JSON on its stdout.
package nptest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// Python is the interpreter the tests run (make test installs its numpy).
const Python = "/usr/bin/python3"

// Need skips t where Python or its numpy is missing.
func Need(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(Python); err != nil {
		t.Skipf("no %s: %v", Python, err)
	}
	if out, err := exec.Command(Python, "-c", "import numpy").CombinedOutput(); err != nil {
		t.Skipf("%s has no numpy (install python3-numpy): %v %s", Python, err, out)
	}
}

// Run runs script with in as JSON on its stdin and decodes its stdout,
// JSON, into out; it skips t where Python or numpy is missing.
func Run(t testing.TB, script string, in, out any) {
	t.Helper()
	Need(t)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Python, "-c", script)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("numpy's answer: %v", err)
	}
}
