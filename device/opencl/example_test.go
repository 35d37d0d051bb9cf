//go:build cgo

package opencl_test

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// A round trip through the default device: the host box is copied to the
// device and read back. It needs an OpenCL driver, so its output is checked
// by TestExampleCopyIn, which skips where there is none.
func ExampleDevice_CopyIn() {
	d, err := opencl.Default()
	if err != nil {
		fmt.Println(err) // names the package to install
		return
	}
	roundTrip(os.Stdout, d)
}

func roundTrip(w io.Writer, d *opencl.Device) {
	data := []byte{1, 2, 3, 4, 5, 6}
	r := device.Region{ElemSize: 2, Shape: []device.Span{{Extent: 3, Stride: 1}}}
	a, err := d.Malloc(len(data))
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	defer d.Free(a)
	before := d.Stats()
	if err := d.CopyIn(a, 0, data, r); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	back := make([]byte, len(data))
	if err := d.CopyOut(back, a, 0, r); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	s := d.Stats().Sub(before)
	fmt.Fprintln(w, back, s.H2DBytes, s.D2HBytes)
}

func TestExampleCopyIn(t *testing.T) {
	d, err := opencl.Default()
	if err != nil {
		t.Skip("no OpenCL driver:", err)
	}
	var b strings.Builder
	roundTrip(&b, d)
	if got, want := b.String(), "[1 2 3 4 5 6] 6 6\n"; got != want {
		t.Fatalf("ExampleDevice_CopyIn printed %q, want %q", got, want)
	}
}
