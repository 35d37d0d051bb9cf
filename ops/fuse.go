package ops

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Expr is a lazy elementwise expression of element type T over Arrays
// (In) and Go scalars (Const): a chain written once and run as one fused
// pass by Eval, or ending in a reduction by EvalSum, EvalSumAll,
// EvalMinAll and EvalMaxAll. Building one computes nothing and moves
// nothing; an Expr holds its Arrays (not copies of them), so it reads
// them as they are when it is evaluated. Arrays broadcast as in the
// binary ops (see the package documentation, "Shapes, views and
// broadcasting"). The zero Expr is invalid: Eval panics with ErrExpr.
//
//	e := ops.AsType[float32](ops.In(img)).Scale(1.0 / 255) // cast → scale
//	sum, err := ops.EvalSumAll(e)                          // one read of img
type Expr[T array.Elem] struct{ n tnode[T] }

// ErrExpr is the panic of an invalid expression: the zero Expr, or In
// of a nil Array.
var ErrExpr = errors.New("ops: invalid expression")

// In is the expression of a's elements.
func In[T array.Elem](a *array.Array[T]) Expr[T] {
	if a == nil {
		panic(fmt.Errorf("%w: ops.In(nil): pass an Array", ErrExpr))
	}
	return Expr[T]{&leafExpr[T]{a: a}}
}

// Const is the expression of the value v at every element. On a device
// it is a kernel argument, so expressions that differ only in their
// constants share one compiled kernel.
func Const[T array.Elem](v T) Expr[T] { return Expr[T]{&constExpr[T]{v: v}} }

// Binary is the expression e op y, with Binary's definitions.
func (e Expr[T]) Binary(op BinaryOp, y Expr[T]) Expr[T] {
	return Expr[T]{&binExpr[T]{op: op, x: e.node("Binary"), y: y.node("Binary")}}
}

// Unary is the expression op(e), with Unary's definitions.
func (e Expr[T]) Unary(op UnaryOp) Expr[T] {
	return Expr[T]{&unExpr[T]{op: op, x: e.node("Unary")}}
}

// Scale is e · s, BinaryScalar's with OpMul.
func (e Expr[T]) Scale(s T) Expr[T] { return e.Binary(OpMul, Const(s)) }

// AsType is x converted to D with CastWrap's rules: AsType[float32](x).
func AsType[D, S array.Elem](x Expr[S]) Expr[D] {
	return Expr[D]{&castExpr[D, S]{x: x.node("AsType")}}
}

// AsTypeSaturate is x converted to D with CastSaturate's rules.
func AsTypeSaturate[D, S array.Elem](x Expr[S]) Expr[D] {
	return Expr[D]{&castExpr[D, S]{sat: true, x: x.node("AsTypeSaturate")}}
}

func (e Expr[T]) node(op string) tnode[T] {
	if e.n == nil {
		panic(fmt.Errorf("%w: ops.%s of the zero Expr: build expressions from In and Const", ErrExpr, op))
	}
	return e.n
}

// String describes the expression's structure and types, as its kernel
// cache key does (constants show as their type, not their value).
func (e Expr[T]) String() string {
	if e.n == nil {
		return "Expr(zero)"
	}
	return newPlan("String", e.n).kernel(nil).sig.String()
}

// node is an expression node of any element type.
type node interface {
	// compile adds the node's host step (children first) to p and returns
	// its slot; called once per node and plan (plan.visit).
	compile(p *fusePlan) int
	// kernel adds the node's signature, kernel arguments and, with k.cl,
	// its OpenCL statement (children first) to k, for its slot s of p;
	// called once per node and device pass (fuseKernel.visit).
	kernel(p *fusePlan, k *fuseKernel, s int)
	// bcast broadcasts the extents of the node's Arrays into e.
	bcast(op string, e []int) []int
	// check returns the error of an op the node's type does not define.
	check() error
}

// tnode is a node of element type T.
type tnode[T array.Elem] interface {
	node
	// obo evaluates the node op by op (oboRun).
	obo(r *oboRun, into *array.Array[T]) (oboVal[T], error)
}

type leafExpr[T array.Elem] struct{ a *array.Array[T] }

type constExpr[T array.Elem] struct{ v T }

type binExpr[T array.Elem] struct {
	op   BinaryOp
	x, y tnode[T]
}

type unExpr[T array.Elem] struct {
	op UnaryOp
	x  tnode[T]
}

type castExpr[D, S array.Elem] struct {
	sat bool
	x   tnode[S]
}

func (n *leafExpr[T]) check() error  { return nil }
func (n *constExpr[T]) check() error { return nil }
func (n *binExpr[T]) check() error {
	if err := binaryCheck[T](n.op); err != nil {
		return err
	}
	if err := n.x.check(); err != nil {
		return err
	}
	return n.y.check()
}
func (n *unExpr[T]) check() error {
	if err := unaryCheck[T](n.op); err != nil {
		return err
	}
	return n.x.check()
}
func (n *castExpr[D, S]) check() error { return n.x.check() }

func (n *leafExpr[T]) bcast(op string, e []int) []int {
	return bcastInto(op, e, n.a.Raw())
}
func (n *constExpr[T]) bcast(op string, e []int) []int { return e }
func (n *binExpr[T]) bcast(op string, e []int) []int   { return n.y.bcast(op, n.x.bcast(op, e)) }
func (n *unExpr[T]) bcast(op string, e []int) []int    { return n.x.bcast(op, e) }
func (n *castExpr[D, S]) bcast(op string, e []int) []int {
	return n.x.bcast(op, e)
}

// bcastInto broadcasts e with a's extents (numpy's rule, dimension 0
// innermost): the result has the larger rank, and each dimension the
// extent that is not 1.
func bcastInto(op string, e []int, a *array.Raw) []int {
	r := a.Rank()
	for len(e) < r {
		e = append(e, 1)
	}
	for i := 0; i < r; i++ {
		x := a.Dim(i).Extent
		switch {
		case x == e[i] || x == 1:
		case e[i] == 1:
			e[i] = x
		default:
			panic(fmt.Errorf("%w: ops.%s: operand shape %s does not broadcast with %s: axis %d has extent %d, another operand %d (extents must match or be 1)",
				array.ErrShape, op, shapeOf(a), npOrder(e), -1-i, x, e[i]))
		}
	}
	return e
}

// denseShape is a dense layout of extents ext (dimension 0 innermost):
// the loop nest of a reduction, which has no dst.
type denseShape []int

func (s denseShape) Rank() int { return len(s) }
func (s denseShape) Dim(i int) array.Dim {
	st := 1
	for _, e := range s[:i] {
		st *= e
	}
	return array.Dim{Extent: s[i], Stride: st}
}

// Eval stores e's value in dst: one fused pass that reads each Array of
// e once per element and writes dst once, with no temporary Arrays. e's
// Arrays broadcast to dst's shape; dst may be one of them with the same
// layout (in place). It runs where the placement rule puts an op whose
// inputs are e's Arrays: on an OpenCL device as one kernel generated
// from e (built once per device and expression structure, see
// Expr.String), on a Go device or the host as one parallel pass over
// blocks of elements (on the host too where the device cannot: more than
// 8 dimensions after merging, float64 without cl_khr_fp64). Where no
// fused form applies, more than 7 distinct Arrays, it runs op by op, each
// op placed by the rule, with temporary Arrays that it closes. An op the
// element type does not define returns an error wrapping ErrUnsupported
// before anything runs.
func Eval[T array.Elem](dst *array.Array[T], e Expr[T]) error {
	root := e.node("Eval")
	if err := root.check(); err != nil {
		return err
	}
	p := newPlan("Eval", root)
	out := &evalSink[T]{dst: dst}
	p.out = out
	ok, err := fuseRun(p, dst.Raw(), dst)
	if ok {
		return err
	}
	r := &oboRun{op: "Eval"}
	defer r.close()
	_, err = root.obo(r, dst)
	return err
}

// EvalSum stores the sum of every element of e in dst, a 0-D Array: on
// an OpenCL device one fused kernel and a final pass joining the
// work-groups' partial sums, and the result stays on the device. Sums
// follow Sum's rules (floats accumulate in float64 on the host and, with
// cl_khr_fp64, on the device; integers wrap); an e with no Arrays has one
// element.
func EvalSum[T array.Elem](dst *array.Array[T], e Expr[T]) error {
	return evalReduce(redSum, "EvalSum", dst, e)
}

// EvalSumAll returns the sum of every element of e (EvalSum's rules),
// like Value(Sum, …) of e's value, without making that value.
func EvalSumAll[T array.Elem](e Expr[T]) (T, error) {
	return evalReduceAll(redSum, "EvalSumAll", e)
}

// EvalMinAll returns the least element of e (Min's rules: NaN wins);
// over no elements, an error wrapping array.ErrShape.
func EvalMinAll[T array.Elem](e Expr[T]) (T, error) {
	return evalReduceAll(redMin, "EvalMinAll", e)
}

// EvalMaxAll returns the greatest element of e (Max's rules).
func EvalMaxAll[T array.Elem](e Expr[T]) (T, error) {
	return evalReduceAll(redMax, "EvalMaxAll", e)
}

func evalReduce[T array.Elem](op reduceOp, name string, dst *array.Array[T], e Expr[T]) error {
	root := e.node(name)
	if dst.Rank() != 0 {
		panic(fmt.Errorf("%w: ops.%s: dst has shape %s, want a 0-D Array (array.New[T]())", array.ErrShape, name, shapeOf(dst)))
	}
	if err := root.check(); err != nil {
		return err
	}
	p := newPlan(name, root)
	sink := &reduceSink[T]{op: op, dst: dst}
	p.out = sink
	ok, err := fuseRun(p, dst.Raw(), dst)
	if ok || err != nil {
		return err
	}
	v, err := oboReduce(op, name, root)
	if err != nil {
		return err
	}
	return Fill(dst, v)
}

func evalReduceAll[T array.Elem](op reduceOp, name string, e Expr[T]) (T, error) {
	root := e.node(name)
	if err := root.check(); err != nil {
		return 0, err
	}
	p := newPlan(name, root)
	sink := &reduceSink[T]{op: op}
	p.out = sink
	ok, err := fuseRun[T](p, nil, nil)
	if ok || err != nil {
		return sink.v, err
	}
	return oboReduce(op, name, root)
}

// fusePlan is an expression compiled for one evaluation: its steps in
// evaluation order (children first, each node once), its Arrays and the
// host's block functions. The device's signature and kernel come from a
// second pass over the nodes, taken only on an OpenCL device
// (plan.kernel), so the host formats no OpenCL.
type fusePlan struct {
	name   string
	root   node
	memo   map[node]int // every node's slot
	leaves []leafOps
	index  map[*array.Raw]int
	steps  []stepFunc
	nslots int
	shape  []int // the broadcast shape of the Arrays
	out    fuseSink
}

// stepFunc computes a node's block of m values into its slot.
type stepFunc func(f *frame, m int)

// leafOps is what a plan needs of an Array leaf, whatever its type.
type leafOps interface {
	raw() *array.Raw
	// base is the address of the Array's element at its min corner: in
	// its host copy (mem nil, read-only, bringing newer data home) or in
	// a Go device's memory.
	base(mem memFn) (unsafe.Pointer, error)
}

func (n *leafExpr[T]) raw() *array.Raw { return n.a.Raw() }
func (n *leafExpr[T]) base(mem memFn) (unsafe.Pointer, error) {
	a := n.a
	if mem != nil {
		var err error
		if a, err = viewOn(mem, a); err != nil {
			return nil, err
		}
	}
	v, err := a.HostReadOnly()
	if err != nil {
		return nil, err
	}
	return hostPtr(v), nil
}

// newPlan compiles the expression root for the host.
func newPlan(name string, root node) *fusePlan {
	p := &fusePlan{name: name, root: root, memo: map[node]int{}, index: map[*array.Raw]int{}}
	p.visit(root)
	return p
}

// visit compiles n once and returns its slot.
func (p *fusePlan) visit(n node) int {
	if s, ok := p.memo[n]; ok {
		return s
	}
	s := n.compile(p)
	p.memo[n] = s
	return s
}

func (p *fusePlan) slot() int {
	p.nslots++
	return p.nslots - 1
}

// The compile methods: each adds the host step of its node.

func (n *leafExpr[T]) compile(p *fusePlan) int {
	r := n.a.Raw()
	k, ok := p.index[r]
	if !ok {
		k = len(p.leaves)
		p.leaves = append(p.leaves, n)
		p.index[r] = k
	}
	p.shape = bcastInto(p.name, p.shape, r)
	s := p.slot()
	op := k + 1 // operand 0 is dst
	p.steps = append(p.steps, func(f *frame, m int) {
		str := f.j.str[op][0]
		x := load(slotBuf[T](f, s), f.j.base[op], f.off[op]+f.i*str, str, m)
		f.vals[s] = unsafe.Pointer(unsafe.SliceData(x))
	})
	return s
}

func (n *constExpr[T]) compile(p *fusePlan) int {
	s := p.slot()
	v := n.v
	p.steps = append(p.steps, func(f *frame, m int) {
		b := slotBuf[T](f, s)[:m]
		for i := range b {
			b[i] = v
		}
		f.vals[s] = unsafe.Pointer(&b[0])
	})
	return s
}

func (n *binExpr[T]) compile(p *fusePlan) int {
	x, y := p.visit(n.x), p.visit(n.y)
	s := p.slot()
	if kindOf[T]() == kHalf {
		p.steps = append(p.steps, halfStep[T](n, s, x, y))
		return s
	}
	op := n.op
	p.steps = append(p.steps, func(f *frame, m int) {
		d := slotBuf[T](f, s)[:m]
		binVec(op, d, val[T](f, x, m), val[T](f, y, m), false)
		f.vals[s] = unsafe.Pointer(&d[0])
	})
	return s
}

func (n *unExpr[T]) compile(p *fusePlan) int {
	x := p.visit(n.x)
	s := p.slot()
	if kindOf[T]() == kHalf {
		p.steps = append(p.steps, halfStep[T](n, s, x, -1))
		return s
	}
	op := n.op
	p.steps = append(p.steps, func(f *frame, m int) {
		d := slotBuf[T](f, s)[:m]
		unVec(op, d, val[T](f, x, m))
		f.vals[s] = unsafe.Pointer(&d[0])
	})
	return s
}

// halfNode is a Float16 or BFloat16 node computing in float32: from its
// operands' values a and b (nil for a unary node) into a.
type halfNode interface{ f32(a, b []float32) }

func (n *binExpr[T]) f32(a, b []float32) { binVec(n.op, a, a, b, false) }
func (n *unExpr[T]) f32(a, _ []float32)  { unVec(n.op, a, a) }

// halfStep is the host step of n, a node of half type T in slot s with
// operands in slots x and y (y < 0: one operand): the operands widen to
// float32, n computes, and the result rounds to T, as the op-by-op
// kernels store it.
func halfStep[T array.Elem](n halfNode, s, x, y int) stepFunc {
	return func(f *frame, m int) {
		a := loadF32[T](f.f32[0][:], f.vals[x], 0, 1, m)
		var b []float32
		if y >= 0 {
			b = loadF32[T](f.f32[1][:], f.vals[y], 0, 1, m)
		}
		n.f32(a, b)
		d := slotBuf[T](f, s)
		storeF32[T](a, unsafe.Pointer(&d[0]), 0, 1)
		f.vals[s] = unsafe.Pointer(&d[0])
	}
}

func (n *castExpr[D, S]) compile(p *fusePlan) int {
	x := p.visit(n.x)
	s := p.slot()
	sat := n.sat
	p.steps = append(p.steps, func(f *frame, m int) {
		d := slotBuf[D](f, s)[:m]
		castVec(d, val[S](f, x, m), sat, &f.cast)
		f.vals[s] = unsafe.Pointer(&d[0])
	})
	return s
}

// frame is one goroutine's state while it evaluates blocks of a plan:
// a block of up to blk values per slot, and where each slot's block is
// (its buffer, or an Array's memory when the Array is dense).
type frame struct {
	j    *job
	off  *[maxOps]int // the row's element offsets (forRows)
	i    int          // the block's first point in the row
	vals []unsafe.Pointer
	buf  []uint64 // blk 8-byte words per slot
	f32  [2][blk]float32
	cast castBuf
	r    acc // a reduction's running value
	more bool
}

func slotBuf[T array.Elem](f *frame, s int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(&f.buf[s*blk])), blk)
}

func val[T array.Elem](f *frame, s, m int) []T {
	return unsafe.Slice((*T)(f.vals[s]), m)
}

// fuseSink is what a plan does with its root's values: store them in
// dst, or fold them into a reduction.
type fuseSink interface {
	// block consumes the m values of the root slot s at the frame's block.
	block(f *frame, s, m int)
	// done ends chunk c of the frame.
	done(f *frame, c int)
}

type evalSink[T array.Elem] struct{ dst *array.Array[T] }

func (o *evalSink[T]) block(f *frame, s, m int) {
	str := f.j.str[0][0]
	store(val[T](f, s, m), f.j.base[0], f.off[0]+f.i*str, str)
}
func (o *evalSink[T]) done(*frame, int) {}

type reduceSink[T array.Elem] struct {
	op  reduceOp
	dst *array.Array[T] // nil: the *All forms
	v   T
}

func (o *reduceSink[T]) block(f *frame, s, m int) {
	reduceRun[T](o.op, kindOf[T](), &f.r, !f.more, f.vals[s], 0, 1, m, 0, 0)
	f.more = true
}

func (o *reduceSink[T]) done(f *frame, c int) {
	p := &f.j.part[c]
	p.f, p.u, p.idx = f.r.f, f.r.u, f.r.idx
	if o.op == redSum {
		p.f = f.r.pair.sum()
	}
}

// layOut sets n over p's leaves, iterating dst's shape, or for a
// reduction (or no dst) p's broadcast shape; it returns the reduction's
// sink, if p ends in one.
func layOut[T array.Elem](n *nest, p *fusePlan, dst *array.Array[T]) (*reduceSink[T], bool) {
	var sh shaped = denseShape(p.shape)
	rs, isReduce := p.out.(*reduceSink[T])
	if dst != nil && !isReduce {
		sh = dst
	}
	n.init(p.name, sh)
	for _, l := range p.leaves {
		n.add(p.name, sh, l.raw())
	}
	n.simplify()
	return rs, isReduce
}

// fuseHost runs p on the host's copies (mem nil) or on a Go device's
// memory: dst (nil for a reduction) and the leaves' elements are reached
// through their base addresses. It returns after the last block.
func fuseHost[T array.Elem](p *fusePlan, dst *array.Array[T], mem memFn) error {
	j := getJob()
	defer putJob(j)
	rs, isReduce := layOut(&j.nest, p, dst)
	total := j.total()
	if total == 0 && !isReduce {
		return nil
	}
	if total > 0 || dst != nil { // an empty expression into dst still follows the rule's copies
		for k, l := range p.leaves {
			b, err := l.base(mem)
			if err != nil {
				return err
			}
			j.base[k+1] = b
		}
	}
	if dst != nil && (total > 0 || isReduce) {
		d := dst
		if mem != nil {
			var err error
			if d, err = viewOn(mem, dst); err != nil {
				return err
			}
		}
		if !isReduce {
			if err := hostDst(j, d); err != nil {
				return err
			}
		} else {
			dst = d
		}
	}
	nw := 0
	if total > 0 {
		j.fuse = p
		j.body = fuseBody
		nw = j.parallel(total, max(1<<10, (1<<15)/max(1, len(p.steps))))
	}
	if !isReduce {
		return nil
	}
	if total == 0 {
		if err := reduceEmpty(rs.op, p.name, denseShape(p.shape)); err != nil {
			return err
		}
	}
	r := joinParts[T](rs.op, j, nw)
	rs.v = result[T](rs.op, kindOf[T](), &r, total)
	if rs.dst == nil {
		return nil
	}
	h, err := outHost(dst) // one element
	if err != nil {
		return err
	}
	h[0] = rs.v
	return nil
}

// fuseBody evaluates the points [lo, hi) of j's plan, block by block.
func fuseBody(j *job, chunk, lo, hi int) {
	p := j.fuse
	f := getFrame(p.nslots)
	f.j = j
	root := p.nslots - 1
	forRows(&j.nest, lo, hi, &j.offs[chunk], func(m int, off *[maxOps]int) {
		f.off = off
		for i := 0; i < m; i += blk {
			f.i = i
			n := min(blk, m-i)
			for _, s := range p.steps {
				s(f, n)
			}
			p.out.block(f, root, n)
		}
	})
	p.out.done(f, chunk)
	putFrame(f)
}

// joinParts joins the per-chunk partials of a reduction over all
// elements (reduceAll's), in chunk order.
func joinParts[T array.Elem](op reduceOp, j *job, nw int) acc {
	k := kindOf[T]()
	var r acc
	for c := 0; c < nw; c++ {
		p := &j.part[c]
		switch op {
		case redSum, redMean:
			if k == kFloat || k == kHalf {
				r.pair.add(p.f)
			} else {
				r.u += p.u
			}
		case redProd:
			if c == 0 {
				r.f, r.u = 1, 1
			}
			r.f *= p.f
			r.u *= p.u
		default:
			pr := acc{f: p.f, u: p.u}
			if c == 0 || better(op, k, fromAcc[T](k, &pr), fromAcc[T](k, &r)) {
				r.f, r.u, r.idx = p.f, p.u, p.idx
			}
		}
	}
	return r
}
