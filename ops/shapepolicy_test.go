package ops_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// TestShapePolicy drives every call that takes a shape, extents, an axis
// or a dimension with a mistake in it, and checks the rule of package
// array's documentation ("Mistakes and failures"): a shape mistake (what
// the arguments' shapes alone rule out) panics with ErrShape or
// ErrOutOfRange, and returns no error, from calls with an error result
// too; what only the data, the layout or a device decides is an error,
// never a panic.
func TestShapePolicy(t *testing.T) {
	// Shapes in NumPy's order; dims of the dst-first ops in the library's.
	f := func(shape ...int) *array.Array[float32] { return array.Zeros[float32](shape...) }
	i64 := func(vals ...int64) *array.Array[int64] { return array.FromSlice(vals) }
	u8 := func(shape ...int) *array.Array[uint8] { return array.Zeros[uint8](shape...) }
	e := func(_ any, err error) error { return err }
	e3 := func(_, _ any, err error) error { return err }
	v := func(fn func()) func() error { return func() error { fn(); return nil } }
	closed := f(2, 3)
	closed.Close()

	panics := []struct {
		name string
		call func() error
	}{
		// package array
		{"array.New negative extent", v(func() { array.New[float32](2, -1) })},
		{"array.NewWithMins count", v(func() { array.NewWithMins[float32]([]int{0}, []int{2, 3}) })},
		{"array.Zeros negative", v(func() { array.Zeros[float32](-2) })},
		{"array.FromSlice length", v(func() { array.FromSlice([]float32{1, 2, 3}, 2, 2) })},
		{"array.FromValues length", v(func() { array.FromValues([]float32{1, 2, 3}, 2, 2) })},
		{"array.FromRows ragged", v(func() { array.FromRows([][]float32{{1, 2}, {3}}) })},
		{"array.Linspace negative num", v(func() { array.Linspace[float32](0, 1, -1) })},
		{"array.Eye negative", v(func() { array.Eye[float32](-1, 2, 0) })},
		{"Reshape count", func() error { return e(f(2, 3).Reshape(4, 2)) }},
		{"Reshape two -1", func() error { return e(f(2, 3).Reshape(-1, -1)) }},
		{"Reshape -1 not inferable", func() error { return e(f(2, 3).Reshape(4, -1)) }},
		{"BroadcastTo mismatch", func() error { return e(f(2, 3).BroadcastTo(2, 4)) }},
		{"BroadcastTo fewer axes", func() error { return e(f(2, 3).BroadcastTo(3)) }},
		{"BroadcastTo negative", func() error { return e(f(3).BroadcastTo(-1, 3)) }},
		{"Index too many", v(func() { f(2, 3).Index(array.All, array.All, array.All) })},
		{"Index out of range", v(func() { f(2, 3).Index(array.I(5)) })},
		{"Squeeze non-1 axis", v(func() { f(2, 3).Squeeze(0) })},
		{"ExpandDims bad axis", v(func() { f(2, 3).ExpandDims(5) })},
		{"Split not dividing", v(func() { f(2, 3).Split(2, -1) })}, // 3 in 2
		{"Split bad axis", v(func() { f(2, 3).Split(1, 4) })},
		{"DimOf bad axis", v(func() { f(2, 3).DimOf(2) })},
		{"Transpose bad dim", v(func() { f(2, 3).Transpose(0, 2) })},
		{"Permute not a permutation", v(func() { f(2, 3).Permute(0, 0) })},
		{"Crop outside", v(func() { f(2, 3).Crop(0, 1, 5) })},
		{"Slice outside", v(func() { f(2, 3).Slice(1, 7) })},
		{"SetMin count", v(func() { f(2, 3).SetMin(1) })},
		{"Like two orders", v(func() { array.Like(f(2), array.KeepOrder, array.COrder) })},
		// package ops: dst-first forms
		{"ops.Add dst shape", func() error { return ops.Binary(f(2, 3), f(2, 3), f(3, 2), ops.OpAdd) }},
		{"ops.Copy dst shape", func() error { return ops.Copy(f(2, 3), f(4)) }},
		{"ops.Sum bad dim", func() error { return ops.Sum(f(2), f(2, 3), -3) }},
		{"ops.Sum dst shape", func() error { return ops.Sum(f(5), f(2, 3), -1) }},
		{"ops.MatMul shapes", func() error { return ops.MatMul(f(2, 2), f(3, 2), f(2, 4)) }},
		{"ops.Sort dst shape", func() error { return ops.Sort(f(3), f(2, 3), -1) }},
		{"ops.CumSum bad axis", func() error { return ops.CumSum(f(2, 3), f(2, 3), 2) }},
		{"ops.Softmax dst shape", func() error { return ops.Softmax(f(3, 2), f(2, 3), -1) }},
		{"ops.Var bad dim", func() error { return ops.Var(f(2), f(2, 3), -4, 0) }},
		{"ops.Where shapes", func() error { return ops.Where(f(2, 3), u8(4), f(2, 3), f(2, 3)) }},
		// package ops: allocating and NumPy forms
		{"ops.New2 not broadcasting", func() error { return e(ops.New2Op(ops.Binary, f(2, 3), f(4), ops.OpAdd)) }},
		{"ops.NewReduce bad axis", func() error { return e(ops.NewReduce(ops.Sum, f(2, 3), 2)) }},
		{"ops.NewAlong bad axis", func() error { return e(ops.NewAlong(ops.Sort, f(2, 3), -3)) }},
		{"ops.NewReduceOp(Var) bad axis", func() error { return e(ops.NewReduceOp(ops.Var, f(2, 3), 2, 0)) }},
		{"ops.MeanFloat bad axis", func() error { return e(ops.MeanFloat(f(2, 3), 2)) }},
		{"ops.NewMatMul shapes", func() error { return e(ops.NewMatMul(f(3, 2), f(3, 4))) }},
		{"ops.Einsum shapes", func() error { return e(ops.Einsum("ij,jk", f(3, 2), f(3, 4))) }},
		{"ops.Einsum spec", func() error { return e(ops.Einsum("ij->k", f(3, 2))) }},
		{"ops.NewWhere shapes", func() error { return e(ops.NewWhere(u8(4), f(2, 3), f(2, 3))) }},
		{"ops.Reshape count", func() error { return e(ops.Reshape(f(2, 3), 4, 2)) }},
		{"ops.BroadcastTo mismatch", func() error { return e(ops.BroadcastTo(f(2, 3), 2, 4)) }},
		{"ops.Concatenate shapes", func() error { return e(ops.Concatenate(0, f(2, 3), f(2, 4))) }},
		{"ops.Concatenate bad axis", func() error { return e(ops.Concatenate(2, f(2, 3), f(2, 3))) }},
		{"ops.Stack shapes", func() error { return e(ops.Stack(0, f(2, 3), f(3, 2))) }},
		{"ops.Stack bad axis", func() error { return e(ops.Stack(3, f(2, 3), f(2, 3))) }},
		{"ops.Index too many", func() error { return e(ops.Index(f(2, 3), array.All, array.All, array.All)) }},
		{"ops.Flip bad axis", func() error { return e(ops.Flip(f(2, 3), 2)) }},
		{"ops.Take bad axis", func() error { return e(ops.Take(f(2, 3), i64(0), 2)) }},
		{"ops.Extract mask shape", func() error { return e(ops.Extract(u8(3, 2), f(2, 3))) }},
		{"ops.PutMask mask shape", func() error { return ops.PutMask(f(2, 3), u8(4), 1) }},
		{"ops.Bincount negative minlength", func() error { return e(ops.Bincount(array.FromSlice([]int32{1}), -1)) }},
		{"ops.Histogram no bins", func() error { return e3(ops.Histogram(f(3), 0)) }},
	}
	for _, tc := range panics {
		err, rec := catch(tc.call)
		re, _ := rec.(error)
		switch {
		case rec == nil && err != nil:
			t.Errorf("%s: returned %v, want a panic (a shape mistake)", tc.name, err)
		case rec == nil:
			t.Errorf("%s: neither panicked nor failed", tc.name)
		case !errors.Is(re, array.ErrShape) && !errors.Is(re, array.ErrOutOfRange):
			t.Errorf("%s: panicked with %v, want an error wrapping array.ErrShape or ErrOutOfRange", tc.name, rec)
		}
	}

	// Failures only the data, the layout or a device decides: errors.
	errs := []struct {
		name string
		call func() error
		want error
	}{
		{"Reshape not a view", func() error { return e(f(2, 3).Transpose(0, 1).Reshape(6)) }, array.ErrNotView},
		{"Reshape closed", func() error { return e(closed.Reshape(6)) }, device.ErrClosed},
		{"BroadcastTo closed", func() error { return e(closed.BroadcastTo(2, 3)) }, device.ErrClosed},
		{"ops.Add closed", func() error { return ops.Binary(closed, closed, closed, ops.OpAdd) }, device.ErrClosed},
		{"ops.Einsum closed", func() error { return e(ops.Einsum("ij->ji", closed)) }, device.ErrClosed},
		{"ops.Copy read-only dst", func() error { b, _ := f(3).BroadcastTo(2, 3); return ops.Copy(b, f(2, 3)) }, array.ErrReadOnly},
		{"ops.Take index value", func() error { return e(ops.Take(f(2, 3), i64(7), 0)) }, array.ErrOutOfRange},
		{"ops.Put index value", func() error { return ops.Put(f(2, 3), i64(9), f(1)) }, array.ErrOutOfRange},
		{"ops.Bincount negative value", func() error { return e(ops.Bincount(array.FromSlice([]int32{-1}), 0)) }, array.ErrOutOfRange},
		{"ops.MaxAll empty", func() error { return e(ops.Value(ops.Max, f(0))) }, array.ErrShape},
		{"ops.NewReduce empty axis", func() error { return e(ops.NewReduce(ops.Max[float32], f(0, 3), 0)) }, array.ErrShape},
	}
	for _, tc := range errs {
		err, rec := catch(tc.call)
		switch {
		case rec != nil:
			t.Errorf("%s: panicked with %v, want an error wrapping %v", tc.name, rec, tc.want)
		case !errors.Is(err, tc.want):
			t.Errorf("%s: returned %v, want an error wrapping %v", tc.name, err, tc.want)
		}
	}
}

// catch runs call, returning its error or what it panicked with.
func catch(call func() error) (err error, rec any) {
	defer func() {
		if r := recover(); r != nil {
			rec = r
			if rec == nil {
				rec = fmt.Errorf("nil panic")
			}
		}
	}()
	return call(), nil
}

// TestDstFirstMessages: the dst-first ops name their dim argument with
// its NumPy axis, and print shapes as NumPy does, like every message.
func TestDstFirstMessages(t *testing.T) {
	f := func(shape ...int) *array.Array[float32] { return array.Zeros[float32](shape...) }
	for _, c := range []struct {
		name string
		call func() error
		want []string
	}{
		{"Sum", func() error { return ops.Sum(f(5), f(2, 3), -1) }, []string{"dimension 0 (axis 1)", "(5,)", "(2, 3)"}},
		{"Sum bad axis", func() error { return ops.Sum(f(2), f(2, 3), -3) }, []string{"axis -3", "(2, 3)"}},
		{"Sort", func() error { return ops.Sort(f(3), f(2, 3), -2) }, []string{"dimension 1 (axis 0)", "(3,)", "(2, 3)"}},
		{"Add", func() error { return ops.Binary(f(2, 3), f(2, 3), f(4, 3), ops.OpAdd) }, []string{"(4, 3)", "(2, 3)", "axis -2"}},
		{"MatMul", func() error { return ops.MatMul(f(2, 2), f(2, 3), f(4, 5)) }, []string{"(2, 3)", "(4, 5)", "([B, ]M, K)"}},
	} {
		_, rec := catch(c.call)
		err, _ := rec.(error)
		if err == nil {
			t.Errorf("%s: no panic", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "[3 2]") || strings.Contains(err.Error(), "(3, 2)") {
			t.Errorf("%s: %q prints a shape in the library's order", c.name, err)
		}
	}
}
