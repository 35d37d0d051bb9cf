package array

import (
	"fmt"
	"slices"
)

// Each view method allocates the new Array and makes one call that fills
// it in, so it is small enough to inline and a view that does not escape
// its caller stays on the stack: creating one allocates nothing.

// viewOp names a view transformation for Raw.view.
type viewOp uint8

const (
	opCrop viewOp = iota
	opSlice
	opEmbed
	opTranspose
	opTranslate
)

// view fills v as the view op(x, y, z) of r.
// A view of a closed Array is closed too (it shares r's state): making it
// reads only metadata, and every use of it reports the Close, so
// ops.Copy(dst, closed.Transpose(0, 1)) returns an error like any op.
func (r *Raw) view(v *Raw, op viewOp, x, y, z int) {
	var buf [inlineDims]Dim
	var dims []Dim
	off := r.off
	switch op {
	case opCrop:
		dims, off = r.cropDims(buf[:0], x, y, z)
	case opSlice:
		dims, off = r.sliceDims(buf[:0], x, y)
	case opEmbed:
		dims = r.embedDims(buf[:0], x, y)
	case opTranspose:
		r.checkDim(x)
		r.checkDim(y)
		dims = append(buf[:0], r.dimsRef()...)
		dims[x], dims[y] = dims[y], dims[x]
	case opTranslate:
		r.checkDim(x)
		dims = append(buf[:0], r.dimsRef()...)
		dims[x].Min = shiftMin(x, dims[x], y)
	}
	v.setDims(dims)
	r.viewInto(v, off)
}

// viewInto makes v a view of r at storage index off (v's dims are set):
// same storage, so same host memory, device allocation and dirty state.
func (r *Raw) viewInto(v *Raw, off int) {
	v.typ, v.esize, v.st, v.off, v.ro = r.typ, r.esize, r.st, off, r.ro
}

// viewDims fills v as a view of r with the given dims and r's offset.
func (r *Raw) viewDims(v *Raw, dims []Dim) {
	v.setDims(dims)
	r.viewInto(v, r.off)
}

// Crop returns a view, sharing host and device memory, of the coordinates
// min … min+extent-1 in dimension dim. A crop of a crop addresses exactly
// the elements of the equivalent single crop.
func (a *Array[T]) Crop(dim, min, extent int) *Array[T] {
	v := &Array[T]{data: a.data}
	a.raw.view(&v.raw, opCrop, dim, min, extent)
	return v
}

func (r *Raw) cropDims(buf []Dim, dim, min, extent int) ([]Dim, int) {
	r.checkDim(dim)
	dims := append(buf, r.dimsRef()...)
	d := dims[dim]
	// d.Min+d.Extent never overflows (checkDims), and neither does end-min
	// once d.Min ≤ min ≤ end.
	end := d.Min + d.Extent
	if extent < 0 || min < d.Min || min > end || extent > end-min {
		panicf(ErrOutOfRange, "crop [%d, %d] of %s, which spans [%d, %d]: crop inside the Array", min, min+extent-1, dimName(dim, r.rank), d.Min, d.Max())
	}
	dims[dim] = Dim{Min: min, Extent: extent, Stride: d.Stride}
	return dims, r.off + (min-d.Min)*d.Stride
}

// Slice returns a view, sharing host and device memory, of the elements at
// coordinate pos in dimension dim, with that dimension removed.
func (a *Array[T]) Slice(dim, pos int) *Array[T] {
	v := &Array[T]{data: a.data}
	a.raw.view(&v.raw, opSlice, dim, pos, 0)
	return v
}

func (r *Raw) sliceDims(buf []Dim, dim, pos int) ([]Dim, int) {
	r.checkDim(dim)
	d := r.dimsRef()[dim]
	if pos < d.Min || pos > d.Max() {
		panicf(ErrOutOfRange, "slice at %d of %s, which spans [%d, %d]: slice inside the Array", pos, dimName(dim, r.rank), d.Min, d.Max())
	}
	dims := append(buf, r.dimsRef()[:dim]...)
	dims = append(dims, r.dimsRef()[dim+1:]...)
	return dims, r.off + (pos-d.Min)*d.Stride
}

// Embed returns a view, sharing host and device memory, with a new
// dimension of extent 1 inserted at index dim whose only coordinate is pos:
// the inverse of Slice(dim, pos).
func (a *Array[T]) Embed(dim, pos int) *Array[T] {
	v := &Array[T]{data: a.data}
	a.raw.view(&v.raw, opEmbed, dim, pos, 0)
	return v
}

func (r *Raw) embedDims(buf []Dim, dim, pos int) []Dim {
	if dim < 0 || dim > r.rank {
		panicf(ErrShape, "embed at dimension %d of a %d-D Array: want 0 ≤ dim ≤ %d", dim, r.rank, r.rank)
	}
	if pos == maxInt {
		panicf(ErrOutOfRange, "embed at position %d: pos+1 overflows int", pos)
	}
	// As Halide: the stride steps over the whole Array. With extent 1 it
	// is never stepped, so an overflowing product may fall back to 1.
	stride := 1
	for _, d := range r.dimsRef() {
		if n, ok := mulOK(d.Extent, d.Stride); ok {
			stride = max(stride, n)
		}
	}
	dims := append(buf, r.dimsRef()[:dim]...)
	dims = append(dims, Dim{Min: pos, Extent: 1, Stride: stride})
	return append(dims, r.dimsRef()[dim:]...)
}

// Transpose returns a view, sharing host and device memory, with
// dimensions d0 and d1 swapped. Transposing twice restores the addressing.
func (a *Array[T]) Transpose(d0, d1 int) *Array[T] {
	v := &Array[T]{data: a.data}
	a.raw.view(&v.raw, opTranspose, d0, d1, 0)
	return v
}

// Permute returns a view, sharing host and device memory, whose dimension
// i is a's dimension order[i]. order must be a permutation of 0…Rank-1.
func (a *Array[T]) Permute(order ...int) *Array[T] {
	var buf [inlineDims]Dim
	v := &Array[T]{data: a.data}
	a.raw.viewDims(&v.raw, a.raw.permuteDims(buf[:0], order))
	return v
}

func (r *Raw) permuteDims(buf []Dim, order []int) []Dim {
	if len(order) != r.rank {
		panicf(ErrShape, "permutation %v for a %d-D Array: name every dimension once", order, r.rank)
	}
	var small [64]bool
	seen := small[:]
	if r.rank > len(small) {
		seen = make([]bool, r.rank)
	}
	dims := buf
	for _, o := range order {
		if o < 0 || o >= r.rank || seen[o] {
			panicf(ErrShape, "permutation %v for a %d-D Array: name every dimension 0…%d once", order, r.rank, r.rank-1)
		}
		seen[o] = true
		dims = append(dims, r.dimsRef()[o])
	}
	return dims
}

// Translate returns a view, sharing host and device memory, whose
// coordinates in dimension dim are shifted by delta (Min += delta).
func (a *Array[T]) Translate(dim, delta int) *Array[T] {
	v := &Array[T]{data: a.data}
	a.raw.view(&v.raw, opTranslate, dim, delta, 0)
	return v
}

// SetMin returns a view, sharing host and device memory, whose dimensions
// start at mins (one per dimension).
func (a *Array[T]) SetMin(mins ...int) *Array[T] {
	if len(mins) != a.raw.rank {
		panicf(ErrShape, "%d mins for a %d-D Array: pass one per dimension", len(mins), a.raw.rank)
	}
	var buf [inlineDims]Dim
	dims := append(buf[:0], a.raw.dimsRef()...)
	for i := range dims {
		if _, ok := addOK(mins[i], dims[i].Extent); !ok {
			panicf(ErrOutOfRange, "min %d + extent %d in %s overflows int", mins[i], dims[i].Extent, dimName(i, len(dims)))
		}
		dims[i].Min = mins[i]
	}
	v := &Array[T]{data: a.data}
	a.raw.viewDims(&v.raw, dims)
	return v
}

// shiftMin returns d.Min+delta, panicking with ErrOutOfRange when that or
// the new Min+Extent overflows.
func shiftMin(dim int, d Dim, delta int) int {
	m, ok := addOK(d.Min, delta)
	if ok {
		_, ok = addOK(m, d.Extent)
	}
	if !ok {
		panicf(ErrOutOfRange, "moving dimension %d (min %d, extent %d) by %d overflows int", dim, d.Min, d.Extent, delta)
	}
	return m
}

// View returns a view, sharing host and device memory, whose element
// (x0, x1, …) is the element offset + Σ (xi − dims[i].Min)·dims[i].Stride
// storage elements past a's min corner: numpy's as_strided, checked. It
// reaches the layouts no chain of the other views does, such as a reshape
// of dense data or a row-major tensor's strides.
//
// The view's elements must be a's elements, with no two at one address,
// and they must form a box of the root's positions (the unit of dirty
// state): a permuted crop, or any layout of a contiguous run of whole
// rows. Anything else is an error wrapping ErrShape or ErrOutOfRange that
// says so; Compact a copy first for other layouts. An empty view has
// stride 0 in every dimension.
func (a *Array[T]) View(offset int, dims []Dim) (*Array[T], error) {
	r := &a.raw
	if err := r.errOpen(); err != nil {
		return nil, err
	}
	off, err := r.viewOffset(offset, dims)
	if err != nil {
		return nil, err
	}
	if spanOf(dims) == 0 {
		// Empty: strides address nothing, and zeroing them keeps any crop
		// of it at an index inside the storage.
		dims = slices.Clone(dims)
		for i := range dims {
			dims[i].Stride = 0
		}
	}
	v := &Array[T]{data: a.data}
	v.raw.setDims(dims)
	r.viewInto(&v.raw, off)
	return v, nil
}

// viewOffset checks View's layout and returns the view's storage index.
func (r *Raw) viewOffset(offset int, dims []Dim) (int, error) {
	if err := checkLayout(dims, maxInt, r.ro); err != nil {
		return 0, err
	}
	v := Raw{typ: r.typ, esize: r.esize, st: r.st}
	v.setDims(dims)
	if v.Len() == 0 {
		return r.off, nil
	}
	first, ok := addOK(r.off, offset)
	if offset < 0 || !ok || first >= r.st.elems || v.spanElems() > r.st.elems-first {
		return 0, fmt.Errorf("%w: a view at offset %d spanning %d elements runs past the storage (%d elements from a's min corner): shrink it or move it", ErrOutOfRange, offset, v.spanElems(), r.st.elems-r.off)
	}
	v.off = first
	vb, ok := v.exactBox()
	if !ok {
		return 0, fmt.Errorf("%w: the view's elements (dims %v) are not a box of the root's positions: use a permuted crop or a contiguous run of whole rows, or Compact a copy first", ErrShape, dims)
	}
	if ab := r.box(nil); !ab.contains(vb) {
		return 0, fmt.Errorf("%w: the view reaches elements outside the Array it views: give View an Array that holds them all", ErrOutOfRange)
	}
	return first, nil
}

// exactBox returns r's elements as a box of root positions, and whether
// they are exactly that box: either every dimension of r walks one root
// dimension with its stride (a permuted crop), or r is dense and its run
// of storage is a whole box. A broadcast dimension (stride 0) repeats
// one position. Views made by the other methods always are.
func (r *Raw) exactBox() (box, bool) {
	st := r.st
	n := len(st.rdims)
	lo, hi := make([]int, n), make([]int, n)
	first, last := r.off, r.off+r.spanElems()-1
	if !st.exact(first, lo) || !st.exact(last, hi) {
		return nil, false
	}
	b := make(box, n)
	size := 1
	for k := range n {
		if lo[k] > hi[k] {
			return nil, false
		}
		b[k] = span{lo[k], hi[k]}
		size *= hi[k] - lo[k] + 1 // ≤ the root's element count: no overflow
	}
	if size != r.distinct() {
		return nil, false
	}
	if r.spanElems() == size {
		return b, true // size distinct positions inside a run of size elements
	}
	used := make([]bool, n)
	for _, d := range r.dimsRef() {
		if d.Extent <= 1 || d.Stride == 0 { // a broadcast repeats one position
			continue
		}
		k := slices.IndexFunc(st.rdims, func(rd Dim) bool { return rd.Extent > 1 && rd.Stride == d.Stride })
		if k < 0 || used[k] || hi[k]-lo[k]+1 != d.Extent {
			return nil, false
		}
		used[k] = true
	}
	return b, true
}

// distinct is the number of r's distinct elements: Len, with each
// broadcast dimension (stride 0, extent > 1: read-only views only) counted
// once. r is not empty.
func (r *Raw) distinct() int {
	n := 1
	for _, d := range r.dimsRef() {
		if d.Stride != 0 {
			n *= d.Extent
		}
	}
	return n
}

// exact decomposes storage index i into root positions, reporting whether
// i is a position at all (not a gap between a wrapped root's rows).
func (st *storage) exact(i int, pos []int) bool {
	st.positions(i, pos)
	at := 0
	for k, p := range pos {
		if p >= max(st.rdims[k].Extent, 1) {
			return false
		}
		at += p * st.rdims[k].Stride
	}
	return at == i
}
