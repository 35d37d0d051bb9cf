package strided

import (
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
)

func TestRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		dims []array.Dim
		want []int
	}{
		{"0-D", nil, []int{0}},
		{"1-D", []array.Dim{{Extent: 3, Stride: 2}}, []int{0}},
		{"2-D", []array.Dim{{Extent: 2, Stride: 1}, {Extent: 3, Stride: 4}}, []int{0, 4, 8}},
		{"3-D transposed", []array.Dim{{Extent: 2, Stride: 6}, {Extent: 2, Stride: 3}, {Extent: 2, Stride: 1}}, []int{0, 3, 1, 4}},
		{"negative stride", []array.Dim{{Extent: 1, Stride: 1}, {Extent: 3, Stride: -2}}, []int{0, -2, -4}},
	} {
		if got := slices.Collect(Rows(tc.dims)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Rows(%v) = %v, want %v", tc.name, tc.dims, got, tc.want)
		}
	}
	for off := range Rows([]array.Dim{{Extent: 1, Stride: 1}, {Extent: 5, Stride: 1}}) {
		if off != 0 {
			t.Fatalf("break after the first row still yielded %d", off)
		}
		break
	}
}
