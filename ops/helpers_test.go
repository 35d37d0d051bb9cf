package ops

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// forEachPos calls fn with every position (0-based, per dimension) of ext.
func forEachPos(ext []int, fn func(pos []int)) {
	for _, e := range ext {
		if e == 0 {
			return
		}
	}
	pos := make([]int, len(ext))
	for {
		fn(pos)
		i := 0
		for ; i < len(ext); i++ {
			pos[i]++
			if pos[i] < ext[i] {
				break
			}
			pos[i] = 0
		}
		if i == len(ext) {
			return
		}
	}
}

// coordsOf maps a destination position to an operand's coordinates,
// broadcasting its extent-1 and missing dimensions.
func coordsOf(a shaped, pos []int) []int {
	c := make([]int, a.Rank())
	for i := range c {
		d := a.Dim(i)
		c[i] = d.Min
		if d.Extent > 1 {
			c[i] += pos[i]
		}
	}
	return c
}

func extentsOf(a shaped) []int {
	e := make([]int, a.Rank())
	for i := range e {
		e[i] = a.Dim(i).Extent
	}
	return e
}

// layouts names the views every op is tested over.
var layouts = []string{"dense", "mins", "crop", "transposed", "wrapped"}

// makeView returns an Array of extents ext laid out as layout says,
// filled by gen through its host view.
func makeView[T array.Elem](r *rand.Rand, layout string, ext []int, gen func() T) *array.Array[T] {
	var a *array.Array[T]
	n := len(ext)
	switch layout {
	case "mins":
		mins := make([]int, n)
		for i := range mins {
			mins[i] = r.IntN(11) - 5
		}
		a = array.NewWithMins[T](mins, ext)
	case "crop":
		big := make([]int, n)
		for i, e := range ext {
			big[i] = e + 3
		}
		a = array.New[T](big...)
		for i, e := range ext {
			a = a.Crop(i, 1+r.IntN(2), e).Translate(i, r.IntN(7)-3)
		}
	case "transposed":
		if n < 2 {
			return makeView(r, "crop", ext, gen)
		}
		sw := append([]int(nil), ext...)
		sw[0], sw[n-1] = sw[n-1], sw[0]
		a = array.New[T](sw...).Transpose(0, n-1)
	case "wrapped":
		// strides in reverse order (dim 0 outermost) with padding
		dims := make([]array.Dim, n)
		stride := 1
		for i := n - 1; i >= 0; i-- {
			dims[i] = array.Dim{Min: r.IntN(5) - 2, Extent: ext[i], Stride: stride}
			stride *= max(ext[i], 1) + 1
		}
		w, err := array.Wrap(make([]T, stride), dims)
		if err != nil {
			panic(err)
		}
		a = w
	default:
		a = array.New[T](ext...)
	}
	h, err := a.Host()
	if err != nil {
		panic(err)
	}
	forEachPos(ext, func(pos []int) { h.Set(gen(), coordsOf(a, pos)...) })
	return a
}

// gen returns a generator of random T: small integers (so products and
// sums stay meaningful) or normal floats.
func gen[T array.Elem](r *rand.Rand, positive bool) func() T {
	return func() T {
		switch kindOf[T]() {
		case kFloat:
			x := r.NormFloat64() * 4
			if positive {
				x = math.Abs(x) + 0.01
			}
			return T(x)
		case kHalf:
			x := float32(r.NormFloat64() * 4)
			if positive {
				x = float32(math.Abs(float64(x))) + 0.01
			}
			return fromF32[T](x)
		case kSigned:
			if positive {
				return T(r.IntN(20) + 1)
			}
			return T(r.IntN(41) - 20)
		}
		return T(r.IntN(40))
	}
}

// same compares bit patterns (so -0 is not 0), treating every NaN as
// equal.
func same[T array.Elem](x, y T) bool {
	switch kindOf[T]() {
	case kFloat:
		if x != x && y != y {
			return true
		}
	case kHalf:
		fx, fy := toF32(x), toF32(y)
		if fx != fx && fy != fy {
			return true
		}
	}
	n := sizeOf[T]()
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&x)), n)) == string(unsafe.Slice((*byte)(unsafe.Pointer(&y)), n))
}

// mustPanicShape runs fn and checks that it panics with array.ErrShape
// naming both shapes.
func mustPanicShape(t *testing.T, fn func(), shapes ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, array.ErrShape) {
			t.Fatalf("panic %v, want array.ErrShape", r)
		}
		for _, s := range shapes {
			if !strings.Contains(err.Error(), s) {
				t.Fatalf("panic %q does not name shape %s", err, s)
			}
		}
	}()
	fn()
}

func typeName[T array.Elem]() string { return fmt.Sprint(array.TypeOf[T]()) }

// sameOrAdjacent reports whether x and y are the same, or neighbouring
// floats of T (one unit in the last place apart, same sign): the accuracy
// ops documents for float32 Pow and the transcendentals' fast paths.
func sameOrAdjacent[T array.Elem](x, y T) bool {
	if same(x, y) {
		return true
	}
	if k := kindOf[T](); k != kFloat && k != kHalf {
		return false
	}
	bits := func(v T) uint64 {
		var u uint64
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&u)), 8), unsafe.Slice((*byte)(unsafe.Pointer(&v)), sizeOf[T]()))
		return u
	}
	bx, by := bits(x), bits(y)
	sign := uint64(1) << (8*sizeOf[T]() - 1)
	if bx&sign != by&sign {
		return false
	}
	return bx == by+1 || by == bx+1
}
