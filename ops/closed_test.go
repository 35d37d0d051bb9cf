package ops_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// closedEnv is the operands of closedCases: 4×4 float32 dst, a and b, a
// 0-D float32 sdst, a 4-element float32 rdst and int64 idst (reductions along dimension 0),
// a uint8 mask and an int32 cast destination. Each is a root or, for the
// view runs, a view of one (Translate: same shape, another min).
type closedEnv struct {
	d          device.Device
	dst, a, b  *array.Array[float32]
	rdst       *array.Array[float32]
	sdst       *array.Array[float32] // 0-D: EvalSum
	idst       *array.Array[int64]
	mask       *array.Array[uint8]
	bdst       *array.Array[uint8] // 4 elements: Any and All along dimension 0
	cdst       *array.Array[int32]
	roots      map[string]array.Buffer // by field name
	rootsClose map[string]func()
}

// opClosedCases is a case per elementwise op and family function,
// named Family/Op (Unary/Exp, Binary/Add, BinaryScalar/Add): the ops are
// rows of ops/internal/optable's table, so a new op needs no line here.
func opClosedCases() []closedCase {
	var cs []closedCase
	for op := ops.UnaryOp(0); !strings.HasPrefix(op.String(), "UnaryOp("); op++ {
		cs = append(cs, closedCase{"Unary/" + op.String(), []string{"dst", "a"}, func(e *closedEnv) error { return ops.Unary(e.dst, e.a, op) }})
	}
	for op := ops.BinaryOp(0); !strings.HasPrefix(op.String(), "BinaryOp("); op++ {
		cs = append(cs,
			closedCase{"Binary/" + op.String(), []string{"dst", "a", "b"}, func(e *closedEnv) error { return ops.Binary(e.dst, e.a, e.b, op) }},
			closedCase{"BinaryScalar/" + op.String(), []string{"dst", "a"}, func(e *closedEnv) error { return ops.BinaryScalar(e.dst, e.a, 2, op) }})
	}
	return cs
}

// closedCase calls one exported ops function on the operands named in ops
// (closedEnv's fields).
type closedCase struct {
	name string
	ops  []string
	fn   func(e *closedEnv) error
}

var closedCases = append(opClosedCases(), []closedCase{
	{"ScalarBinary", []string{"dst", "b"}, func(e *closedEnv) error { return ops.ScalarBinary(e.dst, 2, e.b, ops.OpDiv) }},
	{"Unary", []string{"dst", "a"}, func(e *closedEnv) error { return ops.Unary(e.dst, e.a, ops.OpAbs) }},
	{"Clip", []string{"dst", "a"}, func(e *closedEnv) error { return ops.Clip(e.dst, e.a, -1, 1) }},
	{"IsNaN", []string{"mask", "a"}, func(e *closedEnv) error { return ops.IsNaN(e.mask, e.a) }},
	{"IsInf", []string{"mask", "a"}, func(e *closedEnv) error { return ops.IsInf(e.mask, e.a) }},
	{"IsFinite", []string{"mask", "a"}, func(e *closedEnv) error { return ops.IsFinite(e.mask, e.a) }},
	{"Compare", []string{"mask", "a", "b"}, func(e *closedEnv) error { return ops.Compare(e.mask, e.a, e.b, ops.LT) }},
	{"CompareScalar", []string{"mask", "a"}, func(e *closedEnv) error { return ops.CompareScalar(e.mask, e.a, 1, ops.GE) }},
	{"Where", []string{"dst", "mask", "a", "b"}, func(e *closedEnv) error { return ops.Where(e.dst, e.mask, e.a, e.b) }},
	{"Copy", []string{"dst", "a"}, func(e *closedEnv) error { return ops.Copy(e.dst, e.a) }},
	{"Copy", // of a view made after Close
		[]string{"dst", "a"}, func(e *closedEnv) error { return ops.Copy(e.dst, e.a.Transpose(0, 1)) }},
	{"Fill", []string{"dst"}, func(e *closedEnv) error { return ops.Fill(e.dst, 1) }},
	{"Iota", []string{"dst"}, func(e *closedEnv) error { return ops.Iota(e.dst, -2) }},
	{"RandUniform", []string{"dst"}, func(e *closedEnv) error { return ops.RandUniform(e.dst, 1, 2) }},
	{"RandNormal", []string{"dst"}, func(e *closedEnv) error { return ops.RandNormal(e.dst, 1, 2) }},
	{"CastWrap", []string{"cdst", "a"}, func(e *closedEnv) error { return ops.CastWrap(e.cdst, e.a) }},
	{"CastSaturate", []string{"cdst", "a"}, func(e *closedEnv) error { return ops.CastSaturate(e.cdst, e.a) }},
	{"MatMul", []string{"dst", "a", "b"}, func(e *closedEnv) error { return ops.MatMul(e.dst, e.a, e.b) }},
	{"MatMulWith", []string{"dst", "a", "b"}, func(e *closedEnv) error { return ops.MatMulWith(e.dst, e.a, e.b, device.PrecisionTF32) }},
	{"Sum", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Sum(e.rdst, e.a, -1) }},
	{"Prod", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Prod(e.rdst, e.a, -1) }},
	{"Min", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Min(e.rdst, e.a, -1) }},
	{"Max", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Max(e.rdst, e.a, -1) }},
	{"Mean", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Mean(e.rdst, e.a, -1) }},
	{"ArgMin", []string{"idst", "a"}, func(e *closedEnv) error { return ops.ArgMin(e.idst, e.a, -1) }},
	{"ArgMax", []string{"idst", "a"}, func(e *closedEnv) error { return ops.ArgMax(e.idst, e.a, -1) }},
	{"Value/Sum", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.Sum, e.a); return err }},
	{"Value/Prod", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.Prod, e.a); return err }},
	{"Value/Min", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.Min, e.a); return err }},
	{"Value/Max", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.Max, e.a); return err }},
	{"Value/Mean", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.Mean, e.a); return err }},
	{"Sum/AllDims", []string{"sdst", "a"}, func(e *closedEnv) error { return ops.Sum(e.sdst, e.a, ops.AllDims) }},
	{"Std/AllDims", []string{"sdst", "a"}, func(e *closedEnv) error { return ops.Std(e.sdst, e.a, ops.AllDims, 1) }},
	{"ArgMinAll", []string{"a"}, func(e *closedEnv) error { _, err := ops.ArgMinAll(e.a); return err }},
	{"ArgMaxAll", []string{"a"}, func(e *closedEnv) error { _, err := ops.ArgMaxAll(e.a); return err }},
	{"New1", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.New1(ops.Copy[float32], e.a)) }},
	{"New1Op", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.New1Op(ops.Unary, e.a, ops.OpNeg)) }},
	{"New2", []string{"a", "b"}, func(e *closedEnv) error { return closeRes(ops.New2(ops.MatMul[float32], e.a, e.b)) }},
	{"New2Op", []string{"a", "b"}, func(e *closedEnv) error { return closeRes(ops.New2Op(ops.Compare, e.a, e.b, ops.LT)) }},
	{"NewScalarOp", []string{"a"}, func(e *closedEnv) error {
		return closeRes(ops.NewScalarOp(ops.BinaryScalar, e.a, 2, ops.OpMul))
	}},
	{"NewWhere", []string{"mask", "a", "b"}, func(e *closedEnv) error { return closeRes(ops.NewWhere(e.mask, e.a, e.b)) }},
	{"NewReduce", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.NewReduce(ops.Sum, e.a, -1)) }},
	{"NewMatMul", []string{"a", "b"}, func(e *closedEnv) error { return closeRes(ops.NewMatMul(e.a, e.b)) }},
	{"Einsum", []string{"a", "b"}, func(e *closedEnv) error { return closeRes(ops.Einsum("ij,jk->ik", e.a, e.b)) }},
	{"Arange", nil, func(e *closedEnv) error { return closeRes(ops.Arange[float32](4)) }}, // takes no Array
	{"Reshape", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.Reshape(e.a, -1)) }},
	{"Concatenate", []string{"a", "b"}, func(e *closedEnv) error { return closeRes(ops.Concatenate(0, e.a, e.b)) }},
	{"Stack", []string{"a", "b"}, func(e *closedEnv) error { return closeRes(ops.Stack(0, e.a, e.b)) }},
	{"Index", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.Index(e.a, array.All.Step(2))) }},
	{"Flip", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.Flip(e.a)) }},
	{"BroadcastTo", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.BroadcastTo(e.a, 2, 4, 4)) }},
	// along a dimension (stats.go, scan.go, sort.go, softmax.go)
	{"Var", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Var(e.rdst, e.a, -1, 1) }},
	{"Std", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Std(e.rdst, e.a, -1, 0) }},
	{"Norm", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.Norm(e.rdst, e.a, -1, ops.NormMax) }},
	{"LogSumExp", []string{"rdst", "a"}, func(e *closedEnv) error { return ops.LogSumExp(e.rdst, e.a, -1) }},
	{"CountNonzero", []string{"idst", "a"}, func(e *closedEnv) error { return ops.CountNonzero(e.idst, e.a, -1) }},
	{"Any", []string{"bdst", "a"}, func(e *closedEnv) error { return ops.Any(e.bdst, e.a, -1) }},
	{"All", []string{"bdst", "a"}, func(e *closedEnv) error { return ops.All(e.bdst, e.a, -1) }},
	{"ValueOp/Var", []string{"a"}, func(e *closedEnv) error { _, err := ops.ValueOp(ops.Var, e.a, 0); return err }},
	{"ValueOp/Std", []string{"a"}, func(e *closedEnv) error { _, err := ops.ValueOp(ops.Std, e.a, 0); return err }},
	{"ValueOp/Norm", []string{"a"}, func(e *closedEnv) error { _, err := ops.ValueOp(ops.Norm, e.a, ops.NormL2); return err }},
	{"Value/LogSumExp", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.LogSumExp, e.a); return err }},
	{"Value/CountNonzero", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.CountNonzero, e.a); return err }},
	{"Value/Any", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.Any, e.a); return err }},
	{"Value/All", []string{"a"}, func(e *closedEnv) error { _, err := ops.Value(ops.All, e.a); return err }},
	{"CumSum", []string{"dst", "a"}, func(e *closedEnv) error { return ops.CumSum(e.dst, e.a, -2) }},
	{"CumProd", []string{"dst", "a"}, func(e *closedEnv) error { return ops.CumProd(e.dst, e.a, -1) }},
	{"Softmax", []string{"dst", "a"}, func(e *closedEnv) error { return ops.Softmax(e.dst, e.a, -1) }},
	{"Sort", []string{"dst", "a"}, func(e *closedEnv) error { return ops.Sort(e.dst, e.a, -2) }},
	// the convolution family over the 4×4 operands as NCHW images (1, 1, 4, 4),
	// Im2Col's rows (1, 4, 4, 1) with a 1×1 window
	{"Im2Col", []string{"dst", "a"}, func(e *closedEnv) error {
		return ops.Im2Col(rows4(e.dst), nchw4(e.a), ops.Conv2D{Kernel: [2]int{1, 1}})
	}},
	{"Col2Im", []string{"dst", "a"}, func(e *closedEnv) error {
		return ops.Col2Im(nchw4(e.dst), rows4(e.a), ops.Conv2D{Kernel: [2]int{1, 1}})
	}},
	{"MaxPool2D", []string{"dst", "a"}, func(e *closedEnv) error { // cdst: the indices
		return ops.MaxPool2D(nchw4(e.dst), nchw4(e.cdst), nchw4(e.a), ops.Pool2D{Kernel: [2]int{1, 1}})
	}},
	{"MaxPool2DBackward", []string{"dst", "a", "cdst"}, func(e *closedEnv) error {
		return ops.MaxPool2DBackward(nchw4(e.dst), nchw4(e.a), nchw4(e.cdst), ops.Pool2D{Kernel: [2]int{1, 1}})
	}},
	{"ArgSort", []string{"idst", "rdst"}, func(e *closedEnv) error { return ops.ArgSort(e.idst, e.rdst, -1) }},
	{"TopK", []string{"dst", "a"}, func(e *closedEnv) error { return ops.TopK(e.dst, nil, e.a, -1) }},
	{"Eval", []string{"dst", "a", "b"}, func(e *closedEnv) error { return ops.Eval(e.dst, ops.In(e.a).Binary(ops.OpAdd, ops.In(e.b)).Scale(2)) }},
	{"EvalSum", []string{"sdst", "a", "b"}, func(e *closedEnv) error { return ops.EvalSum(e.sdst, ops.In(e.a).Binary(ops.OpMul, ops.In(e.b))) }},
	{"EvalSumAll", []string{"a", "b"}, func(e *closedEnv) error {
		_, err := ops.EvalSumAll(ops.AsType[float64](ops.In(e.a).Binary(ops.OpSub, ops.In(e.b))))
		return err
	}},
	{"EvalMinAll", []string{"a"}, func(e *closedEnv) error { _, err := ops.EvalMinAll(ops.In(e.a).Unary(ops.OpExp)); return err }},
	{"EvalMaxAll", []string{"a"}, func(e *closedEnv) error { _, err := ops.EvalMaxAll(ops.In(e.a)); return err }},
	// NumPy's indexing, statistics and generators (indexing.go, unique.go,
	// meshgrid.go, alloc_along.go; the Generator's methods beside them)
	{"Take", []string{"a", "idst"}, func(e *closedEnv) error { return closeRes(ops.Take(e.a, e.idst, 0)) }},
	{"Put", []string{"dst", "idst", "a"}, func(e *closedEnv) error { return ops.Put(e.dst, e.idst, e.a) }},
	{"Extract", []string{"mask", "a"}, func(e *closedEnv) error { return closeRes(ops.Extract(e.mask, e.a)) }},
	{"PutMask", []string{"dst", "mask"}, func(e *closedEnv) error { return ops.PutMask(e.dst, e.mask, 1) }},
	{"Meshgrid", []string{"rdst"}, func(e *closedEnv) error { _, err := ops.Meshgrid(e.rdst, e.rdst); return err }},
	{"MeshgridIJ", []string{"rdst"}, func(e *closedEnv) error { _, err := ops.MeshgridIJ(e.rdst); return err }},
	{"Unique", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.Unique(e.a)) }},
	{"UniqueCounts", []string{"a"}, func(e *closedEnv) error { _, _, err := ops.UniqueCounts(e.a); return err }},
	{"Bincount", []string{"idst"}, func(e *closedEnv) error { return closeRes(ops.Bincount(e.idst, 0)) }},
	{"BincountWeights", []string{"idst", "rdst"}, func(e *closedEnv) error { return closeRes(ops.BincountWeights(e.idst, e.rdst, 0)) }},
	{"Histogram", []string{"a"}, func(e *closedEnv) error { _, _, err := ops.Histogram(e.a, 3); return err }},
	{"HistogramRange", []string{"a"}, func(e *closedEnv) error { _, _, err := ops.HistogramRange(e.a, 3, 0, 1); return err }},
	{"NewAlong", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.NewAlong(ops.Sort, e.a, 0)) }},
	{"NewReduceOp/Var", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.NewReduceOp(ops.Var, e.a, 0, 1)) }},
	{"NewReduceOp/Std", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.NewReduceOp(ops.Std, e.a, -1, 0)) }},
	{"MeanAllFloat", []string{"a"}, func(e *closedEnv) error { _, err := ops.MeanAllFloat(e.a); return err }},
	{"MeanFloat", []string{"a"}, func(e *closedEnv) error { return closeRes(ops.MeanFloat(e.a, 0)) }},
	{"On", []string{"a", "b"}, func(e *closedEnv) error { return ops.On(e.d, e.a, e.b) }},
	{"Clone", []string{"a"}, func(e *closedEnv) error {
		c, err := ops.Clone(e.d, e.a)
		if c != nil {
			c.Close()
		}
		return err
	}},
}...)

// closeRes closes an allocating form's result, returning its error.
func closeRes[T array.Elem](r *array.Array[T], err error) error {
	if r != nil {
		r.Close()
	}
	return err
}

// newClosedEnv makes the operands with extents ext (4×4 for the closed
// runs), each allocated on d and device-dirty when d is not nil, as views
// when view is set.
func newClosedEnv(t *testing.T, d device.Device, n int, view bool) *closedEnv {
	e := &closedEnv{d: d, roots: map[string]array.Buffer{}, rootsClose: map[string]func(){}}
	e.dst = closedOperand(t, e, "dst", array.New[float32](n, n), view)
	e.a = closedOperand(t, e, "a", array.New[float32](n, n), view)
	e.b = closedOperand(t, e, "b", array.New[float32](n, n), view)
	e.rdst = closedOperand(t, e, "rdst", array.New[float32](n), view)
	e.sdst = closedOperand(t, e, "sdst", array.New[float32](), view)
	e.idst = closedOperand(t, e, "idst", array.New[int64](n), view)
	e.mask = closedOperand(t, e, "mask", array.New[uint8](n, n), view)
	e.bdst = closedOperand(t, e, "bdst", array.New[uint8](n), view)
	e.cdst = closedOperand(t, e, "cdst", array.New[int32](n, n), view)
	return e
}

func closedOperand[T array.Elem](t *testing.T, e *closedEnv, name string, r *array.Array[T], view bool) *array.Array[T] {
	t.Cleanup(func() { r.Close() })
	e.roots[name], e.rootsClose[name] = r, func() { r.Close() }
	if e.d != nil {
		if err := r.CopyToDevice(e.d); err != nil {
			t.Fatal(err)
		}
		r.SetDeviceDirty(true)
	}
	if view && r.Rank() == 0 {
		v, err := r.View(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if view {
		return r.Translate(0, 1)
	}
	return r
}

// TestClosedOperands: every exported ops function that returns an error,
// given an operand whose root is closed (the root itself or a view of
// it; on the host and with the other operands resident on a computing
// device), returns an error wrapping device.ErrClosed (and
// array.ErrClosed), does not panic, and neither launches nor moves
// anything. The table is checked against the package's source: a new
// exported function with an error result must join it.
func TestClosedOperands(t *testing.T) {
	for _, onDev := range []bool{false, true} {
		for _, view := range []bool{false, true} {
			for _, c := range closedCases {
				for _, closed := range c.ops {
					name := c.name + "/" + closed
					if view {
						name += "/view"
					}
					if onDev {
						name += "/sim"
					}
					t.Run(name, func(t *testing.T) {
						var d *sim.Device
						var dd device.Device
						if onDev {
							d = sim.NewCompute("gpu", 0)
							defer d.Close()
							dd = d
						} else if c.name == "On" || c.name == "Clone" {
							d = sim.NewCompute("gpu", 0)
							defer d.Close()
						}
						e := newClosedEnv(t, dd, 4, view)
						if dd == nil && d != nil {
							e.d = d
						}
						e.rootsClose[closed]()
						changed, err := callCounted(t, d, "", func() error { return c.fn(e) })
						if !errors.Is(err, device.ErrClosed) || !errors.Is(err, array.ErrClosed) {
							t.Fatalf("got %v, want an error wrapping device.ErrClosed", err)
						}
						if !strings.HasPrefix(err.Error(), "ops.") {
							t.Errorf("%v: want the op's name first", err)
						}
						if changed != "" {
							t.Fatalf("moved or ran: %s", changed)
						}
						if onDev {
							for n, r := range e.roots {
								if n != closed && !r.Raw().DeviceDirty() {
									t.Errorf("%s: no longer device-dirty", n)
								}
							}
						}
					})
				}
			}
		}
	}
}

// nchw4 is a 4×4 operand as one image of one channel, (1, 1, 4, 4): a
// view; rows4 as Im2Col's rows of a 1×1 window, (1, 4, 4, 1). A closed
// operand stays as it is (a view of it would panic), and the op's closed
// check comes before its shape check.
func nchw4[T array.Elem](a *array.Array[T]) *array.Array[T] {
	if a.Closed() {
		return a
	}
	return a.ExpandDims(0).ExpandDims(0)
}

func rows4[T array.Elem](a *array.Array[T]) *array.Array[T] {
	if a.Closed() {
		return a
	}
	return a.ExpandDims(0).ExpandDims(-1)
}

// callCounted calls fn and returns its error and, where d is not nil and
// fn moved data or launched there, what changed ("" when nothing did); a
// panic in fn fails t with "<what>panicked: <value>".
func callCounted(t *testing.T, d *sim.Device, what string, fn func() error) (changed string, err error) {
	var s0 device.Stats
	runs := 0
	if d != nil {
		s0, runs = d.Stats(), d.Runs()
	}
	err = func() error {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%spanicked: %v", what, r)
			}
		}()
		return fn()
	}()
	if d != nil {
		if s := d.Stats(); s != s0 || d.Runs() != runs {
			changed = fmt.Sprintf("stats %+v → %+v, runs %d → %d", s0, s, runs, d.Runs())
		}
	}
	return changed, err
}

// TestClosedTableComplete: closedCases covers every exported function of
// package ops with an error result, and the functions without one are the
// ones ops/doc.go names (they take no Array).
func TestClosedTableComplete(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	var withErr, without []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil || af.Name.Name != "ops" {
			continue // not one of ops' sources
		}
		seen++
		for _, decl := range af.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() {
				continue
			}
			res := fd.Type.Results
			if res != nil && len(res.List) > 0 {
				if id, ok := res.List[len(res.List)-1].Type.(*ast.Ident); ok && id.Name == "error" {
					withErr = append(withErr, fd.Name.Name)
					continue
				}
			}
			without = append(without, fd.Name.Name)
		}
	}
	if seen == 0 {
		// A test binary run away from the package's directory (as on the
		// accelerator machine) has no sources to compare the table with.
		t.Skip("ops' source files are not in the working directory")
	}
	have := map[string]bool{}
	for _, c := range closedCases {
		have[strings.SplitN(c.name, "/", 2)[0]] = true
	}
	for _, n := range withErr {
		if !have[n] {
			t.Errorf("ops.%s returns an error but is not in closedCases", n)
		}
		delete(have, n)
	}
	for n := range have {
		t.Errorf("closedCases has %s, not an exported function with an error result", n)
	}
	sort.Strings(without)
	if got, want := strings.Join(without, " "), "Accel AsType AsTypeSaturate Const In NewGenerator Philox4x32 SetTuning TuningOf"; got != want {
		t.Errorf("exported functions without an error result: %s, want %s (update ops/doc.go's Lifetime section)", got, want)
	}
}

// TestEmptyReductionErrors: Min, Max, ArgMin and ArgMax over no elements
// (the *All forms of an empty Array, the dimension forms over an empty
// dimension) return an error wrapping array.ErrShape, on the host and on
// a device, without running or moving anything; Sum, Prod and Mean stay
// defined.
func TestEmptyReductionErrors(t *testing.T) {
	for _, onDev := range []bool{false, true} {
		var d *sim.Device
		if onDev {
			d = sim.NewCompute("gpu", 0)
			defer d.Close()
		}
		a := array.New[float32](0, 3)
		defer a.Close()
		rdst, idst := array.New[float32](3), array.New[int64](3)
		defer rdst.Close()
		defer idst.Close()
		if d != nil {
			for _, b := range []array.Buffer{a, rdst, idst} {
				if err := ops.On(d, b); err != nil {
					t.Fatal(err)
				}
			}
		}
		undefined := map[string]func() error{
			"Min over AllDims": func() error { _, err := ops.Value(ops.Min, a); return err },
			"Max over AllDims": func() error { _, err := ops.Value(ops.Max, a); return err },
			"ArgMinAll":        func() error { _, err := ops.ArgMinAll(a); return err },
			"ArgMaxAll":        func() error { _, err := ops.ArgMaxAll(a); return err },
			"Min":              func() error { return ops.Min(rdst, a, -1) },
			"Max":              func() error { return ops.Max(rdst, a, -1) },
			"ArgMin":           func() error { return ops.ArgMin(idst, a, -1) },
			"ArgMax":           func() error { return ops.ArgMax(idst, a, -1) },
		}
		for name, fn := range undefined {
			changed, err := callCounted(t, d, name+" of an empty Array ", fn)
			if !errors.Is(err, array.ErrShape) || !strings.Contains(err.Error(), "ops."+name+" over no elements") {
				t.Errorf("%s of an empty Array (device %v): %v, want an error wrapping array.ErrShape", name, onDev, err)
			}
			if changed != "" {
				t.Errorf("%s of an empty Array moved or ran", name)
			}
		}
		// a closed operand's error comes first
		e := array.New[float32](0)
		e.Close()
		if _, err := ops.Value(ops.Max, e); !errors.Is(err, device.ErrClosed) {
			t.Errorf("MaxAll of a closed empty Array: %v, want ErrClosed", err)
		}
		if v, err := ops.Value(ops.Sum, a); err != nil || v != 0 {
			t.Errorf("SumAll of an empty Array = %v, %v; want 0", v, err)
		}
		if err := ops.Prod(rdst, a, -1); err != nil {
			t.Errorf("Prod over an empty dimension: %v", err)
		}
	}
}
