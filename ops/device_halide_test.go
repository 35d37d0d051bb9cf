package ops_test

import (
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/ops"
)

// TestDevicePipelineOpPipeline chains a Halide OpenCL pipeline, ops and
// the pipeline again on one device: ops run on the queue the pipeline
// uses, so under the transfer guard nothing moves between them.
func TestDevicePipelineOpPipeline(t *testing.T) {
	d, err := opencl.Default()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	const w, h = 64, 48
	in := array.New[uint8](w, h)
	hv, _ := in.Host()
	for i := range hv.Data() {
		hv.Data()[i] = uint8(i % 200)
	}
	b1, b2, out := array.New[uint8](w, h), array.New[uint8](w, h), array.New[uint8](w, h)
	f := array.New[float32](w, h)
	if err := ops.On(d, in, b1, b2, out, f); err != nil {
		t.Fatal(err)
	}
	defer guard.Set(guard.Set(true))
	before := d.Stats()
	steps := []struct {
		name string
		run  func() error
	}{
		{"brighter", func() error { return brighter.Brighter(in, 10, b1) }},
		{"AddScalar", func() error { return ops.BinaryScalar(b2, b1, 3, ops.OpAdd) }},
		{"brighter", func() error { return brighter.Brighter(b2, 1, out) }},
		{"CastWrap", func() error { return ops.CastWrap(f, out) }},
		{"MulScalar", func() error { return ops.BinaryScalar(f, f, 0.5, ops.OpMul) }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	sum, err := ops.Value(ops.Sum, f)
	if err != nil {
		t.Fatal(err)
	}
	if delta := d.Stats().Sub(before); delta.H2DCalls+delta.D2HCalls+delta.D2DCalls != 0 {
		t.Fatalf("pipeline → op → pipeline moved data: %v", delta)
	}
	guard.Set(false)
	ov, err := out.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for y := range h {
		for x := range w {
			v := min(int(uint8(int(uint8(min(int(hv.Data()[y*w+x])+10, 255)))+3))+1, 255)
			if got := ov.At(x, y); int(got) != v {
				t.Fatalf("out(%d, %d) = %d, want %d", x, y, got, v)
			}
			want += float64(v) / 2
		}
	}
	if float64(sum) != want {
		t.Fatalf("SumAll = %v, want %v", sum, want)
	}
}
