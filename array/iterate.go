package array

import "iter"

// forEachIndex calls fn with the storage index of every element, dimension 0
// fastest.
func (r *Raw) forEachIndex(fn func(i int)) {
	dims := r.dimsRef()
	if r.Len() == 0 {
		return
	}
	if len(dims) == 0 {
		fn(r.off)
		return
	}
	var buf [inlineDims]int
	pos := positions(&buf, len(dims))
	inner := dims[0]
	for {
		base := r.off
		for k := 1; k < len(dims); k++ {
			base += pos[k] * dims[k].Stride
		}
		for x := 0; x < inner.Extent; x++ {
			fn(base + x*inner.Stride)
		}
		if !odometer(pos, dims) {
			return
		}
	}
}

// positions returns n zeroed ints, in buf when they fit.
func positions(buf *[inlineDims]int, n int) []int {
	if n <= inlineDims {
		return buf[:n]
	}
	return make([]int, n)
}

// odometer advances pos over dims 1… and reports false after the last.
func odometer(pos []int, dims []Dim) bool {
	for k := 1; k < len(dims); k++ {
		pos[k]++
		if pos[k] < dims[k].Extent {
			return true
		}
		pos[k] = 0
	}
	return false
}

// forEach calls fn with the coordinates of every element, dimension 0
// fastest. fn must not keep coords: it is reused.
func (r *Raw) forEach(fn func(coords []int)) {
	r.checkOpen()
	dims := r.dimsRef()
	if r.Len() == 0 {
		return
	}
	c := make([]int, len(dims))
	for i, d := range dims {
		c[i] = d.Min
	}
	for {
		fn(c)
		k := 0
		for ; k < len(dims); k++ {
			c[k]++
			if c[k] <= dims[k].Max() {
				break
			}
			c[k] = dims[k].Min
		}
		if k == len(dims) {
			return
		}
	}
}

// All yields the coordinates and value of every element, dimension 0
// fastest. The coordinate slice is reused between iterations.
func (v ReadView[T]) All() iter.Seq2[[]int, T] {
	return func(yield func([]int, T) bool) {
		stop := false
		v.a.raw.forEach(func(c []int) {
			if !stop && !yield(c, v.At(c...)) {
				stop = true
			}
		})
	}
}

// Values yields every element, dimension 0 fastest.
func (v ReadView[T]) Values() iter.Seq[T] {
	return func(yield func(T) bool) {
		v.check()
		stop := false
		v.a.raw.forEachIndex(func(i int) {
			if !stop && !yield(v.a.data[i]) {
				stop = true
			}
		})
	}
}
