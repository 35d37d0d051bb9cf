package cudatest

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device/cuda"
)

// NoLeak fails t unless the driver holds only what an idle Device does
// (the mock counts streams and events as device memory): it opens two
// Devices and compares what the first holds with what the second adds.
// what names the suspects in the failure.
func NoLeak(t testing.TB, what string) {
	t.Helper()
	a, err := cuda.Open(cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := cuda.Open(cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fb, _, errb := b.MemInfo()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	fa, total, erra := a.MemInfo()
	if err := errors.Join(erra, errb); err != nil {
		t.Fatal(err)
	}
	if held, idle := total-fa, fa-fb; held != idle {
		t.Fatalf("after Close: %d bytes held, an idle Device holds %d: %s leaked", held, idle, what)
	}
}
