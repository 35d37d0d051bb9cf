package ops

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// ErrUnsupported is wrapped by the error an op returns for a type it does
// not define, such as Sqrt on int32 or Neg on uint8. It is array.ErrType,
// the module's one sentinel for element types.
var ErrUnsupported = array.ErrType

func unsupported(op string, t array.Type, want string) error {
	return fmt.Errorf("%w: ops.%s on %v: want %s", ErrUnsupported, op, t, want)
}

// kind is how an element type computes.
type kind uint8

const (
	kSigned   kind = iota // int8 … int64: Go integer arithmetic, wrapping
	kUnsigned             // uint8 … uint64
	kFloat                // float32, float64
	kHalf                 // Float16, BFloat16: computed in float32
)

func kindOf[T array.Elem]() kind {
	var z T
	switch any(z).(type) {
	case int8, int16, int32, int64:
		return kSigned
	case uint8, uint16, uint32, uint64:
		return kUnsigned
	case float32, float64:
		return kFloat
	}
	return kHalf
}

func sizeOf[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// toF32 converts one Float16 or BFloat16 (as T) to float32.
func toF32[T array.Elem](x T) float32 {
	var z T
	if _, ok := any(z).(array.BFloat16); ok {
		return array.BFloat16(x).Float32()
	}
	return array.Float16(x).Float32()
}

// fromF32 rounds a float32 to T, a Float16 or BFloat16.
func fromF32[T array.Elem](f float32) T {
	var z T
	if _, ok := any(z).(array.BFloat16); ok {
		return T(array.BF16(f))
	}
	return T(array.F16(f))
}

// blk is the block of elements a strided or converting row kernel stages
// through stack buffers.
const blk = 128

// load returns the m elements at base+off, stride apart: the memory itself
// when stride is 1, else a copy in buf.
func load[T any](buf []T, base unsafe.Pointer, off, stride, m int) []T {
	if stride == 1 {
		return unsafe.Slice(ptr[T](base, off), m)
	}
	buf = buf[:m]
	if stride == 0 {
		x := *ptr[T](base, off)
		for i := range buf {
			buf[i] = x
		}
		return buf
	}
	s := span[T](base, off, m, stride)
	for i := range buf {
		buf[i] = s[i*stride]
	}
	return buf
}

// store writes src to the elements at base+off, stride apart.
func store[T any](src []T, base unsafe.Pointer, off, stride int) {
	if stride == 1 {
		copy(unsafe.Slice(ptr[T](base, off), len(src)), src)
		return
	}
	s := span[T](base, off, len(src), stride)
	for i, x := range src {
		s[i*stride] = x
	}
}

// loadF32 converts m half elements (T) at base+off, stride apart, into buf.
func loadF32[T array.Elem](buf []float32, base unsafe.Pointer, off, stride, m int) []float32 {
	buf = buf[:m]
	if stride == 0 {
		x := toF32(*ptr[T](base, off))
		for i := range buf {
			buf[i] = x
		}
		return buf
	}
	s := span[T](base, off, m, stride)
	for i := range buf {
		buf[i] = toF32(s[i*stride])
	}
	return buf
}

// storeF32 rounds src to half elements (T) at base+off, stride apart.
func storeF32[T array.Elem](src []float32, base unsafe.Pointer, off, stride int) {
	s := span[T](base, off, len(src), stride)
	for i, x := range src {
		s[i*stride] = fromF32[T](x)
	}
}

func errOutOfRange(op string, dim int, a shaped) error {
	return fmt.Errorf("%w: ops.%s: dimension %d of a %d-D array (shape %s): dimensions count from the innermost, 0 … %d (NumPy's axis -1 is dimension 0)", array.ErrOutOfRange, op, dim, a.Rank(), shapeOf(a), a.Rank()-1)
}
