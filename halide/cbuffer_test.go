package halide_test

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
)

func checkBlur(t *testing.T, at func(x, y int) uint16, x0, y0, w, h int) {
	t.Helper()
	for y := y0; y < y0+h; y++ {
		for x := x0; x < x0+w; x++ {
			if got, want := at(x, y), blurRef(blurInput, x, y); got != want {
				t.Fatalf("blur(%d, %d) = %d, want %d", x, y, got, want)
			}
		}
	}
}

// A halide_buffer_t that C owns, wrapped as an Array: a pipeline reads it
// and writes another, on the host and on OpenCL, and C reads the result
// where it put it.
func TestWrapCBuffer(t *testing.T) {
	const x0, y0, w, h = 4, 6, 31, 15
	for _, p := range []*halide.Pipeline{blur.BlurPipeline, blur.BlurOpenclPipeline} {
		t.Run(p.Name(), func(t *testing.T) {
			if p.OpenCL() {
				clDevice(t)
			}
			cin := blur.CNewUint16(x0, y0, w, h, w+5) // padded rows
			defer blur.CFree(cin)
			cout := blur.CNewUint16(x0+1, y0+1, w-2, h-2, w)
			defer blur.CFree(cout)
			in, err := halide.WrapCBuffer[uint16](cin)
			if err != nil {
				t.Fatal(err)
			}
			out, err := halide.WrapCBuffer[uint16](cout)
			if err != nil {
				t.Fatal(err)
			}
			if d := in.Dims(); d[0].Min != x0 || d[1].Min != y0 || d[1].Stride != w+5 || !in.HostOnly() {
				t.Errorf("wrapped dims %v host-only %v", d, in.HostOnly())
			}
			iv, _ := in.HostReadOnly()
			if iv.At(x0+3, y0+2) != blurInput(x0+3, y0+2) {
				t.Fatal("the wrapped Array does not see C's data")
			}
			if err := p.Call(in, out); err != nil {
				t.Fatal(err)
			}
			checkBlur(t, func(x, y int) uint16 { return blur.CAt(cout, x, y) }, x0+1, y0+1, w-2, h-2)
			in.Close()
			out.Close()
		})
	}
}

// An Array's halide_buffer_t handed to C: C calls the pipeline directly on
// it. The input's newer device copy comes to host first; the output, which
// has a device copy, is marked host-dirty so the next OpenCL call uploads
// what C wrote.
func TestExportBuffer(t *testing.T) {
	dev := clDevice(t)
	const x0, y0, w, h = 4, 6, 31, 15
	// A device-dirty input: uploaded, marked newer on the device, and its
	// host copy spoiled, so only a copy to host gives the right result.
	in := halide.NewArray[uint16]([]array.Dim{{Min: x0, Extent: w}, {Min: y0, Extent: h}})
	defer in.Close()
	iv, _ := in.Host()
	for y := y0; y < y0+h; y++ {
		for x := x0; x < x0+w; x++ {
			iv.Set(blurInput(x, y), x, y)
		}
	}
	if err := in.CopyToDevice(dev); err != nil {
		t.Fatal(err)
	}
	in.SetDeviceDirty(true)
	hb := in.Raw().HostBytes()
	for i := range hb {
		hb[i] = 0xEE
	}
	out := halide.NewArray[uint16]([]array.Dim{{Min: x0 + 1, Extent: w - 2}, {Min: y0 + 1, Extent: h - 2}})
	defer out.Close()
	if err := out.CopyToDevice(dev); err != nil {
		t.Fatal(err)
	}

	cin, err := halide.ExportBuffer(in)
	if err != nil {
		t.Fatal(err)
	}
	cout, err := halide.ExportBuffer(out)
	if err != nil {
		t.Fatal(err)
	}
	if rc := blur.CBlur(cin.Ptr(), cout.Ptr()); rc != 0 {
		t.Fatalf("blur from C returned %d", rc)
	}
	checkBlur(t, func(x, y int) uint16 { return blur.CAt(cout.Ptr(), x, y) }, x0+1, y0+1, w-2, h-2)
	if err := cin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cout.Close(); err != nil {
		t.Fatal(err)
	}
	if cout.Ptr() != nil || cout.Close() != nil {
		t.Error("Close is not idempotent")
	}
	if !out.HostDirty() {
		t.Error("the exported output with a device copy is not host-dirty")
	}
	ov, err := out.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	checkBlur(t, func(x, y int) uint16 { return ov.At(x, y) }, x0+1, y0+1, w-2, h-2)
}

func TestCBufferErrors(t *testing.T) {
	c := blur.CNewUint16(0, 0, 4, 4, 4)
	defer blur.CFree(c)
	if _, err := halide.WrapCBuffer[float32](c); !errors.Is(err, halide.ErrBadType) {
		t.Errorf("wrong element type: %v", err)
	}
	if _, err := halide.WrapCBuffer[uint16](nil); !errors.Is(err, halide.ErrBufferIsNull) {
		t.Errorf("NULL: %v", err)
	}
	// The flags field follows host, device and device_interface.
	type hb struct {
		device uint64
		iface  unsafe.Pointer
		host   unsafe.Pointer
		flags  uint64
	}
	b := (*hb)(c)
	b.flags = 2 // device_dirty
	if _, err := halide.WrapCBuffer[uint16](c); !errors.Is(err, halide.ErrDeviceDirtyWithNoDeviceSupport) {
		t.Errorf("device-dirty: %v", err)
	}
	b.flags = 0
	host := b.host
	b.host = nil
	if _, err := halide.WrapCBuffer[uint16](c); !errors.Is(err, halide.ErrHostIsNull) {
		t.Errorf("no host: %v", err)
	}
	b.host = host
	var nilArray *array.Array[uint16]
	if _, err := halide.ExportBuffer(nilArray); !errors.Is(err, halide.ErrBufferArgumentIsNull) {
		t.Errorf("export of a nil Array: %v", err)
	}
}
