package draw

import (
	"slices"
	"testing"
)

func TestPick(t *testing.T) {
	for _, c := range []struct{ n, k int }{{0, 0}, {5, 0}, {5, 2}, {5, 5}, {5, 9}, {100, 7}} {
		got := Pick(t, c.n, c.k)
		if want := min(c.n, c.k); len(got) != want {
			t.Fatalf("Pick(%d, %d) = %v: want %d cases", c.n, c.k, got, want)
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("Pick(%d, %d) = %v: not distinct and in order", c.n, c.k, got)
		}
		for _, i := range got {
			if i < 0 || i >= c.n {
				t.Fatalf("Pick(%d, %d) = %v: out of range", c.n, c.k, got)
			}
		}
		if again := Pick(t, c.n, c.k); !slices.Equal(again, got) {
			t.Fatalf("Pick(%d, %d) drew %v, then %v: one run must draw one set", c.n, c.k, got, again)
		}
	}
}

// TestPickCovers: over successive seeds every case comes up, so sampling
// per run keeps the whole table's coverage across runs.
func TestPickCovers(t *testing.T) {
	saved := *seedFlag
	defer func() { *seedFlag = saved }()
	seen := make([]bool, 23)
	for day := uint64(1); day <= 40; day++ {
		*seedFlag = 20000 + day
		for _, i := range Pick(t, len(seen), 6) {
			seen[i] = true
		}
	}
	for i, s := range seen {
		if !s {
			t.Errorf("case %d never drawn in 40 runs of 6 of %d", i, len(seen))
		}
	}
}
