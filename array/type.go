package array

import (
	"strconv"
	"unsafe"
)

// Code is Halide's halide_type_code_t.
type Code uint8

// Halide's type codes.
const (
	Int    Code = 0
	UInt   Code = 1
	Float  Code = 2
	Handle Code = 3
	BFloat Code = 4
)

// Type is Halide's halide_type_t: a code, a bit width and a lane count.
type Type struct {
	Code  Code
	Bits  uint8
	Lanes uint16
}

// Bytes is the size of one element.
func (t Type) Bytes() int { return (int(t.Bits) + 7) / 8 * int(t.Lanes) }

func (t Type) String() string { b, _ := t.AppendText(nil); return string(b) }

// AppendText appends String's text to b (encoding.TextAppender), with no
// allocation beyond b's growth: kernel cache keys are built from it on
// every device call.
func (t Type) AppendText(b []byte) ([]byte, error) {
	switch t.Code {
	case Int:
		b = append(b, "int"...)
	case UInt:
		if t.Bits == 1 {
			b = append(b, "bool"...)
		} else {
			b = append(b, "uint"...)
		}
	case Float:
		b = append(b, "float"...)
	case Handle:
		b = append(b, "handle"...)
	case BFloat:
		b = append(b, "bfloat"...)
	default:
		b = append(append(append(b, "code"...), strconv.Itoa(int(t.Code))...), '-')
	}
	if t.Code != UInt || t.Bits != 1 {
		b = strconv.AppendInt(b, int64(t.Bits), 10)
	}
	if t.Lanes > 1 {
		b = strconv.AppendInt(append(b, 'x'), int64(t.Lanes), 10)
	}
	return b, nil
}

// Elem is the set of element types an Array can hold.
type Elem interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | Float16 | BFloat16
}

// TypeOf returns the Halide type of T.
func TypeOf[T Elem]() Type {
	var z T
	switch any(z).(type) {
	case int8, int16, int32, int64:
		return Type{Int, uint8(8 * unsafe.Sizeof(z)), 1}
	case uint8, uint16, uint32, uint64:
		return Type{UInt, uint8(8 * unsafe.Sizeof(z)), 1}
	case float32, float64, Float16:
		return Type{Float, uint8(8 * unsafe.Sizeof(z)), 1}
	case BFloat16:
		return Type{BFloat, 16, 1}
	}
	panic("unreachable")
}
