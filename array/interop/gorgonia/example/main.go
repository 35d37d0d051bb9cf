// Command example feeds a gorgonia ExprGraph, without copying, with Arrays
// that Halide lesson 10's brighter pipeline reads and writes.
//
// It lives in its own module so that gorgonia's dependencies (125 modules)
// stay out of the library's graph. Run it from this directory:
//
//	go run .
//	go test .
package main

import (
	"fmt"
	"io"
	"os"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	rg "github.com/resident-go/resident/array/interop/gorgonia"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

const width, height = 64, 48

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	// The input is device-aware; the output wraps Go memory (host-only), so
	// every pipeline call leaves its pixels current on the host.
	in := array.New[uint8](width, height)
	h, err := in.Host()
	if err != nil {
		return err
	}
	for y := range height {
		for x := range width {
			h.Set(uint8((x+2*y)%200), x, y)
		}
	}
	pixels := make([]uint8, width*height)
	out := array.FromSlice(pixels, width, height)
	// The OpenCL build where there is an OpenCL driver, else the host
	// build: the same pixels.
	brighten := brighter.Brighter
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
		brighten = brighter.BrighterHost
	}
	if err := brighten(in, 10, out); err != nil {
		return err
	}

	// Zero-copy: the Dense is (height, width) over the Arrays' memory.
	din, err := rg.ToDense(in)
	if err != nil {
		return err
	}
	dout, err := rg.ToDense(out)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "Dense shape", dout.Shape(), "shares the pipeline's output:", &dout.Data().([]uint8)[0] == &pixels[0])

	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Uint8, gorgonia.WithShape(height, width), gorgonia.WithName("in"), gorgonia.WithValue(din))
	y := gorgonia.NewMatrix(g, tensor.Uint8, gorgonia.WithShape(height, width), gorgonia.WithName("out"), gorgonia.WithValue(dout))
	diff, err := gorgonia.Sub(y, x)
	if err != nil {
		return err
	}
	var delta gorgonia.Value
	gorgonia.Read(diff, &delta)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()

	report := func(k uint8) error {
		if err := vm.RunAll(); err != nil {
			return err
		}
		d := delta.(*tensor.Dense)
		at, _ := d.At(5, 7)
		fmt.Fprintf(w, "k=%d: out-in at (y 5, x 7) = %v, out = %v\n", k, at, pixels[5*width+7])
		vm.Reset()
		return nil
	}
	if err := report(10); err != nil {
		return err
	}
	// The pipeline writes the same memory again: the graph sees it on its
	// next run, with nothing fed anew.
	if err := brighten(in, 50, out); err != nil {
		return err
	}
	return report(50)
}
