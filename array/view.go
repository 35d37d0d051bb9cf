package array

import "fmt"

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
func (r *Raw) view(v *Raw, op viewOp, x, y, z int) {
	r.checkOpen()
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
		dims[x].Min += y
	}
	v.setDims(dims)
	r.viewInto(v, off)
}

// viewDims fills v as a view of r with the given dims and r's offset.
func (r *Raw) viewDims(v *Raw, dims []Dim) {
	r.checkOpen()
	v.setDims(dims)
	r.viewInto(v, r.off)
}

// Crop returns a view, sharing host and device memory, of the coordinates
// min … min+extent-1 in dimension dim. A crop of a crop addresses exactly
// the elements of the equivalent single crop.
func (a *Array[T]) Crop(dim, min, extent int) *Array[T] {
	v := &Array[T]{data: a.data}
	a.view(&v.rawState, opCrop, dim, min, extent)
	return v
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
	v := &Array[T]{data: a.data}
	a.view(&v.rawState, opSlice, dim, pos, 0)
	return v
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
	v := &Array[T]{data: a.data}
	a.view(&v.rawState, opEmbed, dim, pos, 0)
	return v
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
	v := &Array[T]{data: a.data}
	a.view(&v.rawState, opTranspose, d0, d1, 0)
	return v
}

// Permute returns a view, sharing host and device memory, whose dimension
// i is a's dimension order[i]. order must be a permutation of 0…Rank-1.
func (a *Array[T]) Permute(order ...int) *Array[T] {
	var buf [inlineDims]Dim
	v := &Array[T]{data: a.data}
	a.viewDims(&v.rawState, a.permuteDims(buf[:0], order))
	return v
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
	v := &Array[T]{data: a.data}
	a.view(&v.rawState, opTranslate, dim, delta, 0)
	return v
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
	v := &Array[T]{data: a.data}
	a.viewDims(&v.rawState, dims)
	return v
}
