package array

import "fmt"

// overlap returns the coordinate box where a and b overlap, as dims of a
// (with a's strides) and of b, with their min-corner storage indices; ok is
// false when they do not overlap.
func overlap(bufA, bufB []Dim, a, b *Raw) (da, db []Dim, ia, ib int, ok bool) {
	if a.rank != b.rank {
		panicf(ErrShape, "copy between a %d-D and a %d-D Array: ranks must match", b.rank, a.rank)
	}
	da, db = append(bufA, a.dimsRef()...), append(bufB, b.dimsRef()...)
	ia, ib = a.off, b.off
	for k := range da {
		lo := max(da[k].Min, db[k].Min)
		hi := min(da[k].Max(), db[k].Max())
		if hi < lo {
			return nil, nil, 0, 0, false
		}
		ia += (lo - da[k].Min) * da[k].Stride
		ib += (lo - db[k].Min) * db[k].Stride
		da[k] = Dim{lo, hi - lo + 1, da[k].Stride}
		db[k] = Dim{lo, hi - lo + 1, db[k].Stride}
	}
	return da, db, ia, ib, true
}

// CopyFrom copies the elements of src where the two views overlap
// (Halide's copy_from); coordinates, not positions, decide the match. Any
// strides work; dense rows move with Go's copy.
//
// When both views share memory and their elements overlap, the copy
// behaves like memmove: every element gets src's value from before the
// copy, whatever the strides. A copy that writes every element of v
// replaces values lost there (ErrLost).
func (v HostView[T]) CopyFrom(src ReadView[T]) {
	v.checkWrite()
	src.check()
	d, s := &v.a.raw, &src.a.raw
	if d.st.nAway.Load() != 0 && covers(s, d) {
		defer d.rewritten()
	}
	if n, ok := sameDense(d, s); ok {
		if n > 0 { // an empty view's offset may lie past its (empty) storage
			copy(v.a.data[d.off:d.off+n], src.a.data[s.off:s.off+n]) // copy is memmove
		}
		return
	}
	var bufA, bufB [inlineDims]Dim
	da, db, ia, ib, ok := overlap(bufA[:0], bufB[:0], d, s)
	if !ok {
		return
	}
	sdata := src.a.data
	if d.st == s.st && aliased(d, s) {
		// Snapshot the source's span first: the copy reads what it writes.
		lo, hi := ib, ib+spanOf(db)
		snap := make([]T, hi-lo)
		copy(snap, sdata[lo:hi])
		sdata, ib = snap, 0
	}
	copyStrided(v.a.data, sdata, da, db, ia, ib)
}

// covers reports whether src holds every coordinate of dst, so that
// CopyFrom writes all of dst's elements.
func covers(src, dst *Raw) bool {
	if src.rank != dst.rank {
		return false // overlap panics
	}
	sd := src.dimsRef()
	for k, d := range dst.dimsRef() {
		if d.Extent > 0 && (d.Min < sd[k].Min || d.Max() > sd[k].Max()) {
			return false
		}
	}
	return true
}

// aliased reports whether two views of one storage share elements.
func aliased(a, b *Raw) bool {
	var ba, bb [inlineDims]span
	return a.box(ba[:0]).overlaps(b.box(bb[:0]))
}

func copyStrided[T any](dst, src []T, dd, sd []Dim, di, si int) {
	if len(dd) == 0 {
		dst[di] = src[si]
		return
	}
	// A whole dense box with the same layout on both sides is one copy,
	// in any memory order (Compact of an interleaved Array).
	if n, ok := contiguous(dd, sd); ok {
		copy(dst[di:di+n], src[si:si+n])
		return
	}
	if n, ok := sameOrderDense(dd, sd); ok {
		copy(dst[di:di+n], src[si:si+n])
		return
	}
	var buf [inlineDims]int
	pos := positions(&buf, len(dd))
	n := dd[0].Extent
	if len(dd) >= 2 && dd[0].Stride != sd[0].Stride {
		copyTiled(dst, src, dd, sd, di, si, pos)
		return
	}
	for {
		d, s := di, si
		for k := 1; k < len(dd); k++ {
			d += pos[k] * dd[k].Stride
			s += pos[k] * sd[k].Stride
		}
		if dd[0].Stride == 1 && sd[0].Stride == 1 {
			copy(dst[d:d+n], src[s:s+n])
		} else {
			ds, ss := dd[0].Stride, sd[0].Stride
			for x := 0; x < n; x++ {
				dst[d+x*ds] = src[s+x*ss]
			}
		}
		if !odometer(pos, dd) {
			return
		}
	}
}

// copyTiled copies layouts whose inner dimensions disagree (a transpose) in
// 32×32 tiles of dimensions 0 and 1, so both sides stay in cache.
func copyTiled[T any](dst, src []T, dd, sd []Dim, di, si int, pos []int) {
	const tile = 32
	nx, ny := dd[0].Extent, dd[1].Extent
	dx, dy, sx, sy := dd[0].Stride, dd[1].Stride, sd[0].Stride, sd[1].Stride
	outer := dd[1:]
	for {
		d, s := di, si
		for k := 2; k < len(dd); k++ {
			d += pos[k] * dd[k].Stride
			s += pos[k] * sd[k].Stride
		}
		for y0 := 0; y0 < ny; y0 += tile {
			for x0 := 0; x0 < nx; x0 += tile {
				for y := y0; y < min(y0+tile, ny); y++ {
					dr, sr := d+y*dy, s+y*sy
					for x := x0; x < min(x0+tile, nx); x++ {
						dst[dr+x*dx] = src[sr+x*sx]
					}
				}
			}
		}
		if !odometer(pos[1:], outer) {
			return
		}
	}
}

// sameDense reports whether a and b have the same dims and are dense, so a
// copy between them is one copy of n elements.
func sameDense(a, b *Raw) (n int, ok bool) {
	if a.rank != b.rank || a.ext != nil || b.ext != nil || a.inl != b.inl {
		return 0, false
	}
	return contiguous(a.dimsRef(), b.dimsRef())
}

// contiguous reports whether both layouts are the same dense box with
// dimension 0 innermost, and its element count.
func contiguous(dd, sd []Dim) (int, bool) {
	n := 1
	for k := range dd {
		if dd[k].Extent != 1 && (dd[k].Stride != n || sd[k].Stride != n) {
			return 0, false
		}
		n *= dd[k].Extent
	}
	return n, true
}

// sameOrderDense reports whether both layouts have the same strides and
// are dense in some memory order, and their element count.
func sameOrderDense(dd, sd []Dim) (int, bool) {
	for k := range dd {
		if dd[k].Stride != sd[k].Stride {
			return 0, false
		}
	}
	n := 1
	for _, d := range dd {
		n *= d.Extent
	}
	return n, n > 0 && spanOf(dd) == n
}

// Compact returns a new dense, device-aware Array with a's mins, extents
// and elements, whatever a's strides, current on the host (Halide's
// Buffer::copy, NumPy's copy(order='K')): a device-dirty a is copied home
// first (counted). Its memory order is a's (KeepOrder, the default: every
// Reshape view of a is one of the copy) or, with COrder, New's planar
// order (dimension 0 innermost); see Like. ops.Clone makes the copy on a
// device instead, and ops.Copy copies into an existing Array where its
// operands live.
func (a *Array[T]) Compact(order ...Order) (*Array[T], error) {
	o := orderOf("Compact", order)
	s, err := a.HostReadOnly()
	if err != nil {
		return nil, err
	}
	c := Like(a, o)
	d, err := c.Host()
	if err != nil {
		c.Close()
		return nil, err
	}
	d.CopyFrom(s)
	return c, nil
}

// Equal reports whether a and b have the same mins, extents and elements,
// whatever their strides. Device-dirty data is copied to host first.
func Equal[T Elem](a, b *Array[T]) (bool, error) {
	va, err := a.HostReadOnly()
	if err != nil {
		return false, err
	}
	vb, err := b.HostReadOnly()
	if err != nil {
		return false, err
	}
	return va.Equal(vb), nil
}

// Equal reports whether v and w have the same mins, extents and elements.
func (v ReadView[T]) Equal(w ReadView[T]) bool {
	v.check()
	w.check()
	if v.a.raw.rank != w.a.raw.rank {
		return false
	}
	for k, d := range v.a.raw.dimsRef() {
		e := w.a.raw.dimsRef()[k]
		if d.Min != e.Min || d.Extent != e.Extent {
			return false
		}
	}
	eq := true
	v.a.raw.forEach(func(c []int) {
		if eq && v.a.data[v.a.raw.index(c)] != w.a.data[w.a.raw.index(c)] {
			eq = false
		}
	})
	return eq
}

// Format describes the view's first elements for debugging.
func (v ReadView[T]) String() string {
	out := "HostView" + pyShape(v.a.Shape()) + "["
	i := 0
	for x := range v.Values() {
		if i == 8 {
			out += " …"
			break
		}
		if i > 0 {
			out += " "
		}
		out += fmt.Sprint(x)
		i++
	}
	return out + "]"
}
