package halide_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/params"
)

// Scalars' defaults, ranges and estimates, buffers' estimates and Go-style
// names come from the metadata.
func TestArgMetadata(t *testing.T) {
	for _, p := range []*halide.Pipeline{params.ParamsPipeline, params.ParamsOpenclPipeline} {
		args := p.Args()
		want := []halide.Arg{
			{Name: "input", GoName: "input", Kind: halide.InputBuffer, Type: args[0].Type, Dims: 2,
				Estimates: []halide.DimEstimate{{Min: 0, Extent: 640, HasMin: true, HasExtent: true}, {Min: 0, Extent: 480, HasMin: true, HasExtent: true}}},
			{Name: "gain", GoName: "gain", Kind: halide.InputScalar, Type: args[1].Type,
				Default: float32(1), Min: float32(0), Max: float32(8), Estimate: float32(2)},
			{Name: "bias_level", GoName: "biasLevel", Kind: halide.InputScalar, Type: args[2].Type,
				Default: int16(0), Min: int16(-255), Max: int16(255), Estimate: int16(10)},
			{Name: "invert", GoName: "invert", Kind: halide.InputScalar, Type: args[3].Type, Default: false},
			{Name: "output", GoName: "output", Kind: halide.OutputBuffer, Type: args[4].Type, Dims: 2,
				Estimates: []halide.DimEstimate{{Min: 0, Extent: 640, HasMin: true, HasExtent: true}, {Min: 0, Extent: 480, HasMin: true, HasExtent: true}}},
		}
		if !reflect.DeepEqual(args, want) {
			t.Errorf("%s: Args() =\n%+v\nwant\n%+v", p.Name(), args, want)
		}
		s := p.String()
		for _, frag := range []string{
			"gain float32 scalar [default 1, min 0, max 8, estimate 2]",
			"bias_level int16 scalar [default 0, min -255, max 255, estimate 10]",
			"invert bool scalar [default false]",
			"input 2-D uint8 buffer [estimates [0, 640] [0, 480]]",
		} {
			if !strings.Contains(s, frag) {
				t.Errorf("%s: String() = %q lacks %q", p.Name(), s, frag)
			}
		}
	}
	// A scalar declared without default or range has none.
	k := brighter.BrighterPipeline.Args()[1]
	if k.Default != nil || k.Min != nil || k.Max != nil || k.Estimate != nil || k.Estimates != nil {
		t.Errorf("brighter's k: %+v, want no metadata", k)
	}
	if got := blur.BlurPipeline.Args()[1].GoName; got != "blurY" {
		t.Errorf("blur_y's GoName = %q", got)
	}
}
