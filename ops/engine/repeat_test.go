package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/tensor"
)

// Repeat of generated layouts (whole, lazily transposed, a crop of rows,
// a crop of columns) along each axis, uniform and uneven, into a new result
// or a reused Dense, matches the standard engine's; a whole row-major
// source on the device is broadcast from where it lives: one launch and
// one allocation (the result) for uniform repeats, no copy into scratch.
func TestRepeatLayouts(t *testing.T) {
	e, dev := testEngine(t)
	rng := rand.New(rand.NewPCG(5, 7))
	for i := range 60 {
		rows, cols := 3+rng.IntN(3), 3+rng.IntN(3) // crops keep two or more
		vals := seqf(rows*cols, func(i int) float32 { return float32(i*7%11) - 3 })
		d := onDevice(t, e, vals, rows, cols)
		m := tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(slices.Clone(vals)))
		kind := rng.IntN(4)
		src, msrc := d, m
		view := func(x *tensor.Dense) *tensor.Dense {
			var v tensor.View
			var err error
			switch kind {
			case 1:
				v, err = x.Slice(nil, nil)
				if err == nil {
					err = v.(*tensor.Dense).T()
				}
			case 2:
				v, err = x.Slice(tensor.S(1, rows))
			case 3:
				v, err = x.Slice(nil, tensor.S(1, cols))
			}
			must(t, err)
			return v.(*tensor.Dense)
		}
		if kind > 0 {
			src, msrc = view(d), view(m)
		}
		axis := rng.IntN(2)
		n := src.Shape()[axis]
		reps := []int{1 + rng.IntN(3)}
		if rng.IntN(2) == 0 {
			reps = nil
			for range n {
				reps = append(reps, 1+rng.IntN(2)) // the standard engine gets 0 wrong
			}
		}
		what := fmt.Sprintf("case %d: Repeat of %v (layout %d) along %d by %v", i, src.Shape(), kind, axis, reps)
		before := dev.Stats()
		got, err := tensor.Repeat(src, axis, reps...)
		must(t, err)
		moved := dev.Stats().Sub(before)
		want, err := tensor.Repeat(msrc.Materialize(), axis, reps...)
		must(t, err)
		if !got.Shape().Eq(want.Shape()) {
			t.Fatalf("%s: shape %v, the standard engine %v", what, got.Shape(), want.Shape())
		}
		if g, w := hostVals[float32](t, got.(*tensor.Dense)), flat[float32](want.(*tensor.Dense)); !slices.Equal(g, w) {
			t.Fatalf("%s: %v, the standard engine %v", what, g, w)
		}
		if moved.H2DCalls != 0 || resident() && moved.D2HCalls != 0 {
			t.Fatalf("%s: moved %v", what, moved)
		}
		if kind == 0 && len(reps) == 1 && (moved.Launches != 1 || moved.AllocsTotal != 1) {
			t.Fatalf("%s: %d launches, %d allocations; want one each (the broadcast copy, the result)", what, moved.Launches, moved.AllocsTotal)
		}
		// Into a reused Dense of Go memory, as gorgonia's registers.
		reg := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(got.Shape().Clone()...))
		tensor.WithEngine(e)(reg)
		_, err = tensor.RepeatReuse(src, reg, axis, reps...)
		must(t, err)
		if g, w := hostVals[float32](t, reg), flat[float32](want.(*tensor.Dense)); !slices.Equal(g, w) {
			t.Fatalf("%s into a register: %v, the standard engine %v", what, g, w)
		}
	}
}
