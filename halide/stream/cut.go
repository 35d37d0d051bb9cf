package stream

import (
	"fmt"
	"math"
	"slices"

	"github.com/resident-go/resident/array"
)

// Cut is how Run cuts the output's outermost dimension into bands.
type Cut struct {
	// Bands is how many bands.
	Bands int
	// First and Last, in (0, 1), make the first and the last band that
	// fraction of the height of a middle band (of the other band, with
	// two bands; at least one row each); other values count as 1, equal
	// bands. Only the first band's upload runs alone at the start, and
	// only the last band's compute and download at the end: a thin last
	// band shortens the end, a thin first band the start (which matters
	// where the downloads, not the uploads, set the pace).
	First, Last float64
}

// Band is band k of region, cut c's way along its outermost dimension:
// a thin first or last band gets its share of the rows (at least one),
// and the other bands share the rest equally, extent/bands rows each, the
// first extent%bands one more. With too few rows for that, the bands are
// all equal.
func (c Cut) Band(region []array.Dim, k int) []array.Dim {
	r := slices.Clone(region)
	if len(r) == 0 {
		return r
	}
	o, n := len(r)-1, max(c.Bands, 1)
	first, last := c.edges(r[o].Extent)
	switch {
	case k == 0 && first > 0:
		r[o].Extent = first
		return r
	case k == n-1 && last > 0:
		r[o].Min += r[o].Extent - last
		r[o].Extent = last
		return r
	}
	lo := b2i(first > 0)
	r[o].Min += first
	r[o].Extent -= first + last
	n -= lo + b2i(last > 0)
	k -= lo
	q, m := r[o].Extent/n, r[o].Extent%n
	r[o].Min += k*q + min(k, m)
	r[o].Extent = q + b2i(k < m)
	return r
}

// edges are the rows of a thin first and last band over rows rows; 0: the
// band is not thin (it shares the equal cut).
func (c Cut) edges(rows int) (first, last int) {
	n := c.Bands
	w0, w1 := weight(c.First), weight(c.Last)
	if n < 2 || w0 == 1 && w1 == 1 {
		return 0, 0
	}
	W := float64(n-2) + w0 + w1
	share := func(w float64) int {
		if w == 1 {
			return 0
		}
		if n == 2 { // rounded, so that the thinner band is never the taller
			return max(1, int(math.Round(float64(rows)*w/W)))
		}
		return max(1, int(float64(rows)*w/W))
	}
	first, last = share(w0), share(w1)
	if n == 2 && first > 0 && last > 0 {
		first = rows - last
	}
	if rows-first-last < n-b2i(first > 0)-b2i(last > 0) { // an equal band would be empty
		return 0, 0
	}
	return first, last
}

// String names the cut as the benchmark's tables do: "4 bands, last 0.25".
func (c Cut) String() string {
	s := fmt.Sprintf("%d bands", c.Bands)
	if w := weight(c.First); w < 1 {
		s += fmt.Sprintf(", first %.2g", w)
	}
	if w := weight(c.Last); w < 1 {
		s += fmt.Sprintf(", last %.2g", w)
	}
	return s
}

// weight is a band's height relative to a middle band's: f in (0, 1),
// else 1.
func weight(f float64) float64 {
	if f > 0 && f < 1 {
		return f
	}
	return 1
}
