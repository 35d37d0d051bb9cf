package engine

import (
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"reflect"
	"runtime"
	"strings"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// tensor's Mapper: Dense.Apply, which gorgonia uses for the unary ops it
// runs as a Go function per element (Sigmoid, Softplus, Log1p, Expm1,
// Sin, Cos, …) when the engine has no interface of their own.
var _ tensor.Mapper = (*Engine)(nil)

// Map applies fn, a func(T) T or func(T) (T, error) for a's element type
// T, to every element of a, with tensor's options (UseUnsafe, WithReuse,
// WithIncr). A function the engine knows has a device form and runs
// there as that op: those in knownMaps (ops_gen.go, generated from ops'
// op table): gorgonia's sigmoid and tanh, and math's (or chewxy/math32's)
// forms of ops' unary ops, such as Sin, Exp and Tanh. Any other Go
// function runs on the host: a's device-newer elements are copied home
// (a counted copy, which the transfer guard refuses with an error
// wrapping device.ErrTransferGuard), fn is applied there, and the result
// is host-newer (uploaded before its next device use).
func (e *Engine) Map(fn any, a tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	defer e.h.leave(e.h.enter())
	d, f, err := mapFns.of(a, "Map")
	if err != nil {
		return nil, err
	}
	return f(e, fn, d, opts)
}

var mapFns = all(mapT[float32], mapT[float64], mapT[int8], mapT[int16], mapT[int32], mapT[int64], mapT[uint8], mapT[uint16], mapT[uint32], mapT[uint64])

// deviceForm is the device op of a known Go function of floats.
func deviceForm[T array.Elem](fn any) (ops.UnaryOp, bool) {
	k := reflect.TypeFor[T]().Kind()
	if k != reflect.Float32 && k != reflect.Float64 {
		return 0, false
	}
	name := pcName(fn)
	if name == "" {
		return 0, false
	}
	for _, m := range knownMaps {
		if name == m.suffix || strings.HasSuffix(name, "/"+m.suffix) {
			return m.op, true
		}
	}
	return 0, false
}

func mapT[T array.Elem](e *Engine, fn any, a *tensor.Dense, opts []tensor.FuncOpt) (tensor.Tensor, error) {
	var apply func(T) (T, error)
	switch f := fn.(type) {
	case func(T) T:
		apply = func(x T) (T, error) { return f(x), nil }
	case func(T) (T, error):
		apply = f
	default:
		return nil, fmt.Errorf("%w: Map of %T over a %v Dense: pass a func(%v) %v or func(%v) (%v, error)", array.ErrType, fn, a.Dtype(), a.Dtype(), a.Dtype(), a.Dtype(), a.Dtype())
	}
	if op, ok := deviceForm[T](fn); ok {
		av, err := input[T](e.h, a)
		if err != nil {
			return nil, err
		}
		return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error { return ops.Unary(dst, av, op) })
	}
	av, err := viewOf[T](e.h, a)
	if err != nil {
		return nil, err
	}
	// Bring a home (counted; refused under the guard) and read it all
	// before writing: the destination may be a itself (UseUnsafe).
	src, err := av.HostReadOnly()
	if err != nil {
		return nil, fmt.Errorf("engine: Map of a Go function (%s) runs on the host and needs the operand's device-newer data home: %w", funcName(fn), err)
	}
	vals := make([]T, 0, av.Len())
	for x := range src.Values() {
		y, err := apply(x)
		if err != nil {
			return nil, err
		}
		vals = append(vals, y)
	}
	return into(e, a, a.Shape(), opts, func(dst *array.Array[T]) error {
		if dst.Device() != nil && dst.DeviceDirty() && guard.OnDevice(dst.Device()) {
			// Part of dst would come home before the write: say so.
			return fmt.Errorf("engine: Map of a Go function (%s) writes its result on the host: %w", funcName(fn), device.ErrTransferGuard)
		}
		h, err := dst.Host()
		if err != nil {
			return err
		}
		i := 0
		for c := range h.All() {
			h.Set(vals[i], c...)
			i++
		}
		return nil
	})
}

// funcName names fn for an error: its symbol, else its type.
func funcName(fn any) string {
	if name := pcName(fn); name != "" {
		return name
	}
	return fmt.Sprintf("%T", fn)
}

// pcName is the symbol of the non-nil function fn (runtime.FuncForPC),
// or "".
func pcName(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	if f := runtime.FuncForPC(v.Pointer()); f != nil {
		return f.Name()
	}
	return ""
}
