package ops

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
)

// TestDeviceBroadcastOneElement: an input that broadcasts from one element
// (a 0-D Array, or extent 1 in every dimension) to a dense dst. The
// vectorized device kernels once read such an operand as contiguous
// (Mul([1 2 3 4], [1]) gave [1 0 0 0] on PoCL; 2048² operands crashed).
func TestDeviceBroadcastOneElement(t *testing.T) {
	d := testDev(t)
	t.Run("float32", func(t *testing.T) { testBroadcastOne[float32](t, d) })
	t.Run("float64", func(t *testing.T) { testBroadcastOne[float64](t, d) })
	t.Run("int32", func(t *testing.T) { testBroadcastOne[int32](t, d) })
	t.Run("uint8", func(t *testing.T) { testBroadcastOne[uint8](t, d) })
	t.Run("int64", func(t *testing.T) { testBroadcastOne[int64](t, d) })
}

func testBroadcastOne[T array.Elem](t *testing.T, d *opencl.Device) {
	if array.TypeOf[T]().Bits == 64 && array.TypeOf[T]().Code == array.Float && !stateOf(d).fp64 {
		t.Skip("no cl_khr_fp64")
	}
	ones := map[string]func() *array.Array[T]{
		"0-D":   func() *array.Array[T] { return array.Scalar[T](3) },
		"[1]":   func() *array.Array[T] { return oneOf[T](1) },
		"[1 1]": func() *array.Array[T] { return oneOf[T](1, 1) },
		"crop":  func() *array.Array[T] { return cropOne[T]() },
	}
	for _, ext := range [][]int{{4}, {37}, {64, 33}} {
		for name, mk := range ones {
			for _, op := range []string{"Add", "Sub", "Mul", "Div", "Copy", "Add'", "Sub'", "Mul'", "Div'"} {
				t.Run(fmt.Sprintf("%v/%s/%s", ext, name, op), func(t *testing.T) {
					a := array.New[T](ext...)
					h, _ := a.Host()
					i := 0
					for p := range h.All() {
						h.Set(T(1+i%7), p...)
						i++
					}
					one, dst := mk(), array.New[T](ext...)
					must(t, On(d, a, one, dst))
					x, y := a, one
					if op[len(op)-1] == '\'' { // the one-element operand first
						x, y = one, a
					}
					var err error
					switch op[:3] {
					case "Add":
						err = Binary(dst, x, y, OpAdd)
					case "Sub":
						err = Binary(dst, x, y, OpSub)
					case "Mul":
						err = Binary(dst, x, y, OpMul)
					case "Div":
						err = Binary(dst, x, y, OpDiv)
					case "Cop":
						err = Copy(dst, one)
					}
					must(t, err)
					if !dst.DeviceDirty() {
						t.Fatal("did not run on the device")
					}
					av, _ := a.HostReadOnly()
					ov, _ := one.HostReadOnly()
					s := toF64(ov.Data()[0])
					got, _ := dst.HostReadOnly()
					bad := 0
					for p, v := range got.All() {
						u := toF64(av.At(p...))
						xx, yy := u, s
						if op[len(op)-1] == '\'' {
							xx, yy = s, u
						}
						var w float64
						switch op[:3] {
						case "Add":
							w = xx + yy
						case "Sub":
							w = xx - yy
						case "Mul":
							w = xx * yy
						case "Div":
							w = xx / yy
							if kindOf[T]() != kFloat {
								w = float64(int64(w))
							}
						case "Cop":
							w = s
						}
						if want := refElem[T](w); !closeTo(v, want, devTol[T]()) && bad < 3 {
							bad++
							t.Errorf("at %v: got %v, want %v", p, v, want)
						}
					}
				})
			}
		}
	}
}

// oneOf is an Array of the given all-1 extents holding 3.
func oneOf[T array.Elem](ext ...int) *array.Array[T] {
	a := array.New[T](ext...)
	h, _ := a.Host()
	h.Data()[0] = 3
	return a
}

// cropOne is one element, cropped out of the middle of a larger Array
// (a non-zero offset in the root buffer).
func cropOne[T array.Elem]() *array.Array[T] {
	a := array.New[T](9, 5)
	h, _ := a.Host()
	for i := range h.Data() {
		h.Data()[i] = 100
	}
	h.Set(3, 5, 2)
	return a.Crop(0, 5, 1).Crop(1, 2, 1)
}

// refElem rounds a float64 reference to T: integers wrap (through int64),
// floats round to nearest.
func refElem[T array.Elem](w float64) T {
	if k := kindOf[T](); k == kFloat || k == kHalf {
		return fromF64[T](w)
	}
	return T(int64(w))
}
