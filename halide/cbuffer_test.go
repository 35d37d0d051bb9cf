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
			if p.API() == "OpenCL" {
				clDevice(t)
			}
			cin := blur.CNewUint16(x0, y0, w, h, w+5) // padded rows
			defer blur.CFree(cin)
			cout := blur.CNewUint16(x0+1, y0+1, w-2, h-2, w)
			defer blur.CFree(cout)
			in, err := halide.WrapCBuffer[uint16](cin, halide.WrapOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := halide.WrapCBuffer[uint16](cout, halide.WrapOptions{})
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
	in := array.NewWithMins[uint16]([]int{x0, y0}, []int{w, h})
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
	out := array.NewWithMins[uint16]([]int{x0 + 1, y0 + 1}, []int{w - 2, h - 2})
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
	if _, err := halide.WrapCBuffer[float32](c, halide.WrapOptions{}); !errors.Is(err, halide.ErrBadType) {
		t.Errorf("wrong element type: %v", err)
	}
	if _, err := halide.WrapCBuffer[uint16](nil, halide.WrapOptions{}); !errors.Is(err, halide.ErrBufferIsNull) {
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
	if _, err := halide.WrapCBuffer[uint16](c, halide.WrapOptions{}); !errors.Is(err, halide.ErrDeviceDirtyWithNoDeviceSupport) {
		t.Errorf("device-dirty: %v", err)
	}
	b.flags = 0
	host := b.host
	b.host = nil
	if _, err := halide.WrapCBuffer[uint16](c, halide.WrapOptions{}); !errors.Is(err, halide.ErrHostIsNull) {
		t.Errorf("no host: %v", err)
	}
	b.host = host
	var nilArray *array.Array[uint16]
	if _, err := halide.ExportBuffer(nilArray); !errors.Is(err, halide.ErrBufferArgumentIsNull) {
		t.Errorf("export of a nil Array: %v", err)
	}
}

// cBuf mirrors struct halide_buffer_t (56 bytes) and cDim
// halide_dimension_t (16), so tests can give WrapCBuffer any dims.
type cBuf struct {
	device     uint64
	iface      unsafe.Pointer
	host       unsafe.Pointer
	flags      uint64
	code, bits uint8
	lanes      uint16
	dimensions int32
	dim        *cDim
	padding    unsafe.Pointer
}

type cDim struct{ min, extent, stride, flags int32 }

// cBufWith is a copy of C's 4×4 uint16 buffer c (host memory of 16
// elements) with dims replaced; the mirror's layout is checked against C's.
func cBufWith(t testing.TB, c unsafe.Pointer, dims []cDim) *cBuf {
	if unsafe.Sizeof(cBuf{}) != 56 || unsafe.Sizeof(cDim{}) != 16 {
		t.Fatalf("mirror sizes %d, %d; want 56, 16", unsafe.Sizeof(cBuf{}), unsafe.Sizeof(cDim{}))
	}
	b := *(*cBuf)(c)
	if b.code != 1 || b.bits != 16 || b.lanes != 1 || b.dimensions != 2 ||
		*b.dim != (cDim{0, 4, 1, 0}) || *(*cDim)(unsafe.Add(unsafe.Pointer(b.dim), 16)) != (cDim{0, 4, 4, 0}) {
		t.Fatalf("the mirror misreads C's halide_buffer_t: %+v", b)
	}
	b.dimensions = int32(len(dims))
	b.dim = nil
	if len(dims) > 0 {
		b.dim = &dims[0]
	}
	return &b
}

// TestWrapCBufferHugeDims: dims whose span overflows int, or whose bytes
// exceed what memory holds, are an error wrapping ErrBufferExtentsTooLarge;
// they were an unsafe.Slice panic ("len out of range").
func TestWrapCBufferHugeDims(t *testing.T) {
	c := blur.CNewUint16(0, 0, 4, 4, 4)
	defer blur.CFree(c)
	const m = 1<<31 - 1
	for _, rank := range []int{1, 2, 3, 4} {
		dims := make([]cDim, rank)
		for i := range dims {
			dims[i] = cDim{extent: m, stride: m}
		}
		dims[0].stride = 1
		a, err := halide.WrapCBuffer[uint16](unsafe.Pointer(cBufWith(t, c, dims)), halide.WrapOptions{})
		if rank == 1 {
			if err != nil || a.Len() != m {
				t.Errorf("rank 1: %v", err) // don't print a: C holds 16 of its elements
			}
			continue
		}
		if !errors.Is(err, halide.ErrBufferExtentsTooLarge) {
			t.Errorf("rank %d of extent and stride 2^31-1: got an Array %v, error %v; want ErrBufferExtentsTooLarge", rank, a != nil, err)
		}
	}
	if _, err := halide.WrapCBuffer[uint16](unsafe.Pointer(cBufWith(t, c, []cDim{{extent: -1, stride: 1}})), halide.WrapOptions{}); !errors.Is(err, halide.ErrBufferExtentsNegative) {
		t.Errorf("negative extent: %v", err)
	}
}

// FuzzWrapCBuffer gives WrapCBuffer up to 4 dims of any int32 min, extent
// and stride (the arguments are int64, truncated as C would store them): it
// returns an error or an Array with exactly those dims, never panics, and
// an Array within C's 16 elements reads them all.
func FuzzWrapCBuffer(f *testing.F) {
	const m = 1<<31 - 1
	f.Add(uint8(2), int64(0), int64(4), int64(1), int64(0), int64(4), int64(4), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0))
	f.Add(uint8(3), int64(0), int64(m), int64(m), int64(0), int64(m), int64(m), int64(0), int64(m), int64(m), int64(0), int64(0), int64(0))
	f.Add(uint8(4), int64(-1<<31), int64(m), int64(m), int64(m), int64(m), int64(m), int64(0), int64(m), int64(m), int64(5), int64(m), int64(m))
	f.Add(uint8(2), int64(3), int64(-5), int64(1), int64(0), int64(0), int64(-1), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0))
	f.Add(uint8(3), int64(0), int64(2), int64(1), int64(0), int64(2), int64(2), int64(1<<40), int64(2), int64(4), int64(0), int64(0), int64(0))
	c := blur.CNewUint16(0, 0, 4, 4, 4)
	f.Cleanup(func() { blur.CFree(c) })
	f.Fuzz(func(t *testing.T, rank uint8, m0, e0, s0, m1, e1, s1, m2, e2, s2, m3, e3, s3 int64) {
		all := []cDim{
			{int32(m0), int32(e0), int32(s0), 0}, {int32(m1), int32(e1), int32(s1), 0},
			{int32(m2), int32(e2), int32(s2), 0}, {int32(m3), int32(e3), int32(s3), 0},
		}
		dims := all[:rank%5]
		a, err := halide.WrapCBuffer[uint16](unsafe.Pointer(cBufWith(t, c, dims)), halide.WrapOptions{})
		if err != nil {
			return
		}
		defer a.Close()
		got := a.Dims()
		span := 1
		for i, d := range dims {
			if got[i] != (array.Dim{Min: int(d.min), Extent: int(d.extent), Stride: int(d.stride)}) {
				t.Fatalf("dim %d = %+v, C has %+v", i, got[i], d)
			}
			if d.extent == 0 {
				span = 0
			} else if span > 0 {
				span += int(d.extent-1) * int(d.stride) // no overflow: WrapCBuffer checked it
			}
		}
		if span > 0 && span <= 16 {
			v, err := a.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, x := range v.Data() {
				sum += int(x)
			}
			_ = sum
		}
	})
}
