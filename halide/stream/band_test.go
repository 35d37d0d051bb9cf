package stream_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide/stream"
)

// Band cuts a region's outermost dimension into bands that cover every
// row once, in order, the first extent%bands one row longer, and leaves
// the other dimensions as they are.
func TestBand(t *testing.T) {
	for rows := 1; rows <= 23; rows++ {
		for bands := 1; bands <= rows; bands++ {
			region := []array.Dim{{Min: -2, Extent: 3, Stride: 1}, {Min: 7, Extent: rows, Stride: 3}}
			next := region[1].Min
			for k := range bands {
				b := stream.Band(region, bands, k)
				if b[0] != region[0] || b[1].Min != next || b[1].Stride != 3 {
					t.Fatalf("%d rows in %d bands, band %d: %v", rows, bands, k, b)
				}
				if want := rows/bands + map[bool]int{true: 1}[k < rows%bands]; b[1].Extent != want {
					t.Fatalf("%d rows in %d bands, band %d: %d rows, want %d", rows, bands, k, b[1].Extent, want)
				}
				next += b[1].Extent
			}
			if next != region[1].Min+rows {
				t.Fatalf("%d rows in %d bands cover up to %d", rows, bands, next)
			}
		}
	}
}

// Reduce's Needs refuses outputs that are not one element of a band in
// range, and bands that leave one empty, with ErrChain.
func TestReduceNeeds(t *testing.T) {
	in := []array.Dim{{Extent: 4, Stride: 1}, {Extent: 3, Stride: 4}}
	step := stream.Reduce("sum", in, 3, func(out *array.Array[float32], in *array.Array[uint8]) error { return nil })
	if r, err := step.Needs([]array.Dim{{Min: 2, Extent: 1}}); err != nil || r[1].Min != 2 || r[1].Extent != 1 || r[0] != in[0] {
		t.Fatalf("band 2: %v, %v", r, err)
	}
	for _, out := range [][]array.Dim{{{Min: 3, Extent: 1}}, {{Min: -1, Extent: 1}}, {{Min: 0, Extent: 2}}, {{Extent: 1}, {Extent: 1}}} {
		if _, err := step.Needs(out); !errors.Is(err, stream.ErrChain) {
			t.Errorf("output %v: %v, want ErrChain", out, err)
		}
	}
	empty := stream.Reduce("sum", in, 5, func(out *array.Array[float32], in *array.Array[uint8]) error { return nil })
	if _, err := empty.Needs([]array.Dim{{Min: 4, Extent: 1}}); !errors.Is(err, stream.ErrChain) {
		t.Errorf("5 bands of 3 rows: %v, want ErrChain", err)
	}
}
