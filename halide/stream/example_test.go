package stream_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/ops"
)

// Two brighter stages (+10 each) and an op (+100), streamed in three bands of a 4×5 image:
// the output equals the unstreamed chain's, and the device moved the
// input up and the output down once, band by band.
func Example() {
	bright, err := stream.Pipeline(brighter.BrighterPipeline, uint8(10))
	if err != nil {
		panic(err)
	}
	plus := stream.Op("+100", func(out, in *array.Array[uint8]) error { return ops.AddScalar(out, in, 100) })
	src := array.New[uint8](4, 5)
	v, _ := src.Host()
	for i, d := 0, v.Data(); i < len(d); i++ {
		d[i] = uint8(i)
	}
	dst := array.New[uint8](4, 5)
	dev, err := halide.OpenCLDevice()
	if err != nil {
		panic(err)
	}
	before := dev.Stats()
	if err := stream.Run(dst, src, stream.Options{Bands: 3}, bright, bright, plus); err != nil {
		panic(err)
	}
	s := dev.Stats().Sub(before)
	out, _ := dst.HostReadOnly()
	fmt.Println(out.Data())
	fmt.Printf("up %d B in %d transfers, down %d B in %d\n", s.H2DBytes, s.H2DCalls, s.D2HBytes, s.D2HCalls)
	// Output:
	// [120 121 122 123 124 125 126 127 128 129 130 131 132 133 134 135 136 137 138 139]
	// up 20 B in 3 transfers, down 20 B in 3
}

// A chain that ends in a sum, streamed: the brighter stage runs band by
// band and each band's sum (ops.EvalSum of the band cast to float32) is
// all that comes home, one element per band; the host adds them.
func ExampleReduce() {
	bright, err := stream.Pipeline(brighter.BrighterPipeline, uint8(10))
	if err != nil {
		panic(err)
	}
	src := array.New[uint8](4, 5)
	v, _ := src.Host()
	for i, d := 0, v.Data(); i < len(d); i++ {
		d[i] = uint8(i)
	}
	const bands = 2
	o := stream.Options{Bands: bands} // the Reduce step cuts its input as the Run cuts the output
	sum := stream.Reduce("sum", src.Dims(), o.Cut(), func(out *array.Array[float32], in *array.Array[uint8]) error {
		return ops.EvalSum(out, ops.AsType[float32](ops.In(in)))
	})
	sums := array.New[float32](bands)
	dev, err := halide.OpenCLDevice()
	if err != nil {
		panic(err)
	}
	before := dev.Stats()
	if err := stream.Run(sums, src, o, bright, sum); err != nil {
		panic(err)
	}
	s := dev.Stats().Sub(before)
	got, _ := sums.HostReadOnly()
	fmt.Println(got.Data(), got.Data()[0]+got.Data()[1])
	fmt.Printf("up %d B in %d transfers, down %d B in %d\n", s.H2DBytes, s.H2DCalls, s.D2HBytes, s.D2HCalls)
	// Output:
	// [186 204] 390
	// up 20 B in 2 transfers, down 8 B in 2
}
