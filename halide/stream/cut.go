package stream

import (
	"slices"

	"github.com/resident-go/resident/array"
)

// Cut is how Run cuts the output's outermost dimension into bands.
type Cut struct {
	// Bands is how many bands.
	Bands int
	// Edge, in (0, 1), makes the first and the last band Edge times as
	// tall as the others (at least one row each); other values cut equal
	// bands. Only the first band's upload runs alone at the start, and
	// only the last band's compute and download at the end: smaller edge
	// bands shorten both. With fewer than 3 bands, or too few rows for
	// the middle bands, the bands are equal.
	Edge float64
}

// Band is band k of region, cut c's way along its outermost dimension:
// with equal bands extent/Bands rows each, the first extent%Bands one
// more; with edge bands, the middle bands share what the edges leave in
// the same way.
func (c Cut) Band(region []array.Dim, k int) []array.Dim {
	r := slices.Clone(region)
	if len(r) == 0 {
		return r
	}
	o, n := len(r)-1, max(c.Bands, 1)
	rows := r[o].Extent
	if e := c.edge(rows); e > 0 {
		switch {
		case k == 0:
			r[o].Extent = e
		case k == n-1:
			r[o].Min += rows - e
			r[o].Extent = e
		default:
			r[o].Min += e
			r[o].Extent = rows - 2*e
			r = Band(r, n-2, k-1)
		}
		return r
	}
	q, m := rows/n, rows%n
	r[o].Min += k*q + min(k, m)
	r[o].Extent = q + b2i(k < m)
	return r
}

// edge is the rows of each edge band over rows rows, 0 for equal bands.
func (c Cut) edge(rows int) int {
	n := c.Bands
	if n < 3 || !(c.Edge > 0 && c.Edge < 1) {
		return 0
	}
	e := max(1, int(float64(rows)*c.Edge/(float64(n-2)+2*c.Edge)))
	if rows-2*e < n-2 {
		return 0
	}
	return e
}

// Band is band k of region cut into bands equal bands: Cut{Bands:
// bands}.Band(region, k).
func Band(region []array.Dim, bands, k int) []array.Dim {
	return Cut{Bands: bands}.Band(region, k)
}
