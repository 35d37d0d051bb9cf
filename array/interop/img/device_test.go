package img_test

import (
	"image"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/img"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// A device-aware Array that an OpenCL pipeline left on the device: ToGray
// takes its host view, which copies the device data back first. A later
// device write reaches the image once the host view is taken again.
func TestDeviceDirtyArray(t *testing.T) {
	in := array.New[uint8](16, 4)
	h, err := in.Host()
	if err != nil {
		t.Fatal(err)
	}
	for y := range 4 {
		for x := range 16 {
			h.Set(100, x, y)
		}
	}
	out := array.New[uint8](16, 4)
	if err := brighter.Brighter(in, 5, out); err != nil {
		t.Skipf("no OpenCL device for the brighter pipeline: %v", err)
	}
	m, err := img.ToGray(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.GrayAt(3, 2).Y; got != 105 {
		t.Fatalf("image holds %d, want the pipeline's 105", got)
	}
	if m.Rect != image.Rect(0, 0, 16, 4) {
		t.Fatalf("bounds %v", m.Rect)
	}

	if err := brighter.Brighter(in, 7, out); err != nil {
		t.Fatal(err)
	}
	t.Logf("before the host view is taken again the image holds %d (the device has 107)", m.GrayAt(3, 2).Y)
	if _, err := out.HostReadOnly(); err != nil {
		t.Fatal(err)
	}
	if got := m.GrayAt(3, 2).Y; got != 107 {
		t.Fatalf("after HostReadOnly the image holds %d, want 107", got)
	}
}
