package ops

import (
	"testing"

	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"math"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// The differential family of fused expressions (famFuse): random trees of
// binary, scalar, unary and cast nodes over operands of random layouts
// (broadcasts and views included) and residency states, evaluated fused
// (Eval, EvalSum, EvalSumAll, EvalMinAll, EvalMaxAll) and compared with
// the same tree evaluated op by op (oboRun) on dense copies of the
// operands placed where the fused pass ran. Where the pass ran is checked
// against the rule and its launches counted: one kernel (a reduction's
// last work-group joining its partials, after red_clear where the
// counters were first made), or a kernel and the joining pass of a
// reduction when one-pass is off, or one run on a Go device.
//
// Tolerances: integers exactly; float trees without transcendental nodes
// (Exp … Softplus, Pow: Add, Mul, Div, Sqrt, the rounding ops, casts)
// exactly, since each node rounds to its type as the op-by-op kernels
// store it; trees with them within 4·devTol, since the host's float32
// math kernels compute a block's tail in Go and its body in assembly,
// within an ulp of each other. Nodes that would magnify such a difference
// past any tolerance (Div, Mod, Pow, the rounding ops, Sign, Tan, Asin,
// Acos, float → integer casts) get exact subtrees. Sums: within devTol of
// the op-by-op sum, or 1e-6·Σ|x| (the two add in different orders).

// fuseLeaf is an operand of a generated expression, of any type.
type fuseLeaf interface {
	res() resident
	f64() bool
	// copyOn is a dense copy of the operand's values, placed on d when d
	// is not nil.
	copyOn(g *dgen, d device.Device) any
}

type fleaf[T array.Elem] struct{ o *operand[T] }

func (l fleaf[T]) res() resident { return l.o.a }
func (l fleaf[T]) f64() bool     { return isF64[T]() }
func (l fleaf[T]) copyOn(g *dgen, d device.Device) any {
	c := array.New[T](l.o.ext...)
	h, err := c.Host()
	g.must(err)
	i := 0
	forEachPos(l.o.ext, func(pos []int) {
		h.Set(l.o.vals[i], pos...)
		i++
	})
	if d != nil {
		g.must(On(d, c))
	}
	return c
}

// fuseTree is one generated expression's operands.
type fuseTree struct {
	ext    []int
	leaves []fuseLeaf
	dst    any // *operand[T] of Eval's dst, which a leaf may be (in place)
	f64    bool
}

// builder makes the expression over the operands bind(k) returns.
type builder[T array.Elem] func(bind func(k int) any) Expr[T]

var (
	fuseTranscendental = map[UnaryOp]bool{OpExp: true, OpLog: true, OpTanh: true, OpSin: true, OpCos: true,
		OpTan: true, OpAsin: true, OpAcos: true, OpAtan: true, OpSinh: true, OpCosh: true, OpSigmoid: true, OpSoftplus: true}
	fuseSteep = map[UnaryOp]bool{OpFloor: true, OpCeil: true, OpRound: true, OpTrunc: true, OpSign: true,
		OpTan: true, OpAsin: true, OpAcos: true}
)

// genExpr draws a tree of type T of at most depth levels; exact: no
// transcendental node in it. It reports whether the tree has one.
func genExpr[T array.Elem](g *dgen, ft *fuseTree, depth int, exact bool) (builder[T], bool) {
	ft.f64 = ft.f64 || isF64[T]()
	if depth <= 0 || g.p(0.2) {
		return genLeaf[T](g, ft)
	}
	switch r := g.n(10); {
	case r < 4: // binary
		op := BinaryOp(g.n(int(nBinary)))
		if op == OpPow && (!isFloatT[T]() || exact) {
			op = OpMul
		}
		sub := exact || op == OpDiv || op == OpMod || op == OpPow
		x, ix := genExpr[T](g, ft, depth-1, sub)
		y, iy := genExpr[T](g, ft, depth-1, sub)
		g.note("binary %v", op)
		return func(bind func(int) any) Expr[T] { return x(bind).Binary(op, y(bind)) }, ix || iy || op == OpPow
	case r < 7: // unary
		op := UnaryOp(g.n(int(drefUnaryOps)))
		if !drefUnaryDefined[T](op) || (exact && fuseTranscendental[op]) {
			op = OpAbs
		}
		x, ix := genExpr[T](g, ft, depth-1, exact || fuseSteep[op])
		g.note("unary %v", op)
		return func(bind func(int) any) Expr[T] { return x(bind).Unary(op) }, ix || fuseTranscendental[op]
	default:
		return genCastTo[T](g, ft, depth, exact)
	}
}

// genLeaf draws an operand (Eval's dst now and then), or a constant.
func genLeaf[T array.Elem](g *dgen, ft *fuseTree) (builder[T], bool) {
	if g.p(0.2) {
		v := drawVal[T](g, valSmall)
		g.note("const %v", v)
		return func(func(int) any) Expr[T] { return Const(v) }, false
	}
	k := len(ft.leaves)
	if d, ok := ft.dst.(*operand[T]); ok && g.p(0.1) {
		g.note("in%d is dst", k)
		ft.leaves = append(ft.leaves, fleaf[T]{d})
	} else {
		g.note("in%d %s", k, typeName[T]())
		ft.leaves = append(ft.leaves, fleaf[T]{newOperand[T](g, bcastExt(g, ft.ext), valSmall)})
	}
	ft.f64 = ft.f64 || isF64[T]()
	return func(bind func(int) any) Expr[T] { return In(bind(k).(*array.Array[T])) }, false
}

func genCastTo[D array.Elem](g *dgen, ft *fuseTree, depth int, exact bool) (builder[D], bool) {
	switch g.n(12) {
	case 0:
		return genCast[D, int8](g, ft, depth, exact)
	case 1:
		return genCast[D, int16](g, ft, depth, exact)
	case 2:
		return genCast[D, int32](g, ft, depth, exact)
	case 3:
		return genCast[D, int64](g, ft, depth, exact)
	case 4:
		return genCast[D, uint8](g, ft, depth, exact)
	case 5:
		return genCast[D, uint16](g, ft, depth, exact)
	case 6:
		return genCast[D, uint32](g, ft, depth, exact)
	case 7:
		return genCast[D, uint64](g, ft, depth, exact)
	case 8:
		return genCast[D, float32](g, ft, depth, exact)
	case 9:
		return genCast[D, float64](g, ft, depth, exact)
	case 10:
		return genCast[D, array.Float16](g, ft, depth, exact)
	}
	return genCast[D, array.BFloat16](g, ft, depth, exact)
}

func genCast[D, S array.Elem](g *dgen, ft *fuseTree, depth int, exact bool) (builder[D], bool) {
	x, ix := genExpr[S](g, ft, depth-1, exact || (isFloatT[S]() && !isFloatT[D]()))
	sat := g.p(0.5)
	g.note("cast %s → %s saturate %v", typeName[S](), typeName[D](), sat)
	if sat {
		return func(bind func(int) any) Expr[D] { return AsTypeSaturate[D](x(bind)) }, ix
	}
	return func(bind func(int) any) Expr[D] { return AsType[D](x(bind)) }, ix
}

// diffFuse is one case of famFuse.
func diffFuse[T array.Elem](g *dgen) {
	ext := drawExt(g, 3)
	mode := g.n(5) // Eval, EvalSum, EvalSumAll, EvalMinAll, EvalMaxAll
	ft := &fuseTree{ext: ext}
	var dst *operand[T]
	switch mode {
	case 0:
		dst = newOperand[T](g, ext, valSmall)
		ft.dst = dst
	case 1:
		dst = newOperand[T](g, nil, valSmall)
	}
	build, inexact := genExpr[T](g, ft, 1+g.n(4), false)
	e := build(func(k int) any { return ft.leaves[k].res() })
	if (mode == 3 || mode == 4) && anyEmpty(ft) { // no minimum or maximum: sum it
		mode = 2
	}
	g.note("%s of %v", [...]string{"Eval", "EvalSum", "EvalSumAll", "EvalMinAll", "EvalMaxAll"}[mode], e)
	ins := make([]resident, len(ft.leaves))
	for k, l := range ft.leaves {
		ins[k] = l.res()
	}
	var dres resident
	if dst != nil {
		dres = dst.a
	}
	if mode >= 2 && anyEmpty(ft) {
		dres = array.New[T](0) // nothing to compute, nothing to move: as for an empty dst
	}
	p := g.expect(ft.f64, dres, ins...)
	clear := fuseCountersMissing(g.d)
	var got T
	var err error
	switch mode {
	case 0:
		err = Eval(dst.a, e)
	case 1:
		err = EvalSum(dst.a, e)
	case 2:
		got, err = EvalSumAll(e)
	case 3:
		got, err = EvalMinAll(e)
	default:
		got, err = EvalMaxAll(e)
	}
	fused := len(ft.leaves) <= fuseMaxLeaves
	if fused {
		if !g.finish(p, err, false, dres, ins...) {
			return
		}
	} else if !g.expectErr(err, false) { // op by op: each op placed by itself
		return
	}
	if g.d != nil && fused {
		want := int64(0)
		if p.dev {
			want = 1
			if k, ok := g.d.(device.Kernels); ok && mode > 0 {
				want = fuseReduceLaunches(k, clear)
			}
		}
		if dst != nil && dst.a.Len() == 0 {
			want = 0
		}
		if got := g.d.Stats().Sub(p.before).Launches; got != want {
			g.tb.Errorf("%d launches, want %d (a fused pass)", got, want)
		}
	}
	// the reference: op by op on dense copies, where the fused pass ran
	var on device.Device
	if p.dev {
		on = g.d
	}
	var closers []interface{ Close() error }
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	ref := build(func(k int) any {
		c := ft.leaves[k].copyOn(g, on)
		closers = append(closers, c.(interface{ Close() error }))
		return c
	})
	tol := exact
	if inexact && isFloatT[T]() {
		tol = func([]int) float64 { return 4 * devTol[T]() }
	}
	r := &oboRun{op: "reference"}
	defer r.close()
	switch mode {
	case 0:
		want := array.New[T](ext...)
		closers = append(closers, want)
		if on != nil {
			g.must(On(on, want))
		}
		_, err := ref.n.obo(r, want)
		g.must(err)
		wv, err := want.HostReadOnly()
		g.must(err)
		compareTo(g, dst.a, func(pos []int) T { return wv.At(pos...) }, tol)
		return
	case 1:
		v, err := dst.a.HostReadOnly()
		g.must(err)
		got = v.At()
	}
	op := [...]reduceOp{redSum, redSum, redSum, redMin, redMax}[mode]
	want, err := oboReduce(op, "reference", ref.n)
	g.must(err)
	if tol(nil) == 0 && op != redSum || !isFloatT[T]() {
		if !same(got, want) {
			g.tb.Errorf("got %v, op by op %v", got, want)
		}
		return
	}
	if closeTo(got, want, max(tol(nil), devTol[T]())) {
		return
	}
	// a sum: the op-by-op values' Σ|x| bounds the difference of orders
	abs := 0.0
	if x, err := ref.n.obo(r, nil); err == nil && x.a != nil {
		if xv, err := x.a.HostReadOnly(); err == nil {
			forEachPos(x.a.Extents(), func(pos []int) { abs += math.Abs(toF64(xv.At(coordsOf(x.a, pos)...))) })
		}
	}
	if math.Abs(toF64(got)-toF64(want)) > 1e-6*abs {
		g.tb.Errorf("got %v, op by op %v (Σ|x| %v)", got, want, abs)
	}
}

// fuseCountersMissing says whether a fused reduction on d would first
// allocate the one-pass counters (a red_clear launch).
func fuseCountersMissing(d device.Device) bool {
	k, ok := d.(device.Kernels)
	if !ok || !device.BuildsOpenCLC(k.Caps()) {
		return false
	}
	s := stateOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.countersN < 1
}

// fuseReduceLaunches is how many launches a fused reduction made on k:
// fuse_one (after red_clear when clear: the counters were missing before
// the call), or fuse_part and fuse_fin where one-pass is off.
func fuseReduceLaunches(k device.Kernels, clear bool) int64 {
	if !stateOf(k).onePass() {
		return 2
	}
	if clear {
		return 2
	}
	return 1
}

// anyEmpty reports whether the expression has no elements: an operand
// has none (the others broadcast with it).
func anyEmpty(ft *fuseTree) bool {
	for _, l := range ft.leaves {
		if l.res().Len() == 0 {
			return true
		}
	}
	return false
}

// TestDiffFuse runs famFuse's cases alone (cases famFuse, famFuse+nFam, …
// of TestDiff's numbering, so -diff.case reproduces them there too):
// -diff.n of them per side (default 120, 40 under -race: each new
// expression is a kernel build, a second or more on PoCL with a cold
// cache; TestDiff draws more, and each run's seed draws new ones).
func TestDiffFuse(t *testing.T) {
	seed := seedOf(t)
	var cl device.Device
	if d, err := opencl.Default(); err == nil {
		cl = d
	}
	sd := sim.NewCompute("diff-fuse", 0)
	defer sd.Close()
	n := raceCases(120, 40)
	if *diffN > 0 {
		n = *diffN
	}
	eachSide(t, cl, sd, func(t *testing.T, dev device.Device) {
		var where [2]int
		for i := range n {
			runDiffCase(t, dev, seed, i*nFam+famFuse, &where)
		}
		t.Logf("fused cases on the device (by the rule): %d of %d", where[1], where[0]+where[1])
	})
}
