package engine

import (
	"fmt"
	"github.com/resident-go/resident/array"
	"reflect"

	"gorgonia.org/tensor"
)

// table holds one instantiation of a generic function per element type,
// so a tensor Dtype known only at run time picks its typed code.
type table[F any] map[reflect.Type]F

// ints adds the integer instantiations to floats'.
func all[F any](f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 F) table[F] {
	t := floats(f32, f64)
	for _, e := range []struct {
		v any
		f F
	}{{int8(0), i8}, {int16(0), i16}, {int32(0), i32}, {int64(0), i64}, {uint8(0), u8}, {uint16(0), u16}, {uint32(0), u32}, {uint64(0), u64}} {
		t[reflect.TypeOf(e.v)] = e.f
	}
	return t
}

func floats[F any](f32, f64 F) table[F] {
	return table[F]{reflect.TypeFor[float32](): f32, reflect.TypeFor[float64](): f64}
}

// get returns the function for t, or an error naming t and the operation.
func (tb table[F]) get(t reflect.Type, what string) (F, error) {
	f, ok := tb[t]
	if !ok {
		var zero F
		return zero, fmt.Errorf("%w: %s of %v on the device engine: use float32, float64 or a sized integer type", array.ErrType, what, t)
	}
	return f, nil
}

// of returns t as a *tensor.Dense and the function for its element type,
// or the error of dense or get.
func (tb table[F]) of(t tensor.Tensor, what string) (*tensor.Dense, F, error) {
	d, err := dense(t)
	if err != nil {
		var zero F
		return nil, zero, err
	}
	f, err := tb.get(d.Dtype().Type, what)
	return d, f, err
}

// dense returns t as a *tensor.Dense.
func dense(t tensor.Tensor) (*tensor.Dense, error) {
	d, ok := t.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("%w: the device engine takes *tensor.Dense, not %T", array.ErrLayout, t)
	}
	return d, nil
}
