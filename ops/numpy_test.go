package ops

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/internal/nptest"
)

// TestDiffNumPy: a seeded subset of TestDiff's kind of cases (same layout
// and residency generators) computed again by NumPy through
// /usr/bin/python3 and compared with what ops computed. Operands travel
// as JSON on stdin in NumPy's axis order (shape reversed: an Array's
// values in dimension-0-fastest order are NumPy's C order). It skips
// when python3 or numpy is missing.
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run DiffNumPy ./ops -diff.npn 200

var diffNPN = flag.Int("diff.npn", 64, "cases of TestDiffNumPy")

// npScript computes each case in NumPy and prints the flat results.
const npScript = `
import sys, json
import numpy as np
out = []
for c in json.load(sys.stdin):
    ins = [np.array(x['data'], dtype=x['dtype']).reshape(x['shape']) for x in c['ins']]
    op, ax = c['op'], c.get('axis')
    with np.errstate(all='ignore'):
        if op in ('add', 'subtract', 'multiply', 'minimum', 'maximum', 'equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal', 'remainder', 'power'):
            r = getattr(np, op)(ins[0], ins[1])
        elif op in ('abs', 'negative', 'sqrt', 'exp', 'log', 'tanh', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'sign', 'isnan', 'isinf', 'isfinite'):
            r = getattr(np, op)(ins[0])
        elif op in ('floor', 'ceil', 'rint', 'trunc'):
            r = ins[0] if ins[0].dtype.kind in 'iu' else getattr(np, op)(ins[0])  # NumPy 1.x gives float64 for integers
        elif op == 'relu':
            r = np.maximum(ins[0], 0)
        elif op == 'sigmoid':  # in float64, then rounded: float16 steps would round each
            r = 1 / (1 + np.exp(-ins[0].astype(np.float64)))
        elif op == 'softplus':
            r = np.logaddexp(0, ins[0].astype(np.float64))
        elif op == 'clip':
            r = np.clip(ins[0], c['lo'], c['hi'])
        elif op == 'where':
            r = np.where(ins[0] != 0, ins[1], ins[2])
        elif op == 'swapaxes':
            r = np.swapaxes(ins[0], c['a0'], c['a1'])
        elif op in ('sum', 'prod'):
            r = getattr(np, op)(ins[0], axis=ax, dtype=ins[0].dtype)
        elif op == 'mean':
            r = np.mean(ins[0], axis=ax, dtype=np.float64)
        elif op in ('min', 'max', 'argmin', 'argmax'):
            r = getattr(np, op)(ins[0], axis=ax)
        elif op == 'matmul':
            r = np.matmul(ins[0].astype(np.float64), ins[1].astype(np.float64))
        else:
            raise ValueError(op)
    r = np.asarray(r).astype(c['odtype'])
    while r.ndim > len(c['out']):  # an input's extra outer extent-1 dimensions
        r = r[0]
    r = r.reshape(c['out']) if r.size == int(np.prod(c['out'])) else np.broadcast_to(r, c['out'])
    out.append([str(v) for v in r.ravel().tolist()])
json.dump(out, sys.stdout)
`

type npArr struct {
	Dtype string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []any  `json:"data"`
}

type npCase struct {
	Op     string  `json:"op"`
	Axis   *int    `json:"axis,omitempty"`
	A0     int     `json:"a0"`
	A1     int     `json:"a1"`
	Ins    []npArr `json:"ins"`
	Lo     any     `json:"lo,omitempty"`
	Hi     any     `json:"hi,omitempty"`
	Out    []int   `json:"out"`
	ODtype string  `json:"odtype"`

	desc  string
	got   []float64 // float results
	goti  []string  // integer results, exact
	tol   float64   // relative to max(1, |want|)
	float bool
}

func npDtype[T array.Elem]() string {
	t := array.TypeOf[T]()
	switch t.Code {
	case array.Int:
		return fmt.Sprintf("int%d", t.Bits)
	case array.UInt:
		return fmt.Sprintf("uint%d", t.Bits)
	}
	return fmt.Sprintf("float%d", t.Bits)
}

func npRev(ext []int) []int {
	r := slices.Clone(ext)
	slices.Reverse(r)
	return r
}

func npOf[T array.Elem](o *operand[T]) npArr {
	a := npArr{Dtype: npDtype[T](), Shape: npRev(o.ext), Data: make([]any, len(o.vals))}
	for i, x := range o.vals {
		switch {
		case isFloatT[T]():
			a.Data[i] = drefF(x)
		case isSignedT[T]():
			a.Data[i] = drefI(x)
		default:
			a.Data[i] = drefU(x)
		}
	}
	return a
}

// npResult records dst's values (dimension 0 fastest) in c.
func npResult[T array.Elem](g *dgen, c *npCase, dst *array.Array[T]) {
	c.Out, c.ODtype, c.float = npRev(dst.Extents()), npDtype[T](), isFloatT[T]()
	v, err := dst.HostReadOnly()
	if err != nil {
		g.tb.Fatal(err)
	}
	forEachPos(dst.Extents(), func(pos []int) {
		x := v.At(coordsOf(dst, pos)...)
		switch {
		case isFloatT[T]():
			c.got = append(c.got, drefF(x))
		case isSignedT[T]():
			c.goti = append(c.goti, strconv.FormatInt(drefI(x), 10))
		default:
			c.goti = append(c.goti, strconv.FormatUint(drefU(x), 10))
		}
	})
}

type npRunner interface {
	make(g *dgen, fam int) *npCase
}

type npr[T array.Elem] struct{}

func (npr[T]) make(g *dgen, fam int) *npCase { return npMake[T](g, fam) }

var npTypes = []npRunner{npr[int8]{}, npr[int16]{}, npr[int32]{}, npr[int64]{}, npr[uint8]{}, npr[uint16]{},
	npr[uint32]{}, npr[uint64]{}, npr[float32]{}, npr[float64]{}, npr[array.Float16]{}}

func npMake[T array.Elem](g *dgen, fam int) *npCase {
	c := &npCase{tol: devTol[T]()}
	ext := drawExt(g, 4)
	switch fam {
	case 0: // binary
		ops := []BinaryOp{OpAdd, OpSub, OpMul, OpMin, OpMax, OpMod, OpPow}
		names := []string{"add", "subtract", "multiply", "minimum", "maximum", "remainder", "power"}
		k := g.n(len(ops))
		if ops[k] == OpPow && !isFloatT[T]() {
			k = 5
		}
		va, vb := valSmall, valSmall
		if ops[k] == OpPow {
			va, vb = valPos, valUnit
		}
		dst := newOperand[T](g, ext, valSmall)
		a, b := newOperand[T](g, bcastExt(g, ext), va), newOperand[T](g, bcastExt(g, ext), vb)
		g.must(Binary(dst.a, a.a, b.a, ops[k]))
		c.Op, c.Ins = names[k], []npArr{npOf(a), npOf(b)}
		npResult(g, c, dst.a)
	case 1: // unary
		names := map[UnaryOp]string{OpAbs: "abs", OpNeg: "negative", OpSqrt: "sqrt", OpExp: "exp", OpLog: "log",
			OpTanh: "tanh", OpSin: "sin", OpCos: "cos", OpTan: "tan", OpAsin: "arcsin", OpAcos: "arccos",
			OpAtan: "arctan", OpSinh: "sinh", OpCosh: "cosh", OpSigmoid: "sigmoid", OpSoftplus: "softplus",
			OpRelu: "relu", OpFloor: "floor", OpCeil: "ceil", OpRound: "rint", OpTrunc: "trunc", OpSign: "sign"}
		var ops []UnaryOp // those T defines, of those drefUnary knows (unary_ref_test.go checks later ones)
		for op := UnaryOp(0); op < drefUnaryOps; op++ {
			if drefUnaryDefined[T](op) {
				ops = append(ops, op)
			}
		}
		op := ops[g.n(len(ops))]
		v := valSmall
		switch op {
		case OpSqrt, OpLog:
			v = valPos
		case OpAsin, OpAcos:
			v = valUnit
		}
		dst := newOperand[T](g, ext, v)
		a := newOperand[T](g, bcastExt(g, ext), v)
		g.must(Unary(dst.a, a.a, op))
		c.Op, c.Ins = names[op], []npArr{npOf(a)}
		npResult(g, c, dst.a)
	case 2: // compare
		names := []string{"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
		k := g.n(6)
		dst := newOperand[uint8](g, ext, valSmall)
		a, b := newOperand[T](g, bcastExt(g, ext), valSmall), newOperand[T](g, bcastExt(g, ext), valSmall)
		g.must(Compare(dst.a, a.a, b.a, CmpOp(k)))
		c.Op, c.Ins = names[k], []npArr{npOf(a), npOf(b)}
		npResult(g, c, dst.a)
	case 3: // where
		dst := newOperand[T](g, ext, valSmall)
		cd := newOperand[uint8](g, bcastExt(g, ext), valCond)
		a, b := newOperand[T](g, bcastExt(g, ext), valSmall), newOperand[T](g, bcastExt(g, ext), valSmall)
		g.must(Where(dst.a, cd.a, a.a, b.a))
		c.Op, c.Ins = "where", []npArr{npOf(cd), npOf(a), npOf(b)}
		npResult(g, c, dst.a)
	case 4: // transpose
		for len(ext) < 2 {
			ext = append(ext, 2+g.n(4))
		}
		n := len(ext)
		d0, d1 := g.n(n), g.n(n)
		sext := slices.Clone(ext)
		sext[d0], sext[d1] = sext[d1], sext[d0]
		dst := newOperand[T](g, ext, valSmall)
		a := newOperand[T](g, sext, valSmall)
		g.must(Copy(dst.a, a.a.Transpose(d0, d1)))
		c.Op, c.A0, c.A1, c.Ins = "swapaxes", n-1-d0, n-1-d1, []npArr{npOf(a)}
		npResult(g, c, dst.a)
	case 5: // reduce along a dimension
		if len(ext) == 0 {
			ext = []int{2 + g.n(8)}
		}
		n := len(ext)
		dim := g.n(n)
		ext[dim] = max(ext[dim], 1)
		names := []string{"sum", "prod", "min", "max", "mean", "argmin", "argmax"}
		k := g.n(7)
		if k == 4 && !isFloatT[T]() {
			k = 0
		}
		v := []values{valSmall, valUnit, valSmall, valSmall, valTiny, valSmall, valSmall}[k]
		a := newOperand[T](g, ext, v)
		dext := slices.Delete(slices.Clone(ext), dim, dim+1)
		ax := n - 1 - dim
		c.Op, c.Axis, c.Ins = names[k], &ax, []npArr{npOf(a)}
		switch {
		case k == 0 || k == 4:
			c.tol *= 8 * float64(ext[dim])
		case k == 1:
			c.tol *= float64(ext[dim])
		}
		if k >= 5 {
			dst := newOperand[int64](g, dext, valSmall)
			if k == 5 {
				g.must(ArgMin(dst.a, a.a, axisOf(dim)))
			} else {
				g.must(ArgMax(dst.a, a.a, axisOf(dim)))
			}
			// NumPy's indices start at 0
			g.must(BinaryScalar(dst.a, dst.a, int64(-a.a.Dim(dim).Min), OpAdd))
			npResult(g, c, dst.a)
			return c
		}
		dst := newOperand[T](g, dext, valSmall)
		g.must([]func(dst, a *array.Array[T], ax array.Axis) error{Sum[T], Prod[T], Min[T], Max[T], Mean[T]}[k](dst.a, a.a, axisOf(dim)))
		npResult(g, c, dst.a)
	case 7: // isnan, isinf, isfinite (the JSON carries no NaN or Inf: all finite)
		names := []string{"isnan", "isinf", "isfinite"}
		k := g.n(3)
		dst := newOperand[uint8](g, ext, valSmall)
		a := newOperand[T](g, bcastExt(g, ext), valSmall)
		g.must([]func(*array.Array[uint8], *array.Array[T]) error{IsNaN[T], IsInf[T], IsFinite[T]}[k](dst.a, a.a))
		c.Op, c.Ins = names[k], []npArr{npOf(a)}
		npResult(g, c, dst.a)
	case 8: // clip
		dst := newOperand[T](g, ext, valSmall)
		a := newOperand[T](g, bcastExt(g, ext), valSmall)
		lo, hi := drawVal[T](g, valSmall), drawVal[T](g, valSmall)
		if g.p(0.8) && drefCompare(GT, lo, hi) == 1 {
			lo, hi = hi, lo
		}
		g.must(Clip(dst.a, a.a, lo, hi))
		bound := npOf(&operand[T]{ext: []int{}, vals: []T{lo, hi}})
		c.Op, c.Ins, c.Lo, c.Hi = "clip", []npArr{npOf(a)}, bound.Data[0], bound.Data[1]
		npResult(g, c, dst.a)
	default: // MatMul, float32 and float64
		if !isFloatT[T]() || array.TypeOf[T]().Bits == 16 {
			return npMake[T](g, g.n(6))
		}
		K, M, N := 1+g.n(40), 1+g.n(20), 1+g.n(20)
		ae, be, de := []int{K, M}, []int{N, K}, []int{N, M}
		if g.p(0.3) {
			Z := 2 + g.n(2)
			de = append(de, Z)
			if g.p(0.7) {
				ae = append(ae, Z)
			}
			be = append(be, []int{Z, 1}[g.n(2)])
		}
		dst := newOperand[T](g, de, valSmall)
		a, b := newOperand[T](g, ae, valSmall), newOperand[T](g, be, valSmall)
		switch x := any(dst.a).(type) {
		case *array.Array[float32]:
			g.must(MatMul(x, any(a.a).(*array.Array[float32]), any(b.a).(*array.Array[float32])))
		case *array.Array[float64]:
			g.must(MatMul(x, any(a.a).(*array.Array[float64]), any(b.a).(*array.Array[float64])))
		}
		c.Op, c.Ins, c.tol = "matmul", []npArr{npOf(a), npOf(b)}, c.tol*64*float64(K)
		npResult(g, c, dst.a)
	}
	return c
}

func TestDiffNumPy(t *testing.T) {
	needNumPy(t)
	seed := seedOf(t)
	d, err := opencl.Default()
	if err != nil {
		t.Logf("no OpenCL device (%v): host path only", err)
		d = nil
	}
	var cases []*npCase
	for i := range *diffNPN {
		sub := &failLog{TB: t}
		g := &dgen{tb: sub, r: rand.New(rand.NewPCG(seed, 1<<32+uint64(i))), d: d, plain: true}
		if i%2 == 1 {
			g.d = nil // every other case on the host path
		}
		tr := npTypes[g.n(len(npTypes))]
		var c *npCase
		func() {
			defer func() {
				if r := recover(); r != nil && r != errCaseFatal {
					sub.Errorf("panic: %v", r)
				}
			}()
			c = tr.make(g, i%9)
		}()
		if sub.failed || c == nil {
			t.Fatalf("case %d: %v\n\t%v", i, sub.msgs, g.log)
		}
		c.desc = fmt.Sprintf("case %d (%s %s, device %v): %v", i, c.Op, c.Ins[0].Dtype, g.d != nil, g.log)
		cases = append(cases, c)
	}
	res := askNumPy(t, npScript, cases)
	checkNumPy(t, cases, res)
}

// needNumPy skips t where Python or its numpy is missing.
func needNumPy(t *testing.T) { t.Helper(); nptest.Need(t) }

// askNumPy runs script with the cases as JSON on its stdin; its answer is
// each case's values as strings.
func askNumPy(t *testing.T, script string, cases []*npCase) [][]string {
	var res [][]string
	nptest.Run(t, script, cases, &res)
	if len(res) != len(cases) {
		t.Fatalf("numpy's answer: %d results for %d cases", len(res), len(cases))
	}
	return res
}

// checkNumPy compares each case's values with NumPy's answer res: floats
// within the case's tolerance (NaN matching NaN), the rest exactly; at
// most three mismatches a case are reported.
func checkNumPy(t *testing.T, cases []*npCase, res [][]string) {
	for i, c := range cases {
		if n := len(c.got) + len(c.goti); len(res[i]) != n {
			t.Errorf("%s: numpy gave %d values, ops %d", c.desc, len(res[i]), n)
			continue
		}
		bad := 0
		for k, w := range res[i] {
			if c.float {
				wf, _ := strconv.ParseFloat(w, 64)
				g := c.got[k]
				if !(g == wf || math.IsNaN(g) && math.IsNaN(wf) || math.Abs(g-wf) <= c.tol*max(1, math.Abs(wf))) && bad < 3 {
					bad++
					t.Errorf("%s: element %d: ops %v, numpy %v", c.desc, k, g, wf)
				}
			} else if c.goti[k] != w && bad < 3 {
				bad++
				t.Errorf("%s: element %d: ops %v, numpy %v", c.desc, k, c.goti[k], w)
			}
		}
	}
}
