package array

import (
	"fmt"
	"reflect"
)

// Generic is one generic function instantiated for every element type and
// looked up by a run-time Type: the one place where run-time element types
// (npy's descr, tensor's Dtype, Halide's halide_type_t) reach generic
// code. Build it once, at package level:
//
//	var readers = array.Instances(read[int8], read[int16], read[int32], read[int64],
//		read[uint8], read[uint16], read[uint32], read[uint64],
//		read[Float16], read[BFloat16], read[float32], read[float64])
//
// and call readers.For(t). A nil instance (a caller without Float16, say)
// is a type the caller does not support.
type Generic[F any] struct {
	fns [nElem]F
	has [nElem]bool
}

const nElem = 12

// Instances makes a Generic from f's instantiations for every Elem, in
// this order.
func Instances[F any](i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64 F) Generic[F] {
	var g Generic[F]
	for i, f := range [nElem]F{i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64} {
		g.fns[i], g.has[i] = f, any(f) != nil && !isNilFunc(f)
	}
	return g
}

// isNilFunc reports whether f is a nil func value: any(f) of a nil func
// typed F is not a nil interface.
func isNilFunc(f any) bool {
	v := reflect.ValueOf(f)
	return v.Kind() == reflect.Func && v.IsNil()
}

// For returns the instance for t, or an error wrapping ErrType that names
// t and the types there are.
func (g Generic[F]) For(t Type) (F, error) {
	if i, ok := elemIndex(t); ok && g.has[i] {
		return g.fns[i], nil
	}
	var zero F
	return zero, fmt.Errorf("%w: %s (Arrays hold int8…int64, uint8…uint64, float16, bfloat16, float32, float64 with one lane)", ErrType, t)
}

// elemIndex is t's position in Instances' order.
func elemIndex(t Type) (int, bool) {
	if t.Lanes != 1 {
		return 0, false
	}
	// The integer widths 8…64 are 0…3 (no map: For is on the engine's
	// per-op path).
	w, pow2 := 0, t.Bits >= 8 && t.Bits <= 64 && t.Bits&(t.Bits-1) == 0
	for b := t.Bits; b > 8; b >>= 1 {
		w++
	}
	switch t.Code {
	case Int:
		return w, pow2
	case UInt:
		return 4 + w, pow2
	case Float:
		switch t.Bits {
		case 16:
			return 8, true
		case 32:
			return 10, true
		case 64:
			return 11, true
		}
	case BFloat:
		return 9, t.Bits == 16
	}
	return 0, false
}

var makers = Instances(newOf[int8], newOf[int16], newOf[int32], newOf[int64],
	newOf[uint8], newOf[uint16], newOf[uint32], newOf[uint64],
	newOf[Float16], newOf[BFloat16], newOf[float32], newOf[float64])

func newOf[T Elem](mins, extents []int) Buffer { return NewWithMins[T](mins, extents) }

// NewOf is NewWithMins for an element type known at run time: a new dense,
// device-aware *Array[T] (as a Buffer) for t, or an error wrapping ErrType
// when no Elem is t.
func NewOf(t Type, mins, extents []int) (Buffer, error) {
	f, err := makers.For(t)
	if err != nil {
		return nil, err
	}
	return f(mins, extents), nil
}

// Box returns the mins and extents of dims (a region, such as a Bounds
// result), for NewWithMins and NewOf: array.NewWithMins[T](array.Box(r)).
func Box(dims []Dim) (mins, extents []int) {
	mins, extents = make([]int, len(dims)), make([]int, len(dims))
	for i, d := range dims {
		mins[i], extents[i] = d.Min, d.Extent
	}
	return mins, extents
}
