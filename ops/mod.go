package ops

import (
	"math"

	"github.com/resident-go/resident/array"
)

// modVec computes d = a mod b, floored (NumPy's remainder): floats mirror
// NumPy's npy_divmod (fmod, then the divisor's sign; x mod 0 is NaN, a
// zero result is ±0 with the divisor's sign, and −1 mod +Inf is +Inf, as
// in NumPy); integers give 0 for x mod 0.
func modVec[T array.Elem](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	switch kindOf[T]() {
	case kFloat:
		if d32, ok := any(d).([]float32); ok {
			mod32(d32, any(a).([]float32), any(b).([]float32))
			return
		}
		modSlow(d, a, b)
	case kSigned:
		for i := range d {
			x, y := int64(a[i]), int64(b[i])
			if y == 0 {
				d[i] = 0
				continue
			}
			r := x % y // Go defines MinInt64 % −1 as 0; narrower types do not overflow
			if r != 0 && (r < 0) != (y < 0) {
				r += y
			}
			d[i] = T(r)
		}
	default:
		for i := range d {
			if y := uint64(b[i]); y != 0 {
				d[i] = T(uint64(a[i]) % y)
			} else {
				d[i] = 0
			}
		}
	}
}

// mod32 is modVec for float32 with fmod computed in float64 where that is
// exact: for |x/y| < 2^29 and finite y, n = trunc(x/y) makes n·y exact
// (24 + 29 bits) and x − n·y is too (a remainder below 2|y|); should x/y
// round up to the next integer, the remainder comes out past zero and one
// |y| brings it back. The rest (y 0 or ±Inf, x ±Inf, NaN, huge quotients)
// takes modVec's float path. NumPy's sign rule follows in float32 as
// there, without branches (the signs are random in real data).
func mod32(d, a, b []float32) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := float64(a[i]), float64(b[i])
		q := x / y
		if !(math.Abs(q) < 1<<29 && math.Abs(y) <= math.MaxFloat32) {
			modSlow(d[i:i+1], a[i:i+1], b[i:i+1])
			continue
		}
		r := x - float64(int64(q))*y
		if r != 0 && (r < 0) != (x < 0) {
			r += math.Copysign(y, x)
		}
		m := float32(r)
		mb, yb, sb := math.Float32bits(m), math.Float32bits(b[i]), math.Float32bits(m+b[i])
		fix := uint32(b2u(mb<<1 != 0)) & ((mb ^ yb) >> 31) // m ≠ 0 and its sign is not y's: m + y
		mb ^= (mb ^ sb) & -fix
		zero := uint32(b2u(mb<<1 == 0)) // ±0: y's sign
		mb ^= (mb ^ yb&(1<<31)) & -zero
		d[i] = math.Float32frombits(mb)
	}
}

// modSlow is modVec's float path: math.Mod, then NumPy's sign rule.
func modSlow[T array.Elem](d, a, b []T) {
	for i := range d {
		x, y := a[i], b[i]
		m := T(math.Mod(float64(x), float64(y))) // exact, so exact in T too
		switch {
		case y == 0:
		case m != 0:
			if (y < 0) != (m < 0) {
				m += y
			}
		default:
			m = T(math.Copysign(0, float64(y)))
		}
		d[i] = m
	}
}

// Clip stores a limited to [lo, hi] in dst: Minimum(Maximum(a, lo), hi),
// NumPy's clip with scalar bounds. A NaN element stays NaN; when lo > hi
// every element is hi, as in NumPy. It runs as those two elementwise ops,
// each placed by the rule (the second follows the first, since its input
// is dst); a broadcast a is as in Binary.
func Clip[T array.Elem](dst, a *array.Array[T], lo, hi T) error {
	if err := BinaryScalar(dst, a, lo, OpMax); err != nil {
		return err
	}
	return BinaryScalar(dst, dst, hi, OpMin)
}
