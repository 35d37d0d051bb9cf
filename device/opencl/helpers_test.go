package opencl

import (
	"errors"
	"testing"
)

// open returns a Device for a test, or skips when OpenCL is absent.
func open(t testing.TB, o Options) *Device {
	t.Helper()
	d, err := Open(o)
	if errors.Is(err, ErrNoOpenCL) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// stagedOptions forces the staging path with small chunks, so PoCL (host
// unified memory, which skips staging by default) exercises it, across
// several chunks.
var stagedOptions = Options{Staging: StagingOn, StagingChunk: 64 << 10, StagingMin: 1, StagingMinD2H: 1}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+int(seed)) ^ byte(i>>8)
	}
	return b
}
