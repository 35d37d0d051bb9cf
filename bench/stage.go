package bench

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
)

// Stage is one step of a chain: it reads in (the previous stage's output,
// or the chain's Width × Height uint8 input) and writes every element of
// out, which is of the kind Out describes. in and out are Arrays or host
// views; a Stage must follow their residency (as halide.Call does):
// device-aware Arrays stay on the device, host-only values end current on
// the host.
type Stage struct {
	Name string
	Run  func(in, out array.Buffer) error
	// Out is the stage's output; the zero value is a uint8 image of the
	// chain's size, as in and out are in a chain of brighter stages.
	Out Output
	// Ref, when set, computes the stage on the host in float64: src holds
	// the input's elements, dst (of the output's length) gets the
	// output's, both dense. Run checks the chain's output against it.
	Ref func(dst, src []float64)
	// Tol is the relative tolerance of the check when this stage is the
	// last of the chain: every output element must satisfy |got − want| ≤
	// Tol·|want| against the float64 references. 0 asks for equality,
	// right for integer stages and exact casts.
	Tol float64
}

// Pipeline is a Stage that calls the registered Halide pipeline name with
// (input, scalars..., output), the shape of Halide's lesson 10 generators.
// It returns the device the pipeline runs on (halide.DefaultDevice("OpenCL") for
// an OpenCL pipeline, halide.DefaultDevice("CUDA") for a CUDA one), or nil for a
// host pipeline.
func Pipeline(name string, scalars ...any) (Stage, device.Device, error) {
	p, err := halide.Lookup(name)
	if err != nil {
		return Stage{}, nil, err
	}
	if n := len(p.Args()); n != len(scalars)+2 {
		return Stage{}, nil, fmt.Errorf("bench: pipeline %s takes %d arguments; a stage passes input, %d scalars, output", p, n, len(scalars))
	}
	run := func(in, out array.Buffer) error {
		// Call keeps no reference to its argument slice, so a fixed buffer
		// keeps the slice on the stack: no allocation per stage in the
		// timed loop for pipelines with up to 6 scalars.
		var buf [8]any
		return p.Call(append(append(append(buf[:0], in), scalars...), out)...)
	}
	var dev device.Device
	switch {
	case p.API() == "OpenCL":
		d, err := halide.DefaultDevice("OpenCL")
		if err != nil {
			return Stage{}, nil, err
		}
		dev = d
	case p.API() == "CUDA":
		d, err := halide.DefaultDevice("CUDA")
		if err != nil {
			return Stage{}, nil, err
		}
		dev = d
	}
	return Stage{Name: name, Run: run}, dev, nil
}

// Repeat returns a chain of n copies of s.
func Repeat(s Stage, n int) []Stage {
	c := make([]Stage, n)
	for i := range c {
		c[i] = s
	}
	return c
}

// Brighter is the lesson-10 stage: the registered OpenCL pipeline
// "brighter" (uint8, 2-D, out = saturating in + k), with its reference.
// The program registers it by importing its package
// (github.com/resident-go/resident/halide/examples/brighter), as the
// residency command does: the library imports no example.
func Brighter(k uint8) (Stage, device.Device, error) {
	s, dev, err := Pipeline("brighter", k)
	s.Ref = SaturatingAdd(k)
	return s, dev, err
}

// BrighterCUDA is Brighter's stage on CUDA: the registered pipeline
// "brighter_cuda" (the same generator built with halide-gen -target
// cuda), on halide.DefaultDevice("CUDA").
func BrighterCUDA(k uint8) (Stage, device.Device, error) {
	s, dev, err := Pipeline("brighter_cuda", k)
	s.Ref = SaturatingAdd(k)
	return s, dev, err
}

// BrighterOn is the brighter stage whose pipeline runs on dev's API:
// BrighterCUDA's on a CUDA device, else Brighter's (OpenCL).
func BrighterOn(dev device.Device, k uint8) (Stage, error) {
	if n, ok := dev.(device.Native); ok && n.API() == "CUDA" {
		s, _, err := BrighterCUDA(k)
		return s, err
	}
	s, _, err := Brighter(k)
	return s, err
}

// SaturatingAdd returns a reference that sets dst to src + k, saturating
// at 255 (src holds uint8 values).
func SaturatingAdd(k uint8) func(dst, src []float64) {
	return func(dst, src []float64) {
		for i, x := range src {
			dst[i] = min(x+float64(k), 255)
		}
	}
}
