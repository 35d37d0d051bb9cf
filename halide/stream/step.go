package stream

import (
	"context"
	"fmt"
	"github.com/resident-go/resident/internal/guard"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
)

// Step is one stage of a streamed chain. Run computes out from in on the
// device: both are device-resident band buffers, *array.Array views whose
// mins are the band's coordinates in the whole chain (so a pipeline sees
// the same coordinates as unstreamed), and Run must leave every element of
// out written on the device (a pipeline call or an op on these Arrays
// does; a step that ran on the host is an error).
type Step struct {
	// Name names the step in errors.
	Name string
	Run  func(out, in array.Buffer) error
	// RunContext, when not nil, is Run under the ctx of the Stream's
	// RunContext (which may carry device.WithGuard), and runs instead of
	// Run there.
	RunContext func(ctx context.Context, out, in array.Buffer) error
	// In is the element type the step reads; the zero Type takes the
	// previous step's (or the source's).
	In array.Type
	// Out is the element type the step writes; the zero Type is its
	// input's.
	Out array.Type
	// Needs returns the region of in (one Dim per dimension, Min and
	// Extent) that Run reads to compute the region out; nil: the same
	// region, as for an elementwise op. A pipeline's is its bounds query,
	// so a stencil's bands get their halo.
	Needs func(out []array.Dim) ([]array.Dim, error)
}

// Pipeline is the Step that calls p with (in, scalars..., out), the
// shape of Halide's lesson 10 generators: one input buffer, scalars, one
// output buffer. Its Needs is p's bounds query (Pipeline.Bounds), so every
// band's input includes the halo the pipeline reads.
func Pipeline(p *halide.Pipeline, scalars ...any) (Step, error) {
	args := p.Args()
	if len(args) != len(scalars)+2 || args[0].Kind != halide.InputBuffer || args[len(args)-1].Kind != halide.OutputBuffer {
		return Step{}, fmt.Errorf("%w: pipeline %s: a step calls (input buffer, %d scalars, output buffer)", ErrChain, p, len(scalars))
	}
	qargs := make([]any, 0, len(args))
	qargs = append(append(qargs, nil), scalars...)
	return Step{
		Name: p.Name(),
		In:   args[0].Type,
		Out:  args[len(args)-1].Type,
		Run: func(out, in array.Buffer) error {
			var buf [8]any // Call keeps no reference: the slice stays on the stack
			return p.Call(append(append(append(buf[:0], in), scalars...), out)...)
		},
		RunContext: func(ctx context.Context, out, in array.Buffer) error {
			var buf [8]any
			o := halide.Options{Guard: guard.InContext(ctx)}
			return p.CallContext(ctx, o, append(append(append(buf[:0], in), scalars...), out)...)
		},
		Needs: func(out []array.Dim) ([]array.Dim, error) {
			b, err := p.Bounds(append(qargs[:len(qargs):len(qargs)], out)...)
			if err != nil {
				return nil, err
			}
			return b[0], nil
		},
	}, nil
}

// Op is the elementwise Step f(out, in): an op of package ops, or any
// function of two device-resident Arrays of one shape. Its bands are
// exact (no halo).
func Op[Out, In array.Elem](name string, f func(out *array.Array[Out], in *array.Array[In]) error) Step {
	return Step{
		Name: name,
		In:   array.TypeOf[In](),
		Out:  array.TypeOf[Out](),
		Run: func(out, in array.Buffer) error {
			return f(out.(*array.Array[Out]), in.(*array.Array[In]))
		},
	}
}

// Reduce is the last Step of a chain that reduces each band instead of
// writing it: band k of the output, a one-dimensional Array of c.Bands
// elements (Run with the Options whose Cut is c), holds f's result over
// band k's rows of an input whose region is in, cut as the output's rows
// would be (c.Band). f gets a 0-D out (ops.EvalSum, a Sum to a scalar)
// and the band's input; only one element per band comes home, and the
// caller joins them (the sum of sums). The input region must be the
// source's, or what the steps before produce from it.
func Reduce[Out, In array.Elem](name string, in []array.Dim, c Cut, f func(out *array.Array[Out], in *array.Array[In]) error) Step {
	outer, bands := len(in)-1, c.Bands
	return Step{
		Name: name,
		In:   array.TypeOf[In](),
		Out:  array.TypeOf[Out](),
		Run: func(out, x array.Buffer) error {
			return f(out.(*array.Array[Out]).Squeeze(), x.(*array.Array[In]))
		},
		Needs: func(out []array.Dim) ([]array.Dim, error) {
			if outer < 0 || len(out) != 1 || bands < 1 || out[0].Extent != 1 || out[0].Min < 0 || out[0].Min >= bands {
				return nil, fmt.Errorf("%w: step %s reduces a %d-D input in %d bands into a 1-D output of one element per band, not %v", ErrChain, name, len(in), bands, out)
			}
			r := c.Band(in, out[0].Min)
			if r[outer].Extent < 1 {
				return nil, fmt.Errorf("%w: step %s: %d bands of %d rows leave band %d empty", ErrChain, name, bands, in[outer].Extent, out[0].Min)
			}
			return r, nil
		},
	}
}
