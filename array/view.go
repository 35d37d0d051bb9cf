package array

import "fmt"

// derive returns a view of a with the given dims and min-corner offset. It is
// small enough to inline, so a view that does not escape stays on the stack.
func (a *Array[T]) derive(off int, dims []Dim) *Array[T] {
	v := &Array[T]{data: a.data}
	v.setDimsCopy(dims)
	a.viewInto(&v.rawState, off)
	return v
}

// Crop returns a view, sharing host and device memory, of the coordinates
// min … min+extent-1 in dimension dim. A crop of a crop addresses exactly
// the elements of the equivalent single crop.
func (a *Array[T]) Crop(dim, min, extent int) *Array[T] {
	var buf [inlineDims]Dim
	dims, off := a.cropDims(buf[:0], dim, min, extent)
	return a.derive(off, dims)
}

func (r *Raw) cropDims(buf []Dim, dim, min, extent int) ([]Dim, int) {
	r.checkDim(dim)
	dims := append(buf, r.dimsRef()...)
	d := dims[dim]
	if extent < 0 || min < d.Min || min+extent > d.Min+d.Extent {
		panicf(ErrOutOfRange, "crop [%d, %d] of dimension %d, which spans [%d, %d]: crop inside the Array", min, min+extent-1, dim, d.Min, d.Max())
	}
	dims[dim] = Dim{Min: min, Extent: extent, Stride: d.Stride}
	return dims, r.off + (min-d.Min)*d.Stride
}

// Slice returns a view, sharing host and device memory, of the elements at
// coordinate pos in dimension dim, with that dimension removed.
func (a *Array[T]) Slice(dim, pos int) *Array[T] {
	var buf [inlineDims]Dim
	dims, off := a.sliceDims(buf[:0], dim, pos)
	return a.derive(off, dims)
}

func (r *Raw) sliceDims(buf []Dim, dim, pos int) ([]Dim, int) {
	r.checkDim(dim)
	d := r.dimsRef()[dim]
	if pos < d.Min || pos > d.Max() {
		panicf(ErrOutOfRange, "slice at %d of dimension %d, which spans [%d, %d]: slice inside the Array", pos, dim, d.Min, d.Max())
	}
	dims := append(buf, r.dimsRef()[:dim]...)
	dims = append(dims, r.dimsRef()[dim+1:]...)
	return dims, r.off + (pos-d.Min)*d.Stride
}

// Embed returns a view, sharing host and device memory, with a new
// dimension of extent 1 inserted at index dim whose only coordinate is pos:
// the inverse of Slice(dim, pos).
func (a *Array[T]) Embed(dim, pos int) *Array[T] {
	var buf [inlineDims]Dim
	return a.derive(a.off, a.embedDims(buf[:0], dim, pos))
}

func (r *Raw) embedDims(buf []Dim, dim, pos int) []Dim {
	if dim < 0 || dim > r.rank {
		panicf(ErrShape, "embed at dimension %d of a %d-D Array: want 0 ≤ dim ≤ %d", dim, r.rank, r.rank)
	}
	stride := 1
	for _, d := range r.dimsRef() {
		stride = max(stride, d.Extent*d.Stride)
	}
	dims := append(buf, r.dimsRef()[:dim]...)
	dims = append(dims, Dim{Min: pos, Extent: 1, Stride: stride})
	return append(dims, r.dimsRef()[dim:]...)
}

// Transpose returns a view, sharing host and device memory, with
// dimensions d0 and d1 swapped. Transposing twice restores the addressing.
func (a *Array[T]) Transpose(d0, d1 int) *Array[T] {
	a.checkDim(d0)
	a.checkDim(d1)
	var buf [inlineDims]Dim
	dims := append(buf[:0], a.dimsRef()...)
	dims[d0], dims[d1] = dims[d1], dims[d0]
	return a.derive(a.off, dims)
}

// Permute returns a view, sharing host and device memory, whose dimension
// i is a's dimension order[i]. order must be a permutation of 0…Rank-1.
func (a *Array[T]) Permute(order ...int) *Array[T] {
	var buf [inlineDims]Dim
	return a.derive(a.off, a.permuteDims(buf[:0], order))
}

func (r *Raw) permuteDims(buf []Dim, order []int) []Dim {
	if len(order) != r.rank {
		panicf(ErrShape, "permutation %v for a %d-D Array: name every dimension once", order, r.rank)
	}
	var seen uint64
	dims := buf
	for _, o := range order {
		if o < 0 || o >= r.rank || (o < 64 && seen&(1<<o) != 0) {
			panicf(ErrShape, "permutation %v for a %d-D Array: name every dimension 0…%d once", order, r.rank, r.rank-1)
		}
		seen |= 1 << o
		dims = append(dims, r.dimsRef()[o])
	}
	return dims
}

// Translate returns a view, sharing host and device memory, whose
// coordinates in dimension dim are shifted by delta (Min += delta).
func (a *Array[T]) Translate(dim, delta int) *Array[T] {
	a.checkDim(dim)
	var buf [inlineDims]Dim
	dims := append(buf[:0], a.dimsRef()...)
	dims[dim].Min += delta
	return a.derive(a.off, dims)
}

// SetMin returns a view, sharing host and device memory, whose dimensions
// start at mins (one per dimension).
func (a *Array[T]) SetMin(mins ...int) *Array[T] {
	if len(mins) != a.rank {
		panic(fmt.Errorf("%w: %d mins for a %d-D Array: pass one per dimension", ErrShape, len(mins), a.rank))
	}
	var buf [inlineDims]Dim
	dims := append(buf[:0], a.dimsRef()...)
	for i := range dims {
		dims[i].Min = mins[i]
	}
	return a.derive(a.off, dims)
}
