package ops_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// numpyRun runs the Python program script under /usr/bin/python3 with in
// as JSON on its standard input and decodes its standard output, JSON,
// into out. It skips t where python3 or numpy is missing (make test
// installs them).
func numpyRun(t *testing.T, script string, in, out any) {
	t.Helper()
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no " + py)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		if bytes.Contains(stderr.Bytes(), []byte("No module named")) {
			t.Skip("no numpy")
		}
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("NumPy's output: %v", err)
	}
}
