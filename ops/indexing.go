package ops

import (
	"fmt"
	"slices"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// NumPy's advanced indexing: integer arrays (Take, Put) and boolean masks
// (Extract, PutMask). Indices and masks are data: they are read on the
// host (a device-dirty index Array is copied home, counted in its
// device's Stats and refused under the transfer guard), and an index out
// of range is an error wrapping array.ErrOutOfRange (NumPy raises
// IndexError), not a panic. Shapes that do not fit are programmer errors:
// panics wrapping array.ErrShape, printed in NumPy's order.

// Take returns the elements of a at positions idx along axis ax, as
// np.take(a, idx, axis=ax): the result's shape is a's with axis ax
// replaced by idx's shape (NumPy's order). A negative index counts from
// the end, as NumPy's; one outside [-n, n) (n: a's extent along ax) is
// an error wrapping array.ErrOutOfRange, before anything is made.
//
// It runs where the placement rule puts a Copy of a: when a is on a
// computing device and current or newest there, one Copy launch per
// index (each copies one slice of a along ax), the result on the device,
// with no transfer of a; else on the host, one pass.
func Take[T array.Elem](a *array.Array[T], idx *array.Array[int64], ax array.Axis) (*array.Array[T], error) {
	if err := closedOperand("Take", nil, rawOf(a), rawOf(idx)); err != nil {
		return nil, err
	}
	dim := a.DimOf(ax)
	n := a.Dim(dim).Extent
	is, err := hostValues(idx)
	if err != nil {
		return nil, fmt.Errorf("ops.Take: reading the indices: %w", err)
	}
	pos := make([]int, len(is))
	for k, i := range is {
		p, ok := wrapIndex(i, n)
		if !ok {
			return nil, fmt.Errorf("%w: ops.Take: index %d is out of bounds for axis %d with size %d (NumPy raises IndexError): indices must be in [%d, %d)", array.ErrOutOfRange, i, ax, n, -n, n)
		}
		pos[k] = p
	}
	// The result's extents: a's, with dim replaced by idx's; filled
	// through a view with idx flattened into one dimension.
	ext := a.Extents()
	full := slices.Concat(ext[:dim], idx.Extents(), ext[dim+1:])
	flat := slices.Clone(ext)
	flat[dim] = len(pos)
	return run(array.New[T](full...), func(d *array.Array[T]) error {
		v, err := d.Reshape(reversed(flat)...) // dense: a view
		if err != nil {
			return err
		}
		dev, err := placement("Take", nil, rawOf(a))
		if err != nil {
			return err
		}
		if device.Computes(dev) {
			amin := a.Dim(dim).Min
			for k, p := range pos {
				if err := Copy(v.Slice(dim, k), a.Slice(dim, amin+p)); err != nil {
					return err
				}
			}
			return nil
		}
		av, err := a.HostReadOnly()
		if err != nil {
			return err
		}
		hv, err := v.Host()
		if err != nil {
			return err
		}
		src, out := av.Data(), hv.Data()
		dims := a.Dims()
		inner, outer := offsets(dims[:dim]), offsets(dims[dim+1:])
		st := dims[dim].Stride
		o := 0
		for _, base := range outer {
			for _, p := range pos {
				at := base + p*st
				for _, in := range inner {
					out[o] = src[at+in]
					o++
				}
			}
		}
		return nil
	})
}

// reversed is a reversed copy of s: extents as a NumPy shape.
func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// wrapIndex is i counted from the end when negative, and whether it is
// in [0, n).
func wrapIndex(i int64, n int) (int, bool) {
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, false
	}
	return int(i), true
}

// offsets lists the element offsets of the box dims (from its min
// corner), dimension 0 fastest: [0] for no dimensions.
func offsets(dims []array.Dim) []int {
	out := []int{0}
	for _, d := range dims {
		next := make([]int, 0, len(out)*d.Extent)
		for x := range d.Extent { // the lower dimensions vary inside
			for _, o := range out {
				next = append(next, o+x*d.Stride)
			}
		}
		out = next
	}
	return out
}

// hostValues returns a's elements in C order (NumPy's ravel: dimension
// 0 fastest) through a.HostReadOnly, which copies device-dirty data home
// (counted, and refused under the guard).
func hostValues[T array.Elem](a *array.Array[T]) ([]T, error) {
	v, err := a.HostReadOnly()
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, a.Len())
	for x := range v.Values() {
		out = append(out, x)
	}
	return out, nil
}

// Put writes v's values into a at the flat (C-order) positions idx, as
// np.put(a, idx, v): position k gets v[k mod len(v)] (v repeats, in C
// order, and has any shape); a later index wins over an earlier equal
// one. A negative index counts from the end; one outside [-a.Len(),
// a.Len()) is an error wrapping array.ErrOutOfRange, before anything is
// written. An empty v with indices panics with array.ErrShape.
//
// idx and v are read on the host. a is written where the placement rule
// puts an op with dst a and inputs idx and v: on a's device when it is
// computing and a is current or newest there, one Fill launch per index
// (of the one element), else on the host.
func Put[T array.Elem](a *array.Array[T], idx *array.Array[int64], v *array.Array[T]) error {
	if err := closedOperand("Put", rawOf(a), rawOf(idx), rawOf(v)); err != nil {
		return err
	}
	if idx.Len() > 0 && v.Len() == 0 {
		panic(fmt.Errorf("%w: ops.Put: %d indices and no values (v has shape %s): pass one value or more", array.ErrShape, idx.Len(), pyShape(v.Shape())))
	}
	is, err := hostValues(idx)
	if err != nil {
		return fmt.Errorf("ops.Put: reading the indices: %w", err)
	}
	vs, err := hostValues(v)
	if err != nil {
		return fmt.Errorf("ops.Put: reading the values: %w", err)
	}
	n := a.Len()
	pos := make([]int, len(is))
	for k, i := range is {
		p, ok := wrapIndex(i, n)
		if !ok {
			return fmt.Errorf("%w: ops.Put: index %d is out of bounds for size %d (NumPy raises IndexError): indices must be in [%d, %d)", array.ErrOutOfRange, i, n, -n, n)
		}
		pos[k] = p
	}
	if len(pos) == 0 {
		return nil
	}
	dev, err := placement("Put", rawOf(a), rawOf(idx), rawOf(v))
	if err != nil {
		return err
	}
	ext := a.Extents()
	if device.Computes(dev) {
		for k, p := range pos {
			if err := Fill(elementView(a, ext, p), vs[k%len(vs)]); err != nil {
				return err
			}
		}
		return nil
	}
	h, err := a.Host()
	if err != nil {
		return err
	}
	data := h.Data()
	offs := offsets(a.Dims())
	for k, p := range pos {
		data[offs[p]] = vs[k%len(vs)]
	}
	return nil
}

// elementView is the one-element crop of a at flat C-order position p.
func elementView[T array.Elem](a *array.Array[T], ext []int, p int) *array.Array[T] {
	v := a
	for d, e := range ext {
		v = v.Crop(d, a.Dim(d).Min+p%e, 1)
		p /= e
	}
	return v
}

// Extract returns the elements of a where mask is non-zero, in C order,
// as a new 1-D Array: NumPy's a[mask] (np.extract(mask, a)). mask has
// a's shape, or it panics with array.ErrShape. It runs on the host: the
// result's length depends on mask's data. Device-dirty a or mask are
// copied home first, counted in their device's Stats and refused under
// the transfer guard.
func Extract[T array.Elem](mask *array.Array[uint8], a *array.Array[T]) (*array.Array[T], error) {
	if err := closedOperand("Extract", nil, rawOf(mask), rawOf(a)); err != nil {
		return nil, err
	}
	sameShape("Extract", "mask", mask.Shape(), a.Shape())
	ms, err := hostValues(mask)
	if err != nil {
		return nil, fmt.Errorf("ops.Extract: reading the mask: %w", err)
	}
	as, err := hostValues(a)
	if err != nil {
		return nil, fmt.Errorf("ops.Extract: %w", err)
	}
	out := make([]T, 0, len(as))
	for i, m := range ms {
		if m != 0 {
			out = append(out, as[i])
		}
	}
	return array.FromValues(out), nil
}

// sameShape panics with array.ErrShape unless the shapes (NumPy's order)
// are equal.
func sameShape(op, what string, got, want []int) {
	if !slices.Equal(got, want) {
		panic(fmt.Errorf("%w: ops.%s: %s has shape %s, the Array %s: give %s the Array's shape (ops.BroadcastTo makes one)", array.ErrShape, op, what, pyShape(got), pyShape(want), what))
	}
}

// PutMask sets the elements of a where mask is non-zero to x, in place:
// NumPy's a[mask] = x (np.putmask(a, mask, x)). mask has a's shape, or
// broadcasts to it by ops' rule; otherwise it panics with array.ErrShape.
// (For values from an Array, use Where(a, mask, values, a).)
//
// It is Where(a, mask, x, a), placed by the rule for dst a and input
// mask: on a's device when it computes and the operands are current or
// newest there, x is a one-element Array made there by Fill (one launch)
// and Where is one more launch, with no transfer; else on the host.
func PutMask[T array.Elem](a *array.Array[T], mask *array.Array[uint8], x T) error {
	if err := closedOperand("PutMask", rawOf(a), rawOf(mask)); err != nil {
		return err
	}
	broadcastInto("PutMask", a.Extents(), mask.Extents())
	dev, err := placement("PutMask", rawOf(a), rawOf(mask))
	if err != nil {
		return err
	}
	s, err := deviceTemp[T](dev)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := Fill(s, x); err != nil {
		return err
	}
	return Where(a, mask, s, a)
}

// broadcastInto panics with array.ErrShape, in NumPy's words, unless an
// input of extents in broadcasts to dst's extents.
func broadcastInto(op string, dst, in []int) {
	if got := broadcastExtents(op, dst, in); !slices.Equal(got, dst) {
		panic(fmt.Errorf("%w: ops.%s: shape %s does not broadcast to the Array's %s", array.ErrShape, op, pyExtents(in), pyExtents(dst)))
	}
}

// deviceTemp is a new dense Array of extents for the op's own use,
// allocated on d when d computes: marked device-newer with undefined
// contents, so that the op that writes it next runs on d with no upload.
// Its caller overwrites it before reading. On the host (d nil or not
// computing) it is array.New's zeros.
func deviceTemp[T array.Elem](d device.Device, ext ...int) (*array.Array[T], error) {
	t := array.New[T](ext...)
	if !device.Computes(d) || t.Len() == 0 {
		return t, nil
	}
	if err := res().Alloc(rawOf(t), d); err != nil {
		t.Close()
		return nil, err
	}
	res().Wrote(rawOf(t), plumb.Device)
	return t, nil
}
