package cuda_test

import (
	"errors"
	"flag"
	"testing"

	"github.com/resident-go/resident/device/cuda"
)

// verbose opens the tests' devices with Options.Verbose (bench/h200.sh).
var verbose = flag.Bool("cuda.verbose", false, "open the tests' devices with cuda.Options.Verbose")

// open opens a CUDA device for t, or skips t naming what is missing.
func open(t testing.TB, o cuda.Options) *cuda.Device {
	t.Helper()
	o.Verbose = o.Verbose || *verbose
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
