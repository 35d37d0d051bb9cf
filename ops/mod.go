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
