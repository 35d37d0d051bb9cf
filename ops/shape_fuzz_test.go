package ops_test

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// FuzzShapeArgs: the shape operations, views (array) and copies (ops), with
// arguments anywhere in int64 over generated layouts. Each either panics
// with a documented sentinel (array.ErrShape, which ErrNotView wraps, or
// array.ErrOutOfRange) or returns a result whose every element is the
// model's: an element of the input at the place the arithmetic says, so
// nothing is read out of bounds.
//
//	go test -run '^$' -fuzz FuzzShapeArgs ./ops
func FuzzShapeArgs(f *testing.F) {
	f.Add(uint64(1), int64(0), int64(2), int64(1), int64(-1), int64(3))
	f.Add(uint64(7), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), int64(2), int64(-3))
	f.Add(uint64(42), int64(math.MinInt64), int64(-1), int64(-2), int64(math.MaxInt64), int64(0))
	f.Add(uint64(9), int64(1)<<62, int64(4), int64(-(1 << 62)), int64(1), int64(1))
	f.Fuzz(func(t *testing.T, seed uint64, x0, x1, x2, x3, x4 int64) {
		r := rand.New(rand.NewPCG(seed, 22))
		a := genArray(r, 4)
		m := modelOf(t, a)
		xs := []int{int(x0), int(x1), int(x2), int(x3), int(x4)}
		for op := range 8 {
			func() {
				defer func() {
					if e := recover(); e != nil {
						err, _ := e.(error)
						if !errors.Is(err, array.ErrShape) && !errors.Is(err, array.ErrOutOfRange) {
							t.Fatalf("op %d on %v with %v: panic %v, want ErrShape or ErrOutOfRange", op, m.Shape, xs, e)
						}
					}
				}()
				fuzzOp(t, op, a, m, xs)
			}()
		}
	})
}

func fuzzOp(t *testing.T, op int, a *array.Array[int32], m npModel, xs []int) {
	rank := a.Rank()
	sels := func(step bool) ([]array.Sel, []selSpec) {
		var out []array.Sel
		var spec []selSpec
		for k := 0; k < min(rank, 2); k++ {
			s := selSpec{HasStart: true, Start: xs[2*k], HasStop: true, Stop: xs[2*k+1], Step: 1}
			if step {
				s.Step = xs[4]
			}
			if k == 1 && xs[4]%3 == 0 {
				s = selSpec{Index: true, Start: xs[2]}
			}
			out, spec = append(out, s.sel()), append(spec, s)
		}
		return out, spec
	}
	switch op {
	case 0: // Reshape: a view, or ErrNotView
		v, err := a.Reshape(xs[:1+uint(xs[4])%3]...)
		if err != nil {
			if !errors.Is(err, array.ErrNotView) {
				t.Fatalf("Reshape: %v", err)
			}
			return
		}
		sameModel(t, "Reshape", modelOf(t, v), npModel{Shape: v.Shape(), Vals: m.Vals})
	case 1: // ops.Reshape: a view or a copy
		v, err := ops.Reshape(a, xs[:1+uint(xs[3])%3]...)
		must(t, err)
		sameModel(t, "ops.Reshape", modelOf(t, v), npModel{Shape: v.Shape(), Vals: m.Vals})
	case 2: // Index, unit steps: a view
		s, spec := sels(false)
		sameModel(t, fmt.Sprintf("Index%v", spec), modelOf(t, a.Index(s...)), indexModel(m, spec))
	case 3: // ops.Index with a step
		s, spec := sels(true)
		if xs[4] == 0 {
			spec = nil // a step of 0 panics before the model is asked
		}
		v, err := ops.Index(a, s...)
		must(t, err)
		sameModel(t, fmt.Sprintf("ops.Index%v", spec), modelOf(t, v), indexModel(m, spec))
		v.Close()
	case 4: // ops.Flip of one axis
		v, err := ops.Flip(a, array.Axis(xs[0]))
		must(t, err)
		k := xs[0]
		if k < 0 {
			k += rank
		}
		spec := make([]selSpec, k+1)
		for i := range spec {
			spec[i] = selSpec{Step: 1}
		}
		spec[k].Step = -1
		sameModel(t, "Flip", modelOf(t, v), indexModel(m, spec))
		v.Close()
	case 5: // ops.BroadcastTo: a's shape with extra leading axes
		shape := append([]int{xs[0], xs[1]}[:uint(xs[2])%3], m.Shape...)
		if n := len(shape) - rank; n > 0 && (shape[0] > 64 || n > 1 && shape[1] > 64) {
			return // a valid shape this big would only measure memory
		}
		v, err := ops.BroadcastTo(a, shape...)
		must(t, err)
		want := npModel{Shape: shape, Vals: []int32{}}
		lead := len(shape) - rank
		eachPos(shape, func(p []int) { want.Vals = append(want.Vals, m.at(p[lead:])) })
		sameModel(t, fmt.Sprintf("BroadcastTo%v", shape), modelOf(t, v), want)
		v.Close()
	case 6: // Squeeze, ExpandDims, DimOf
		d := a.DimOf(array.Axis(xs[0]))
		if a.Dim(d).Extent == 1 {
			sq := a.Squeeze(array.Axis(xs[0]))
			sameModel(t, "Squeeze", modelOf(t, sq), npModel{Shape: slices.Delete(slices.Clone(m.Shape), rank-1-d, rank-d), Vals: m.Vals})
		}
		e := a.ExpandDims(array.Axis(xs[1]))
		if e.Len() != a.Len() || e.Rank() != rank+1 {
			t.Fatalf("ExpandDims(%d): %v", xs[1], e.Shape())
		}
	case 7: // SplitAt and Split
		parts := a.SplitAt(array.Axis(xs[0]), xs[1], xs[2])
		for _, p := range parts {
			modelOf(t, p) // every element readable
		}
		for _, p := range a.Split(xs[3], array.Axis(xs[0])) {
			modelOf(t, p)
		}
	}
}

// concatOverflows reports whether the extents' sum overflows int.
func concatOverflows(ext []int64) bool {
	var hi, lo uint64 // the 128-bit sum; extents are ≥ 0
	for _, e := range ext {
		var c uint64
		lo, c = bits.Add64(lo, uint64(e), 0)
		hi += c
	}
	return hi != 0 || lo > math.MaxInt64
}

// concatCase is Concatenate along axis 0 of read-only broadcast views of
// one element, shaped (ext[i], inner): their sum may overflow with no
// storage behind it. It returns the result, or the panic's error.
func concatCase(t *testing.T, ext []int64, inner int) (out *array.Array[int32], perr error) {
	t.Helper()
	one := array.Scalar[int32](7)
	var xs []*array.Array[int32]
	for _, e := range ext {
		v, err := one.BroadcastTo(int(e), inner)
		if err != nil {
			t.Fatalf("BroadcastTo(%d, %d): %v", e, inner, err)
		}
		xs = append(xs, v)
	}
	defer func() {
		if r := recover(); r != nil {
			perr, _ = r.(error)
			if perr == nil {
				t.Fatalf("Concatenate of extents %v panicked with %v", ext, r)
			}
		}
	}()
	out, err := ops.Concatenate(0, xs...)
	must(t, err)
	return out, nil
}

// TestConcatenateOverflow: a summed extent that overflows int panics with
// ErrShape naming the extents, instead of wrapping (to 0, 1 or a negative)
// and failing later with ErrOutOfRange.
func TestConcatenateOverflow(t *testing.T) {
	for _, ext := range [][]int64{
		{1 << 62, 1 << 62, 1 << 62, 1 << 62},        // wraps to 0
		{1 << 62, 1 << 62, 1 << 62, 1<<62 + 1},      // wraps to 1
		{math.MaxInt64, 1},                          // wraps negative
		{math.MaxInt64, math.MaxInt64, 2},           // wraps to 0
		{math.MaxInt64 / 2, math.MaxInt64/2 + 1, 1}, // MaxInt64 + 1
	} {
		t.Run(fmt.Sprint(ext), func(t *testing.T) {
			for _, inner := range []int{0, 1} {
				_, err := concatCase(t, ext, inner)
				if !errors.Is(err, array.ErrShape) || !strings.Contains(err.Error(), "overflows") {
					t.Fatalf("inner %d: panic %v, want ErrShape saying the extent overflows", inner, err)
				}
			}
		})
	}
}

// FuzzConcatenateExtents: Concatenate of broadcast views with extents
// anywhere in int64 along axis 0 panics with ErrShape exactly when the
// sum overflows int; else (inner extent 0, or a small sum) it returns
// the summed shape, holding the broadcast element.
func FuzzConcatenateExtents(f *testing.F) {
	f.Add(int64(2), int64(3), int64(0), uint8(1))
	f.Add(int64(1)<<62, int64(1)<<62, int64(math.MaxInt64), uint8(0))
	f.Add(int64(math.MaxInt64), int64(1), int64(0), uint8(2))
	f.Fuzz(func(t *testing.T, e0, e1, e2 int64, k uint8) {
		ext := []int64{e0, e1, e2}[:1+k%3]
		inner := int(k>>2) & 1
		for _, e := range ext {
			if e < 0 {
				return // BroadcastTo refuses it
			}
		}
		over := concatOverflows(ext)
		var sum int64 // meaningful when !over
		for _, e := range ext {
			sum += e
		}
		if !over && inner == 1 && sum > 1<<16 {
			t.Skip("a real result of gigabytes")
		}
		out, err := concatCase(t, ext, inner)
		if over != (err != nil) || over && !errors.Is(err, array.ErrShape) {
			t.Fatalf("Concatenate of extents %v (overflows: %v): panic %v", ext, over, err)
		}
		if over {
			return
		}
		defer out.Close()
		if !slices.Equal(out.Shape(), []int{int(sum), inner}) {
			t.Fatalf("Concatenate of extents %v: shape %v", ext, out.Shape())
		}
		if out.Len() > 0 {
			h, err := out.HostReadOnly()
			must(t, err)
			if got := h.At(0, int(sum)-1); got != 7 {
				t.Fatalf("Concatenate of extents %v: last element %d, want 7", ext, got)
			}
		}
	})
}
