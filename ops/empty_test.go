package ops

import (
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// TestEmptyDst: an op whose dst is empty computes nothing and moves
// nothing, on the host path too. Found by TestDiff: the host paths took
// the host views of every operand first, so an empty view's Data panicked
// (slice bounds out of range: case 6 of seed 1, Copy into a [2 0 1]
// view), and a device-dirty input that broadcasts into an empty dst was
// copied home (a counted D2H, an error under the guard: case 89, Where).
func TestEmptyDst(t *testing.T) {
	empties := map[string]func() *array.Array[float32]{
		"[2 0]":   func() *array.Array[float32] { return array.New[float32](2, 0) },
		"[0]":     func() *array.Array[float32] { return array.New[float32](0) },
		"[2 0 1]": func() *array.Array[float32] { return array.New[float32](2, 0, 1) },
		"stepped [2 0 1]": func() *array.Array[float32] {
			return array.New[float32](2, 2, 0, 4).Permute(1, 2, 3, 0).Slice(3, 1).Crop(2, 0, 1)
		},
		"crop [2 0 1]": func() *array.Array[float32] {
			return array.New[float32](2, 2, 3, 4).Slice(0, 1).Crop(1, 0, 0).Crop(2, 1, 1)
		},
	}
	ops := []struct {
		name string
		run  func(dst, in *array.Array[float32]) error
	}{
		{"Add", func(dst, in *array.Array[float32]) error { return Binary(dst, in, in, OpAdd) }},
		{"AddScalar", func(dst, in *array.Array[float32]) error { return BinaryScalar(dst, in, 1, OpAdd) }},
		{"Sqrt", func(dst, in *array.Array[float32]) error { return Unary(dst, in, OpSqrt) }},
		{"Copy", func(dst, in *array.Array[float32]) error { return Copy(dst, in) }},
		{"Compare", func(dst, in *array.Array[float32]) error {
			return Compare(array.New[uint8](dst.Extents()...), in, in, LT)
		}},
		{"Where", func(dst, in *array.Array[float32]) error {
			return Where(dst, array.New[uint8](dst.Extents()...), in, in)
		}},
		{"CastWrap", func(dst, in *array.Array[float32]) error {
			return CastWrap(array.New[int16](dst.Extents()...), in)
		}},
	}
	for name, mk := range empties {
		for _, op := range ops {
			for _, dirty := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/dirty=%v", name, op.name, dirty), func(t *testing.T) {
					dst := mk()
					in := array.New[float32](make1(dst.Rank())...) // broadcasts into dst
					var before device.Stats
					d, err := opencl.Default()
					if dirty {
						if err != nil {
							t.Skipf("no OpenCL device: %v", err)
						}
						must(t, On(d, in))
						must(t, BinaryScalar(in, in, 1, OpMul))
						if !in.DeviceDirty() {
							t.Fatal("set-up: input not device-dirty")
						}
						// the host-only dst keeps the op on the host
						dst = array.FromSlice([]float32{}, dst.Extents()...)
						defer guard.Set(guard.Set(true))
						before = d.Stats()
					}
					must(t, op.run(dst, in))
					if dirty {
						if s := d.Stats().Sub(before); s.D2HCalls+s.H2DCalls != 0 {
							t.Fatalf("an op on an empty dst moved data: %v", s)
						}
					}
				})
			}
		}
	}
	t.Run("Sum", func(t *testing.T) { must(t, Sum(array.New[float32](2, 0), array.New[float32](2, 3, 0), -2)) })
	t.Run("MatMul", func(t *testing.T) {
		must(t, MatMul(array.New[float32](0, 3), array.New[float32](4, 3), array.New[float32](0, 4)))
	})
}

func make1(n int) []int {
	e := make([]int, n)
	for i := range e {
		e[i] = 1
	}
	return e
}

// TestReduceAllEmpty: the *All reductions over no elements give the
// value over no elements. Found by TestDiff (seed 2, cases 264 and 936):
// ProdAll of an empty Array was 0, not 1, since no worker ran to start the
// product.
func TestReduceAllEmpty(t *testing.T) {
	t.Run("int16", func(t *testing.T) { testReduceAllEmpty[int16](t) })
	t.Run("uint8", func(t *testing.T) { testReduceAllEmpty[uint8](t) })
	t.Run("float32", func(t *testing.T) { testReduceAllEmpty[float32](t) })
	t.Run("float16", func(t *testing.T) { testReduceAllEmpty[array.Float16](t) })
}

func testReduceAllEmpty[T array.Elem](t *testing.T) {
	for name, a := range map[string]*array.Array[T]{
		"[0]":               array.New[T](0),
		"[3 0]":             array.New[T](3, 0),
		"stepped [0 8 5 3]": array.New[T](2, 0, 8, 5, 3).Permute(1, 2, 3, 4, 0).Slice(4, 1),
	} {
		p, err := Value(Prod, a)
		must(t, err)
		s, err := Value(Sum, a)
		must(t, err)
		if toF64(p) != 1 || toF64(s) != 0 {
			t.Errorf("%s: ProdAll %v (want 1), SumAll %v (want 0)", name, toF64(p), toF64(s))
		}
	}
}

// TestMatMulEmptyK: a product over an empty inner dimension is zero. Found
// by TestDiff under -race (case 699 of seed 1: K=0, a [0 1 1], b [13 0 3],
// dst [13 1 3]): the host kernel offset the nil base of the empty a and b
// by the batch stride, which checkptr rejects ("pointer arithmetic
// computed bad pointer value").
func TestMatMulEmptyK(t *testing.T) {
	dst := array.New[float32](13, 1, 3)
	h, _ := dst.Host()
	for i := range h.Data() {
		h.Data()[i] = 7
	}
	a := array.New[float32](0, 1, 1)
	b := array.New[float32](15, 0, 3).Crop(0, 2, 13)
	must(t, MatMul(dst, a, b))
	v, _ := dst.HostReadOnly()
	for x := range v.Values() {
		if x != 0 {
			t.Fatalf("MatMul with K=0 left %v, want 0", x)
		}
	}
}
