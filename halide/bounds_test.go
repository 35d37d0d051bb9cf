package halide_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/callbacks"
)

// blurRef is the host reference of the blur pipeline at (x, y).
func blurRef(in func(x, y int) uint16, x, y int) uint16 {
	bx := func(x, y int) uint32 {
		return (uint32(in(x-1, y)) + uint32(in(x, y)) + uint32(in(x+1, y))) / 3
	}
	return uint16((bx(x, y-1) + bx(x, y) + bx(x, y+1)) / 3)
}

func blurInput(x, y int) uint16 { return uint16(x*x*31 + y*977 + x*y) }

// The bounds query of Halide's blur: an output at min (5, 7) with extent
// 29×13 needs the input at min (4, 6) with extent 31×15. The inputs it
// allocates run the pipeline, on the host and on OpenCL, and the result
// matches the host reference.
func TestBoundsQueryBlur(t *testing.T) {
	wantIn := []array.Dim{{Min: 4, Extent: 31, Stride: 1}, {Min: 6, Extent: 15, Stride: 31}}
	for _, p := range []*halide.Pipeline{blur.BlurPipeline, blur.BlurOpenclPipeline} {
		t.Run(p.Name(), func(t *testing.T) {
			if p.API() == "OpenCL" {
				clDevice(t)
			}
			out := array.NewWithMins[uint16]([]int{5, 7}, []int{29, 13})
			defer out.Close()
			before := out.Raw().HostBytes()[0]

			b, err := p.Bounds(nil, out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b[0], wantIn) {
				t.Errorf("input region %v, want %v", b[0], wantIn)
			}
			if want := out.Dims(); !reflect.DeepEqual(b[1], want) {
				t.Errorf("output region %v, want it unchanged: %v", b[1], want)
			}
			if out.HostDirty() || out.DeviceDirty() || out.Device() != nil || out.Raw().HostBytes()[0] != before {
				t.Error("the bounds query touched the output Array")
			}
			// The output's region alone, as []array.Dim, gives the same.
			if b2, err := p.Bounds(nil, out.Dims()); err != nil || !reflect.DeepEqual(b2[0], wantIn) {
				t.Errorf("Bounds(nil, dims) = %v, %v", b2, err)
			}

			args, err := p.NewInputs(nil, out)
			if err != nil {
				t.Fatal(err)
			}
			in, ok := args[0].(*array.Array[uint16])
			if !ok {
				t.Fatalf("NewInputs gave a %T", args[0])
			}
			defer in.Close()
			if !reflect.DeepEqual(in.Dims(), wantIn) {
				t.Errorf("NewInputs allocated %v, want %v", in.Dims(), wantIn)
			}
			iv, _ := in.Host()
			for y := 6; y < 6+15; y++ {
				for x := 4; x < 4+31; x++ {
					iv.Set(blurInput(x, y), x, y)
				}
			}
			if err := p.Call(args...); err != nil {
				t.Fatal(err)
			}
			ov, err := out.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			for y := 7; y < 7+13; y++ {
				for x := 5; x < 5+29; x++ {
					if got, want := ov.At(x, y), blurRef(blurInput, x, y); got != want {
						t.Fatalf("blur(%d, %d) = %d, want %d", x, y, got, want)
					}
				}
			}
			// One pixel less in any direction is out of bounds.
			small := array.NewWithMins[uint16]([]int{5, 6}, []int{30, 15})
			defer small.Close()
			if err := p.Call(small, out); !errors.Is(err, halide.ErrAccessOutOfBounds) {
				t.Errorf("input one column short: %v, want access_out_of_bounds", err)
			}
		})
	}
}

func TestBoundsQueryErrors(t *testing.T) {
	p := blur.BlurPipeline
	out := array.New[uint16](8, 8)
	for _, tc := range []struct {
		name string
		args []any
		code halide.Code
	}{
		{"nil output", []any{nil, nil}, halide.ErrBoundsQuery},
		{"typed nil output", []any{nil, (*array.Array[uint16])(nil)}, halide.ErrBufferArgumentIsNull},
		{"wrong type", []any{nil, array.New[float32](8, 8)}, halide.ErrBadType},
		{"input of wrong type", []any{array.New[uint8](8, 8), out}, halide.ErrBadType},
		{"wrong rank", []any{nil, []array.Dim{{Extent: 8}}}, halide.ErrBadDimensions},
		{"count", []any{out}, halide.ErrArgCount},
		{"scalar", []any{nil, 3}, halide.ErrBadType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := p.Bounds(tc.args...); !errors.Is(err, tc.code) {
				t.Errorf("got %v, want %v", err, tc.code)
			}
		})
	}
	// A pipeline built with no_bounds_query cannot answer.
	if _, err := callbacks.MtblurPipeline.Bounds(nil, array.New[uint16](8)); !errors.Is(err, halide.ErrBoundsQuery) {
		t.Errorf("bounds query of a no_bounds_query pipeline: %v", err)
	}
	// An input Array is asked for, whatever its layout.
	b, err := p.Bounds(array.New[uint16](1, 1), out)
	if err != nil || b[0][0].Extent != 10 || b[0][1].Min != -1 {
		t.Errorf("Bounds(Array, out) = %v, %v", b, err)
	}
}

// A failed call leaks nothing and leaves the Arrays as they were, as
// Halide's cleanup_on_error test asks of the runtime: on OpenCL, with a
// device intermediate (blur_x), host-only inputs uploaded for the call are
// freed again and a resident output keeps its last good result.
func TestCleanupOnError(t *testing.T) {
	dev := clDevice(t)
	p := blur.BlurOpenclPipeline
	out := array.NewWithMins[uint16]([]int{2, 3}, []int{40, 20})
	defer out.Close()
	args, err := p.NewInputs(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	in := args[0].(*array.Array[uint16])
	defer in.Close()
	iv, _ := in.Host()
	for y := 2; y < 2+22; y++ {
		for x := 1; x < 1+42; x++ {
			iv.Set(blurInput(x, y), x, y)
		}
	}
	if err := p.Call(in, out); err != nil {
		t.Fatal(err)
	}
	before := dev.Stats()
	short := make([]uint16, 41*22) // one column short
	for i := 0; i < 50; i++ {
		small, err := array.Wrap(short, []array.Dim{{Min: 1, Extent: 41, Stride: 1}, {Min: 2, Extent: 22, Stride: 41}})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Call(small, out); !errors.Is(err, halide.ErrAccessOutOfBounds) {
			t.Fatalf("call %d: %v, want access_out_of_bounds", i, err)
		}
		if small.Device() != nil {
			t.Fatal("a failed call left the host-only input its temporary device allocation")
		}
	}
	if s := dev.Stats(); s.AllocsLive != before.AllocsLive || s.BytesLive != before.BytesLive {
		t.Errorf("after 50 failed calls: live allocations %d → %d, bytes %d → %d", before.AllocsLive, s.AllocsLive, before.BytesLive, s.BytesLive)
	}
	if !out.DeviceDirty() {
		t.Error("the resident output lost its device copy")
	}
	ov, err := out.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	checkBlur(t, func(x, y int) uint16 { return ov.At(x, y) }, 2, 3, 40, 20)
}
