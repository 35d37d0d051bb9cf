package array

import "math"

// The NumPy constructors that need no input Array: values computed on the
// host into a new dense, device-aware Array (as Zeros and Full), which
// the first op that reads it next to device-resident operands uploads,
// counted, or ops.On places explicitly.

// Linspace returns num evenly spaced values from start to stop, both
// included, as np.linspace(start, stop, num): value i is start + i·step
// with step = (stop − start)/(num − 1), computed in float64, the last one
// stop exactly, then converted to T (integer types take the floor, as
// NumPy's since 1.20; Float16 and BFloat16 round through float32). num
// = 1 gives [start], num = 0 an empty Array; a negative num panics with
// ErrOutOfRange.
func Linspace[T Elem](start, stop float64, num int) *Array[T] {
	if num < 0 {
		panicf(ErrOutOfRange, "Linspace: num = %d: the number of samples must be non-negative (NumPy raises ValueError)", num)
	}
	a := Zeros[T](num)
	if num == 0 {
		return a
	}
	div := float64(num - 1)
	delta := stop - start
	step := delta / div
	for i := range a.data {
		var y float64
		switch {
		case num == 1:
			y = start
		case step == 0: // a range too small for step: NumPy scales first
			y = float64(i)/div*delta + start
		default:
			y = float64(i)*step + start
		}
		a.data[i] = fromFloat64[T](y)
	}
	if num > 1 {
		a.data[num-1] = fromFloat64[T](stop)
	}
	return a
}

// fromFloat64 converts y to T as NumPy's astype after linspace does:
// integers take the floor, the 16-bit floats round through float32.
func fromFloat64[T Elem](y float64) T {
	var z T
	switch any(z).(type) {
	case Float16:
		return T(F16(float32(y)))
	case BFloat16:
		return T(BF16(float32(y)))
	case float32, float64:
		return T(y)
	}
	return T(math.Floor(y))
}

// Eye returns the n×m Array (NumPy's shape (n, m)) with ones on diagonal
// k and zeros elsewhere, as np.eye(n, m, k): k > 0 is above the main
// diagonal (element [i, i+k] is 1), k < 0 below. A negative n or m panics
// with ErrShape.
func Eye[T Elem](n, m, k int) *Array[T] {
	if n < 0 || m < 0 {
		panicf(ErrShape, "Eye: shape (%d, %d): extents must be non-negative", n, m)
	}
	a := Zeros[T](n, m)
	one := fromFloat64[T](1)
	for i := range n {
		if j := i + k; j >= 0 && j < m {
			a.data[i*m+j] = one
		}
	}
	return a
}

// Identity returns the n×n identity matrix, as np.identity(n): Eye(n, n, 0).
func Identity[T Elem](n int) *Array[T] { return Eye[T](n, n, 0) }
