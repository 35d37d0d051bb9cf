package array

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/resident-go/resident/internal/npshape"
)

// Shape operations in NumPy's order (see Axis). Every one here returns a
// view, sharing host and device memory, whose mins are 0 (NumPy counts
// from each axis's first element). A view is always a box of its root's
// elements, the unit of residency (see View), and strides are never
// negative; so a stepped range and a flip are not views here: package ops
// has their copying forms (ops.Index, ops.Flip), and ops.Reshape copies
// where Reshape cannot view. A broadcast is a view, read-only: its
// stride-0 dimensions repeat one element, so its box is its source's and
// a write through it could not mean one element (BroadcastTo).

// ErrNotView wraps ErrShape: the shape operation cannot be a view of this
// layout. The message names the copying form in package ops.
var ErrNotView = fmt.Errorf("%w: not expressible as a view", ErrShape)

// Reshape returns a view, sharing host and device memory, with the given
// shape in NumPy's order (outermost first; one extent may be -1, inferred)
// holding a's elements in NumPy's C order (dimension 0 fastest). It is a
// view when a's layout allows one, as NumPy's reshape: dense data always,
// and any layout whose merged dimensions are contiguous in memory. Else it
// returns an error wrapping ErrNotView: ops.Reshape then makes a counted
// copy on a's device. A shape whose element count differs from a's panics
// with ErrShape; a closed a is an error wrapping ErrClosed.
func (a *Array[T]) Reshape(shape ...int) (*Array[T], error) {
	if err := a.raw.errOpen(); err != nil {
		return nil, err
	}
	ext := reshapeExtents(a.raw.shape(), a.raw.Len(), shape)
	dims, ok := reshapeDims(a.raw.dimsRef(), ext)
	if !ok {
		return nil, fmt.Errorf("%w: reshape of shape %s (strides %s in elements) to %s: its elements are not contiguous in C order; ops.Reshape copies, or Compact first", ErrNotView, pyShape(a.Shape()), pyShape(npStrides(a.raw.dimsRef())), pyShape(shape))
	}
	v, err := a.View(0, dims)
	if err != nil {
		return nil, fmt.Errorf("%w: reshape of shape %s to %s: %v; ops.Reshape copies", ErrNotView, pyShape(a.Shape()), pyShape(shape), err)
	}
	return v, nil
}

// npStrides is d's strides in NumPy's order (in elements, not bytes).
func npStrides(d []Dim) []int {
	s := make([]int, len(d))
	for i, x := range d {
		s[len(d)-1-i] = x.Stride
	}
	return s
}

// reshapeExtents resolves shape (NumPy order, at most one -1) for the n
// elements of an Array of shape from into extents in Halide's order; it
// panics with ErrShape.
func reshapeExtents(from []int, n int, shape []int) []int {
	ext := extentsOf(shape)
	known, infer := 1, -1
	for i, e := range ext {
		switch {
		case e == -1 && infer < 0:
			infer = i
			continue
		case e < 0:
			panicf(ErrShape, "reshape of shape %s to %s: extents must be ≥ 0, with at most one -1", pyShape(from), pyShape(shape))
		}
		var ok bool
		if known, ok = mulOK(known, e); !ok {
			panicf(ErrShape, "reshape of shape %s to %s: the element count overflows int", pyShape(from), pyShape(shape))
		}
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			panicf(ErrShape, "reshape of shape %s (%d elements) to %s: the -1 cannot be inferred", pyShape(from), n, pyShape(shape))
		}
		ext[infer] = n / known
		known = n
	}
	if known != n {
		panicf(ErrShape, "reshape of shape %s (%d elements) to %s (%d elements): the counts must match", pyShape(from), n, pyShape(shape), known)
	}
	return ext
}

// reshapeDims is NumPy's no-copy reshape in Halide's order: old and new
// dimensions are matched in groups of equal element count, innermost
// first; each old group must be contiguous (stride_{i+1} = stride_i ·
// extent_i), and the new dimensions of the group step through it.
func reshapeDims(old []Dim, ext []int) ([]Dim, bool) {
	dims := make([]Dim, len(ext))
	n := 1
	for _, e := range ext {
		n *= e
	}
	if n == 0 {
		for i, e := range ext {
			dims[i] = Dim{Extent: e}
		}
		return dims, true
	}
	var o []Dim // the old dimensions that matter
	for _, d := range old {
		if d.Extent != 1 {
			o = append(o, d)
		}
	}
	i, j := 0, 0
	for i < len(o) || j < len(ext) {
		if j < len(ext) && ext[j] == 1 {
			dims[j] = Dim{Extent: 1, Stride: 1}
			if i < len(o) {
				dims[j].Stride = o[i].Stride
			}
			j++
			continue
		}
		if i >= len(o) || j >= len(ext) {
			return nil, false // counts differ: reshapeExtents rules it out
		}
		// One group: grow the smaller product until they agree.
		i0, j0 := i, j
		po, pn := o[i].Extent, ext[j]
		i, j = i+1, j+1
		for po != pn {
			if po < pn {
				if i >= len(o) {
					return nil, false
				}
				po *= o[i].Extent
				i++
			} else {
				if j >= len(ext) {
					return nil, false
				}
				pn *= ext[j]
				j++
			}
		}
		for k := i0; k+1 < i; k++ {
			if o[k+1].Stride != o[k].Stride*o[k].Extent {
				return nil, false
			}
		}
		s := o[i0].Stride
		for k := j0; k < j; k++ {
			dims[k] = Dim{Extent: ext[k], Stride: s}
			s *= ext[k]
		}
	}
	return dims, true
}

// BroadcastTo returns a read-only view, sharing host and device memory,
// of a repeated to shape (NumPy's order), as np.broadcast_to: a's axes
// align with shape's trailing ones, and each axis of a of extent 1, and
// each axis shape has beyond a's rank, repeats with stride 0; the others
// keep a's strides. Mins are 0.
//
// Its elements are a's, so it covers exactly a's box of the root: reading
// it (a host view, an op's input, a pipeline's input) moves only what a
// covers. Every write through it, or through any view of it (views of a
// read-only view are read-only), is refused with ErrReadOnly: Host and
// DeviceWrap return the error, SetHostDirty and SetDeviceDirty panic with
// it, and ops and pipeline calls return it for such an output. Write a
// instead, or a copy: ops.BroadcastTo (or Compact) makes one.
//
// A shape a does not broadcast to (fewer axes than a, an extent that is
// neither a's nor broadcast from 1, a negative extent, an element count
// that overflows int) is a shape mistake: it panics with ErrShape (see
// "Mistakes and failures" in the package documentation). A closed a is an
// error wrapping ErrClosed.
func (a *Array[T]) BroadcastTo(shape ...int) (*Array[T], error) {
	r := &a.raw
	if err := r.errOpen(); err != nil {
		return nil, err
	}
	var buf [inlineDims]Dim
	dims, err := r.broadcastDims(buf[:0], shape)
	if err != nil {
		panic(err)
	}
	v := a.viewAt(dims, r.off)
	v.raw.ro = true
	return v, nil
}

// broadcastDims is BroadcastTo's layout, in buf.
func (r *Raw) broadcastDims(buf []Dim, shape []int) ([]Dim, error) {
	n := len(shape)
	if n < r.rank {
		return nil, fmt.Errorf("%w: broadcast of shape %s to %s: the target has fewer axes; give at least %d", ErrShape, pyShape(r.shape()), pyShape(shape), r.rank)
	}
	dims, count := buf, 1
	for i := range n { // dimension i is shape's axis n-1-i
		e := shape[n-1-i]
		if e < 0 {
			return nil, fmt.Errorf("%w: broadcast of shape %s to %s: extents must be ≥ 0", ErrShape, pyShape(r.shape()), pyShape(shape))
		}
		var ok bool
		if count, ok = mulOK(count, e); !ok {
			return nil, fmt.Errorf("%w: broadcast of shape %s to %s: the element count overflows int", ErrShape, pyShape(r.shape()), pyShape(shape))
		}
		d := Dim{Extent: e} // stride 0: repeats
		if i < r.rank {
			switch src := r.dimsRef()[i]; src.Extent {
			case e:
				d.Stride = src.Stride
			case 1:
			default:
				return nil, fmt.Errorf("%w: shape %s does not broadcast to %s: axis %d has extent %d, the target %d (extents must match or be 1)", ErrShape, pyShape(r.shape()), pyShape(shape), -1-i, src.Extent, e)
			}
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// pyShape prints shape (NumPy's order) as NumPy does: (2, 3), (3,), ().
func pyShape(shape []int) string { return npshape.String(shape) }

// shape is r's extents in NumPy's order.
func (r *Raw) shape() []int {
	e := r.Extents()
	slices.Reverse(e)
	return e
}

// Sel selects along one axis for Index, in NumPy's words: R(start, stop)
// is start:stop, All is :, I(i) is the integer index i (the axis goes).
// Positions count from the axis's first element; negative ones from its
// end, and ranges clamp to the axis, as in NumPy.
type Sel struct {
	start, stop, step int
	hasStart, hasStop bool
	index             bool
}

// All selects a whole axis, NumPy's ':'.
var All = Sel{step: 1}

// R selects start:stop, NumPy's a[start:stop]; Step(k) adds a step.
func R(start, stop int) Sel {
	return Sel{start: start, stop: stop, step: 1, hasStart: true, hasStop: true}
}

// From selects start:, NumPy's a[start:].
func From(start int) Sel { return Sel{start: start, step: 1, hasStart: true} }

// To selects :stop, NumPy's a[:stop].
func To(stop int) Sel { return Sel{stop: stop, step: 1, hasStop: true} }

// I selects the integer index i and drops the axis, NumPy's a[i].
func I(i int) Sel { return Sel{start: i, step: 1, index: true} }

// Step returns s with step k, NumPy's start:stop:k (k < 0 walks
// backwards). Index takes only step 1; ops.Index takes any step but 0.
func (s Sel) Step(k int) Sel {
	s.step = k
	return s
}

// Positions resolves s for an axis of n elements as NumPy's
// slice.indices does: the first position, the step and the count of
// positions selected (first + i·step for i < count); index reports an
// integer index (I), whose count is 1. A step of 0, or an index outside
// [-n, n), panics with ErrOutOfRange.
func (s Sel) Positions(n int) (first, step, count int, index bool) {
	if s.index {
		i := s.start
		if i < 0 && i >= -n {
			i += n
		}
		if i < 0 || i >= n {
			panicf(ErrOutOfRange, "index %d of an axis of %d elements: want -%d ≤ index < %d", s.start, n, n, n)
		}
		return i, 1, 1, true
	}
	if s.step == 0 {
		panicf(ErrOutOfRange, "a step of 0: steps are ≥ 1 or ≤ -1")
	}
	// clamp is NumPy's PySlice_AdjustIndices.
	clamp := func(x, lo, hi int) int {
		if x < 0 {
			if x < -n {
				return lo
			}
			x += n
		}
		return min(max(x, lo), hi)
	}
	step = s.step
	var lo, hi int
	if step > 0 {
		lo, hi = 0, n
		if s.hasStart {
			lo = clamp(s.start, 0, n)
		}
		if s.hasStop {
			hi = clamp(s.stop, 0, n)
		}
		if hi > lo {
			count = (hi-lo-1)/step + 1
		}
		return lo, step, count, false
	}
	lo, hi = n-1, -1
	if s.hasStart {
		lo = clamp(s.start, -1, n-1)
	}
	if s.hasStop {
		hi = clamp(s.stop, -1, n-1)
	}
	if lo > hi {
		count = int(uint(lo-hi-1)/(uint(-(step+1))+1)) + 1 // -step overflows for MinInt
	}
	return lo, step, count, false
}

// Index returns a view, sharing host and device memory, of the selection
// sel in NumPy's order (one Sel per axis, outermost first; missing ones
// are All), like NumPy's basic indexing a[1:3, :, 2]: R, From, To and All
// keep an axis, I drops it. Only step 1 is a view: another step that
// selects more than one position panics with ErrNotView, naming
// ops.Index, which copies. More Sels than axes panic with ErrShape, a
// step of 0 or an index outside the axis with ErrOutOfRange.
func (a *Array[T]) Index(sel ...Sel) *Array[T] {
	r := &a.raw
	r.checkOpen()
	if len(sel) > r.rank {
		panicf(ErrShape, "%d selections for a %d-D Array: pass at most one per axis", len(sel), r.rank)
	}
	var buf [inlineDims]Dim
	dims := buf[:0]
	off := r.off
	src := r.dimsRef()
	for d := r.rank - 1; d >= 0; d-- { // outermost first, as sel
		x := src[d]
		s := All
		if k := r.rank - 1 - d; k < len(sel) {
			s = sel[k]
		}
		first, step, count, index := s.Positions(x.Extent)
		if step != 1 && count > 1 {
			panic(fmt.Errorf("%w: a step of %d along axis %d: views have no steps here (they would not be a box of the root's elements); ops.Index copies", ErrNotView, step, r.rank-1-d))
		}
		if count > 0 {
			off += first * x.Stride
		}
		if !index {
			dims = append(dims, Dim{Extent: count, Stride: x.Stride})
		}
	}
	slices.Reverse(dims)
	return a.viewAt(dims, off).mustBox("Index", "ops.Index")
}

// mustBox returns v when its elements are a box of its root's positions,
// the unit of residency (see View); else it panics with ErrNotView naming
// the copying form. A crop of a permuted crop is one; a crop of a
// reshaped view (View, Reshape) need not be: say, every other row.
func (v *Array[T]) mustBox(op, copying string) *Array[T] {
	if v.raw.Len() == 0 {
		return v
	}
	if _, ok := v.raw.exactBox(); !ok {
		panic(fmt.Errorf("%w: this %s of a reshaped view (dims %v) would not be a box of its root's elements, so writes through it could not be tracked: %s copies", ErrNotView, op, v.raw.dimsRef(), copying))
	}
	return v
}

// viewAt makes the view of a with dims at storage index off; dims must
// address only a's elements, as a box (a crop, with dimensions removed
// or of extent 1 added). An empty view gets r's offset and stride 0.
func (a *Array[T]) viewAt(dims []Dim, off int) *Array[T] {
	v := &Array[T]{data: a.data}
	if spanOf(dims) == 0 {
		for i := range dims {
			dims[i].Stride = 0
		}
		off = a.raw.off
	}
	v.raw.setDims(dims)
	a.raw.viewInto(&v.raw, off)
	return v
}

// Squeeze returns a view, sharing host and device memory, without the
// axes of extent 1 given (all of them when none are given), as
// np.squeeze. Naming an axis whose extent is not 1 panics with ErrShape.
func (a *Array[T]) Squeeze(axes ...Axis) *Array[T] {
	r := &a.raw
	r.checkOpen()
	drop := make([]bool, r.rank)
	for _, ax := range axes {
		d := dimOf(r.rank, ax)
		if r.dimsRef()[d].Extent != 1 {
			panicf(ErrShape, "squeeze of axis %d, whose extent is %d: only extent-1 axes can go", ax, r.dimsRef()[d].Extent)
		}
		drop[d] = true
	}
	var buf [inlineDims]Dim
	dims := buf[:0]
	for d, x := range r.dimsRef() {
		if drop[d] || len(axes) == 0 && x.Extent == 1 {
			continue
		}
		x.Min = 0
		dims = append(dims, x)
	}
	return a.viewAt(dims, r.off)
}

// ExpandDims returns a view, sharing host and device memory, with a new
// axis of extent 1 at position ax of the result (NumPy's order; -1 is the
// innermost), as np.expand_dims. Ops broadcast extent-1 axes, so this is
// also the view that broadcasts a against a bigger shape.
func (a *Array[T]) ExpandDims(ax Axis) *Array[T] {
	a.raw.checkOpen()
	d := dimOf(a.raw.rank+1, ax)
	return a.Embed(d, 0).zeroMins()
}

// zeroMins is a with every Min 0: a view, sharing memory.
func (a *Array[T]) zeroMins() *Array[T] {
	var buf [inlineDims]Dim
	dims := append(buf[:0], a.raw.dimsRef()...)
	for i := range dims {
		dims[i].Min = 0
	}
	return a.viewAt(dims, a.raw.off)
}

// Split returns n views, sharing host and device memory, of equal extent
// along axis ax, as np.split(a, n, axis). An extent that n does not divide
// panics with ErrShape, as do more views than a Go slice can hold (a
// broadcast axis may be that long); n outside [1, max(extent, 1)] with
// ErrOutOfRange (NumPy also cuts an empty axis into n > 1 empty pieces;
// use SplitAt).
func (a *Array[T]) Split(n int, ax Axis) []*Array[T] {
	a.raw.checkOpen()
	d := dimOf(a.raw.rank, ax)
	e := a.raw.dimsRef()[d].Extent
	if n < 1 || n > max(e, 1) {
		panicf(ErrOutOfRange, "split of an axis of %d into %d sections: want 1 ≤ sections ≤ %d", e, n, max(e, 1))
	}
	if e%n != 0 {
		panicf(ErrShape, "split of axis %d (extent %d) into %d equal sections: use SplitAt for unequal ones", ax, e, n)
	}
	if n > maxSplit[T]() {
		panicf(ErrShape, "split of axis %d into %d sections: more views than the %d bytes a Go slice can hold; split into fewer sections, or Crop the pieces one at a time", ax, n, maxHostBytes)
	}
	idx := make([]int, n-1)
	for i := range idx {
		idx[i] = (i + 1) * (e / n)
	}
	return a.SplitAt(ax, idx...)
}

// maxSplit is the most views Split makes: each costs a split index, a
// pointer in the result and an Array, bounded like host storage
// (maxHostBytes) so an impossible count is ErrShape, not the runtime's
// makeslice panic or out-of-memory crash.
func maxSplit[T Elem]() int {
	var a Array[T]
	return maxHostBytes / int(unsafe.Sizeof(0)+unsafe.Sizeof(&a)+unsafe.Sizeof(a))
}

// SplitAt returns len(indices)+1 views, sharing host and device memory,
// along axis ax: a[:i0], a[i0:i1], …, a[ik:] as np.split(a, indices,
// axis), with NumPy's slice rules (negative indices count from the end,
// out-of-range ones clamp, a decreasing pair gives an empty view).
func (a *Array[T]) SplitAt(ax Axis, indices ...int) []*Array[T] {
	a.raw.checkOpen()
	d := dimOf(a.raw.rank, ax)
	x := a.raw.dimsRef()[d]
	out := make([]*Array[T], 0, len(indices)+1)
	for k := 0; k <= len(indices); k++ {
		s := All
		switch {
		case len(indices) == 0:
		case k == 0:
			s = To(indices[0])
		case k == len(indices):
			s = From(indices[k-1])
		default:
			s = R(indices[k-1], indices[k])
		}
		first, _, count, _ := s.Positions(x.Extent)
		var buf [inlineDims]Dim
		dims := append(buf[:0], a.raw.dimsRef()...)
		for i := range dims {
			dims[i].Min = 0
		}
		dims[d].Extent = count
		out = append(out, a.viewAt(dims, a.raw.off+first*x.Stride).mustBox("SplitAt", "ops.Index, one piece at a time,"))
	}
	return out
}
