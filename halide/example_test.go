package halide_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// Lesson 10's brighter on the host target: a 4×2 uint8 image plus 10,
// saturating at 255.
func Example() {
	in := array.FromSlice([]uint8{0, 50, 100, 250, 1, 2, 3, 255}, 4, 2)
	out := array.FromSlice(make([]uint8, 8), 4, 2)
	if err := brighter.BrighterHost(in, 10, out); err != nil {
		fmt.Println(err)
		return
	}
	v, _ := out.HostReadOnly()
	fmt.Println(v.Data())

	// A mismatched argument is an error value, checked before calling.
	err := brighter.BrighterHost(array.FromSlice(make([]float32, 24), 4, 2, 3), 10, out)
	fmt.Println(err)
	// Output:
	// [10 60 110 255 11 12 13 255]
	// brighter_host: argument "input" wants a 2-D uint8 buffer, got a 3-D float32 Array (Halide: Input buffer input has type uint8 but type of the buffer passed in is float32) (halide error -3, bad_type)
}

// A call under a context that is done queues nothing: the pipeline does
// not run and the output keeps its values.
func ExamplePipeline_CallContext() {
	in := array.FromSlice([]uint8{1, 2, 3, 4}, 4, 1)
	out := array.FromSlice(make([]uint8, 4), 4, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := brighter.BrighterHostPipeline.CallContext(ctx, halide.Options{}, in, uint8(10), out)
	fmt.Println(errors.Is(err, context.Canceled), errors.Is(err, halide.ErrCanceled))
	v, _ := out.HostReadOnly()
	fmt.Println(v.Data())

	err = brighter.BrighterHostPipeline.CallContext(context.Background(), halide.Options{}, in, uint8(10), out)
	fmt.Println(err, v.Data())
	// Output:
	// true true
	// [0 0 0 0]
	// <nil> [11 12 13 14]
}
