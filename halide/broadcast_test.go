package halide_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// TestBroadcastInput: a read-only broadcast view (one row repeated, stride
// 0 in dimension 1) is a pipeline input as NumPy's broadcast_to is: the
// host and the OpenCL brighter read every row as the source row, the
// OpenCL call uploads only the source's bytes (and none once it is
// current there), a device-dirty source stays on the device, and the
// source's state is what the call leaves. A broadcast along dimension 0
// is refused by the pipeline's own stride-1 constraint, not misread. As an
// output a read-only view is ErrReadOnlyOutput, wrapping array.ErrReadOnly,
// before anything moves.
func TestBroadcastInput(t *testing.T) {
	const w, h = 37, 9
	row := pattern(w, 1)
	want := make([]uint8, 0, w*h)
	for range h {
		want = append(want, row...)
	}
	check := func(what string, out *array.Array[uint8]) {
		t.Helper()
		v, err := out.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, v.Data(), want, 30)
		if t.Failed() {
			t.Fatalf("%s", what)
		}
	}
	t.Run("host", func(t *testing.T) {
		src := array.FromValues(row) // host-only
		in, err := src.BroadcastTo(h, w)
		if err != nil {
			t.Fatal(err)
		}
		out := array.New[uint8](w, h)
		defer out.Close()
		if err := brighter.BrighterHost(in, 30, out); err != nil {
			t.Fatal(err)
		}
		check("host pipeline", out)
	})
	t.Run("opencl", func(t *testing.T) {
		d := clDevice(t)
		src := array.New[uint8](w)
		defer src.Close()
		hs, _ := src.Host()
		copy(hs.Data(), row)
		in, err := src.BroadcastTo(h, w)
		if err != nil {
			t.Fatal(err)
		}
		out := array.New[uint8](w, h)
		defer out.Close()
		s0 := d.Stats()
		if err := brighter.BrighterPipeline.CallWith(halide.Options{Device: d}, in, uint8(30), out); err != nil {
			t.Fatal(err)
		}
		if s := d.Stats().Sub(s0); s.H2DBytes != w {
			t.Errorf("first call uploaded %d bytes, want the source's %d", s.H2DBytes, w)
		}
		if !out.DeviceDirty() || src.HostDirty() || src.DeviceDirty() || in.DeviceDirty() {
			t.Errorf("after the call: out device-dirty %v; source host-dirty %v device-dirty %v; view device-dirty %v",
				out.DeviceDirty(), src.HostDirty(), src.DeviceDirty(), in.DeviceDirty())
		}
		check("OpenCL pipeline", out)
		// The source written on the device: read in place by the next call.
		s2 := src.ExpandDims(0)
		if err := brighter.Brighter(s2, 0, s2); err != nil { // in place: leaves it device-dirty
			t.Fatal(err)
		}
		if !src.DeviceDirty() {
			t.Fatal("source not device-dirty after an OpenCL call wrote it")
		}
		s1 := d.Stats()
		if err := brighter.Brighter(in, 30, out); err != nil {
			t.Fatal(err)
		}
		if s := d.Stats().Sub(s1); s.H2DCalls+s.D2HCalls != 0 {
			t.Errorf("a broadcast of a device-resident source moved data: %+v", s)
		}
		if !src.DeviceDirty() {
			t.Error("the call changed the read-only input's source state")
		}
		check("OpenCL pipeline on a device-dirty source", out)
	})
	t.Run("stride-0 dimension 0", func(t *testing.T) {
		col := array.FromValues(pattern(h, 1), h, 1)
		in, err := col.BroadcastTo(h, w) // in(x, y) = col[y]: dimension 0 stride 0
		if err != nil {
			t.Fatal(err)
		}
		out := array.New[uint8](w, h)
		defer out.Close()
		err = brighter.BrighterHost(in, 1, out)
		if !errors.Is(err, halide.ErrConstraintViolated) {
			t.Fatalf("got %v, want the pipeline's stride constraint (-8)", err)
		}
	})
	t.Run("output", func(t *testing.T) {
		for _, p := range []*halide.Pipeline{brighter.BrighterHostPipeline, brighter.BrighterPipeline} {
			var d device.Device
			if p == brighter.BrighterPipeline {
				d = clDevice(t)
			}
			in := array.New[uint8](w, h)
			defer in.Close()
			src := array.New[uint8](w)
			defer src.Close()
			out, err := src.BroadcastTo(h, w)
			if err != nil {
				t.Fatal(err)
			}
			var s0 device.Stats
			if d != nil {
				s0 = d.Stats()
			}
			err = p.Call(in, uint8(1), out)
			if !errors.Is(err, halide.ErrReadOnlyOutput) || !errors.Is(err, array.ErrReadOnly) {
				t.Fatalf("%s: got %v, want ErrReadOnlyOutput wrapping array.ErrReadOnly", p.Name(), err)
			}
			if d != nil {
				if s := d.Stats().Sub(s0); s.H2DCalls+s.D2HCalls+s.AllocsTotal != 0 {
					t.Errorf("%s: the refused call moved or allocated: %+v", p.Name(), s)
				}
			}
			if in.Device() != nil || src.Device() != nil {
				t.Errorf("%s: the refused call allocated an operand", p.Name())
			}
			t.Log(err)
		}
	})
}

// TestExportBroadcast: ExportBuffer of a read-only broadcast view marks
// nothing (C may only read it), where exporting a writable Array marks
// its host copy newest.
func TestExportBroadcast(t *testing.T) {
	d := sim.New("export", 0)
	defer d.Close()
	src := array.New[uint8](4)
	defer src.Close()
	if err := src.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	in, err := src.BroadcastTo(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := halide.ExportBuffer(in)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	if src.HostDirty() {
		t.Error("exporting a read-only view marked its source host-dirty")
	}
	w, err := halide.ExportBuffer(src)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !src.HostDirty() {
		t.Error("exporting a writable Array left it clean (C may write)")
	}
}
