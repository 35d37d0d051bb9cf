package array

import (
	"fmt"
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

func (t Type) String() string {
	var s string
	switch t.Code {
	case Int:
		s = "int"
	case UInt:
		s = "uint"
	case Float:
		s = "float"
	case Handle:
		s = "handle"
	case BFloat:
		s = "bfloat"
	default:
		s = fmt.Sprintf("code%d-", t.Code)
	}
	if t.Code == UInt && t.Bits == 1 {
		s = "bool"
	} else {
		s += fmt.Sprint(t.Bits)
	}
	if t.Lanes > 1 {
		s += fmt.Sprintf("x%d", t.Lanes)
	}
	return s
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
