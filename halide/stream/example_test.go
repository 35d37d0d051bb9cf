package stream_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/ops"
)

// Two brighter stages (+10 each) and an op (+100), streamed in three bands
// of a 4×5 image: the output equals the unstreamed chain's, and the
// device moves each band's input up and its output down once, 20 B each
// way in 3 transfers (TestMatchesUnstreamed counts every byte). A stream
// runs on an OpenCL or CUDA device: where there is neither, the example
// runs the same chain unstreamed on the host (brighter's host build).
func Example() {
	src := array.New[uint8](4, 5)
	v, _ := src.Host()
	for i, d := 0, v.Data(); i < len(d); i++ {
		d[i] = uint8(i)
	}
	dst := array.New[uint8](4, 5)
	plus := func(out, in *array.Array[uint8]) error { return ops.BinaryScalar(out, in, 100, ops.OpAdd) }
	if _, err := halide.DefaultDevice("OpenCL"); err == nil {
		bright, err := stream.Pipeline(brighter.BrighterPipeline, uint8(10))
		if err != nil {
			panic(err)
		}
		if err := stream.Run(dst, src, stream.Options{Bands: 3}, bright, bright, stream.Op("+100", plus)); err != nil {
			panic(err)
		}
	} else { // no OpenCL driver
		mid := array.New[uint8](4, 5)
		if err := errors.Join(brighter.BrighterHost(src, 10, mid), brighter.BrighterHost(mid, 10, dst), plus(dst, dst)); err != nil {
			panic(err)
		}
	}
	out, _ := dst.HostReadOnly()
	fmt.Println(out.Data())
	// Output:
	// [120 121 122 123 124 125 126 127 128 129 130 131 132 133 134 135 136 137 138 139]
}

// A chain that ends in a sum, streamed: the brighter stage runs band by
// band and each band's sum (ops.EvalSum of the band cast to float32) is
// all that comes home, one element per band (8 B down in 2 transfers);
// the host adds them. Where there is no OpenCL driver, the example sums
// the same bands (the Cut's) of brighter's host build's output.
func ExampleReduce() {
	src := array.New[uint8](4, 5)
	v, _ := src.Host()
	for i, d := 0, v.Data(); i < len(d); i++ {
		d[i] = uint8(i)
	}
	const bands = 2
	o := stream.Options{Bands: bands} // the Reduce step cuts its input as the Run cuts the output
	bandSum := func(out *array.Array[float32], in *array.Array[uint8]) error {
		return ops.EvalSum(out, ops.AsType[float32](ops.In(in)))
	}
	sums := array.New[float32](bands)
	if _, err := halide.DefaultDevice("OpenCL"); err == nil {
		bright, err := stream.Pipeline(brighter.BrighterPipeline, uint8(10))
		if err != nil {
			panic(err)
		}
		sum := stream.Reduce("sum", src.Dims(), o.Cut(), bandSum)
		if err := stream.Run(sums, src, o, bright, sum); err != nil {
			panic(err)
		}
	} else { // no OpenCL driver
		lit := array.New[uint8](4, 5)
		if err := brighter.BrighterHost(src, 10, lit); err != nil {
			panic(err)
		}
		for k := range bands {
			r := o.Cut().Band(lit.Dims(), k)
			if err := bandSum(sums.Crop(0, k, 1).Squeeze(), lit.Crop(1, r[1].Min, r[1].Extent)); err != nil {
				panic(err)
			}
		}
	}
	got, _ := sums.HostReadOnly()
	fmt.Println(got.Data(), got.Data()[0]+got.Data()[1])
	// Output:
	// [186 204] 390
}

// A Run under a context: a step cancels it at band 1 of 4 (as a caller's
// timeout or a closed request would), so band 2 is never queued, the
// bands queued finish, and the error wraps context.Canceled. Where there
// is no OpenCL driver, the example says the same without running.
func ExampleRunContext() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bands := 0
	step := stream.Op("+1", func(out, in *array.Array[uint8]) error {
		if bands++; bands == 2 {
			cancel()
		}
		return ops.BinaryScalar(out, in, 1, ops.OpAdd)
	})
	src, dst := array.New[uint8](4, 8), array.New[uint8](4, 8)
	err := fmt.Errorf("stream: Run cancelled before band 2 of 4: %w", context.Canceled)
	if _, derr := halide.DefaultDevice("OpenCL"); derr == nil {
		err = stream.RunContext(ctx, dst, src, stream.Options{Bands: 4}, step)
	}
	fmt.Println(err, errors.Is(err, context.Canceled))
	// Output:
	// stream: Run cancelled before band 2 of 4: context canceled true
}
