package halide_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/params"
)

// Size an input the way Halide users do: ask the pipeline which region of
// it an output needs.
func ExamplePipeline_Bounds() {
	out := array.NewWithMins[uint16]([]int{5, 7}, []int{29, 13})
	b, err := blur.BlurPipeline.Bounds(nil, out)
	if err != nil {
		panic(err)
	}
	in := array.NewWithMins[uint16](array.Box(b[0]))
	d := in.Dims()
	fmt.Printf("input min (%d, %d) extent %d×%d\n", d[0].Min, d[1].Min, d[0].Extent, d[1].Extent)
	fmt.Println(blur.BlurPipeline.Call(in, out))
	// Output:
	// input min (4, 6) extent 31×15
	// <nil>
}

// Scalar metadata, as a generator declared it.
func ExampleArg() {
	for _, a := range params.ParamsPipeline.Args() {
		if a.Kind == halide.InputScalar {
			fmt.Printf("%s (%s): default %v, range [%v, %v]\n", a.Name, a.GoName, a.Default, a.Min, a.Max)
		}
	}
	// Output:
	// gain (gain): default 1, range [0, 8]
	// bias_level (biasLevel): default 0, range [-255, 255]
	// invert (invert): default false, range [<nil>, <nil>]
}
