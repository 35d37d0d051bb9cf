package engine

import (
	"fmt"
	"reflect"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
)

// table holds one instantiation of a generic function per element type,
// so a tensor Dtype known only at run time picks its typed code: the
// module's one converter, array.Generic, keyed through elemOf.
type table[F any] struct{ g array.Generic[F] }

// all lists the instantiations for tensor's ten sized types.
func all[F any](f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 F) table[F] {
	var none F
	return table[F]{array.Instances(i8, i16, i32, i64, u8, u16, u32, u64, none, none, f32, f64)}
}

// floats lists the float instantiations only.
func floats[F any](f32, f64 F) table[F] {
	var none F
	return table[F]{array.Instances(none, none, none, none, none, none, none, none, none, none, f32, f64)}
}

// elemOf maps Go element types to Array element types.
var elemOf = map[reflect.Type]array.Type{
	reflect.TypeFor[int8](): array.TypeOf[int8](), reflect.TypeFor[int16](): array.TypeOf[int16](),
	reflect.TypeFor[int32](): array.TypeOf[int32](), reflect.TypeFor[int64](): array.TypeOf[int64](),
	reflect.TypeFor[uint8](): array.TypeOf[uint8](), reflect.TypeFor[uint16](): array.TypeOf[uint16](),
	reflect.TypeFor[uint32](): array.TypeOf[uint32](), reflect.TypeFor[uint64](): array.TypeOf[uint64](),
	reflect.TypeFor[float32](): array.TypeOf[float32](), reflect.TypeFor[float64](): array.TypeOf[float64](),
}

// get returns the function for t, or an error naming t and the operation.
func (tb table[F]) get(t reflect.Type, what string) (F, error) {
	if at, ok := elemOf[t]; ok {
		if f, err := tb.g.For(at); err == nil {
			return f, nil
		}
	}
	var zero F
	return zero, fmt.Errorf("%w: %s of %v on the device engine: use float32, float64 or a sized integer type", array.ErrType, what, t)
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
