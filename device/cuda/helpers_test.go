package cuda_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device/cuda"
)

// open opens a CUDA device for t, or skips t naming what is missing.
func open(t testing.TB, o cuda.Options) *cuda.Device {
	t.Helper()
	d, err := cuda.Open(o)
	if err != nil {
		if !errors.Is(err, cuda.ErrNoCUDA) {
			t.Fatalf("Open failed without wrapping ErrNoCUDA: %v", err)
		}
		t.Skipf("no CUDA here: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
