package array

// Dirty state belongs to the memory, by region. A region is a box in the
// coordinates of the root layout: every view of a root (crop, slice,
// transpose, …) moves along each root dimension with that dimension's
// stride, so the elements a view addresses are exactly a box of root
// positions, found by decomposing its first and last storage index. Two
// views overlap exactly when their boxes do, so disjoint crops — columns
// included, whose storage spans interleave — never disturb each other.

// span is a box's positions lo…hi (inclusive) in one root dimension,
// counted from the root's min.
type span struct{ lo, hi int }

// box is a region of a root, one span per root dimension; nil is empty.
type box []span

func (b box) overlaps(c box) bool {
	if len(b) == 0 || len(c) == 0 {
		return false
	}
	for k := range b {
		if b[k].hi < c[k].lo || c[k].hi < b[k].lo {
			return false
		}
	}
	return true
}

// contains reports whether c lies inside b.
func (b box) contains(c box) bool {
	for k := range b {
		if c[k].lo < b[k].lo || c[k].hi > b[k].hi {
			return false
		}
	}
	return true
}

// intersect returns b ∩ c in buf; the boxes must overlap.
func (b box) intersect(c box, buf box) box {
	out := append(buf[:0], b...)
	for k := range out {
		out[k].lo = max(b[k].lo, c[k].lo)
		out[k].hi = min(b[k].hi, c[k].hi)
	}
	return out
}

// minus appends to out the pieces of b outside c: at most two slabs per
// dimension, disjoint, covering b \ c.
func (b box) minus(c box, out []box) []box {
	if !b.overlaps(c) {
		return append(out, b)
	}
	rest := append(box(nil), b...)
	for k := range rest {
		if rest[k].lo < c[k].lo {
			p := append(box(nil), rest...)
			p[k].hi = c[k].lo - 1
			out = append(out, p)
			rest[k].lo = c[k].lo
		}
		if rest[k].hi > c[k].hi {
			p := append(box(nil), rest...)
			p[k].lo = c[k].hi + 1
			out = append(out, p)
			rest[k].hi = c[k].hi
		}
	}
	return out
}

// boxes is a set of disjoint boxes.
type boxes []box

func (s boxes) overlaps(b box) bool {
	for _, x := range s {
		if x.overlaps(b) {
			return true
		}
	}
	return false
}

// without returns s with b taken out.
func (s boxes) without(b box) boxes {
	if !s.overlaps(b) {
		return s
	}
	var out []box
	for _, x := range s {
		out = x.minus(b, out)
	}
	return out
}

// with returns s ∪ b, still disjoint.
func (s boxes) with(b box) boxes {
	if len(b) == 0 {
		return s
	}
	return append(s.without(b), append(box(nil), b...))
}
