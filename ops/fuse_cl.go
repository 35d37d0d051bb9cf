package ops

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resident-go/resident/array"
)

// The OpenCL C of a fused expression, generated per expression structure
// and element types: one statement per node, each node's value in its
// type's compute type (float for Float16 and BFloat16, rounded to the
// type after every node, as the op-by-op kernels store it), with the
// definitions of the op-by-op kernels (cl/elementwise.cl, cl/math.cl,
// cl/cast.cl). Constants are kernel arguments. FP_CONTRACT is off, so no
// a·b + c becomes an fma the op-by-op kernels do not compute.
//
// The host never needs any of it: a plan's compile makes the host steps
// only, and plan.kernel, a second pass over the plan's nodes taken on an
// OpenCL device, makes the signature (the program's cache key) and the
// arguments at each call, and the source only when the program is built.

// fuseKernel is a plan's device form.
type fuseKernel struct {
	sig     sigBuilder
	args    []fuseArg // after dst: leaves and constants, in argument order
	nleaves int
	types   []array.Type // every slot's element type
	done    []bool       // by slot
	cl      *clPlan      // nil: the signature and arguments only
}

// kernel makes p's device form, its OpenCL parts into cl when cl is not
// nil: a walk in compile's order, so slots and leaves number alike.
func (p *fusePlan) kernel(cl *clPlan) *fuseKernel {
	k := &fuseKernel{cl: cl, types: make([]array.Type, p.nslots), done: make([]bool, p.nslots)}
	k.visit(p, p.root)
	return k
}

// visit adds n to k once and returns its slot.
func (k *fuseKernel) visit(p *fusePlan, n node) int {
	s := p.memo[n]
	if !k.done[s] {
		k.done[s] = true
		n.kernel(p, k, s)
	}
	return s
}

// source is the program of p (clPlan.source).
func (p *fusePlan) source(red reduceOp, isReduce, fp64, fence bool) string {
	return p.kernel(new(clPlan)).cl.source(red, isReduce, fp64, fence)
}

// The kernel methods: each adds its node's signature, arguments and
// statement, after its children's.

func (n *leafExpr[T]) kernel(p *fusePlan, k *fuseKernel, s int) {
	t := array.TypeOf[T]()
	k.types[s] = t
	l := p.index[n.a.Raw()]
	if l == k.nleaves { // the Array's first node: leaves are numbered in slot order
		k.nleaves++
		k.args = append(k.args, fuseArg{leaf: l})
		if k.cl != nil {
			k.cl.leaf(l, t)
		}
	}
	k.sig.slot(s).str("in").num(l).str(" ").typ(t)
	if k.cl != nil {
		k.cl.load(s, l, t)
	}
}

func (n *constExpr[T]) kernel(p *fusePlan, k *fuseKernel, s int) {
	t := array.TypeOf[T]()
	k.types[s] = t
	k.args = append(k.args, fuseArg{leaf: -1, b: scalarArg(n.v)})
	k.sig.slot(s).str("const ").typ(t)
	if k.cl != nil {
		k.cl.constant(s, t)
	}
}

func (n *binExpr[T]) kernel(p *fusePlan, k *fuseKernel, s int) {
	x, y := k.visit(p, n.x), k.visit(p, n.y)
	k.types[s] = array.TypeOf[T]()
	k.sig.slot(s).str(n.op.String()).str("(").ref(x).str(", ").ref(y).str(") ").typ(array.TypeOf[T]())
	if k.cl != nil {
		k.cl.binary(s, n.op, array.TypeOf[T](), x, y)
	}
}

func (n *unExpr[T]) kernel(p *fusePlan, k *fuseKernel, s int) {
	x := k.visit(p, n.x)
	k.types[s] = array.TypeOf[T]()
	k.sig.slot(s).str(n.op.String()).str("(").ref(x).str(") ").typ(array.TypeOf[T]())
	if k.cl != nil {
		k.cl.unary(s, n.op, array.TypeOf[T](), x)
	}
}

func (n *castExpr[D, S]) kernel(p *fusePlan, k *fuseKernel, s int) {
	x := k.visit(p, n.x)
	k.types[s] = array.TypeOf[D]()
	k.sig.slot(s).str(castName(n.sat)).str("(").ref(x).str(") ").typ(array.TypeOf[D]())
	if k.cl != nil {
		k.cl.cast(s, array.TypeOf[D](), array.TypeOf[S](), n.sat, x)
	}
}

// sigBuilder writes an expression's signature, its kernel cache key
// ("%0 = in0 uint8; %1 = CastWrap(%0) float32; ..."), without fmt: the
// device path builds it on every call.
type sigBuilder struct{ b []byte }

// slot starts slot s's entry.
func (b *sigBuilder) slot(s int) *sigBuilder {
	if len(b.b) > 0 {
		b.b = append(b.b, "; "...)
	}
	return b.ref(s).str(" = ")
}

func (b *sigBuilder) str(x string) *sigBuilder { b.b = append(b.b, x...); return b }

// ref writes a reference to slot s.
func (b *sigBuilder) ref(s int) *sigBuilder { return b.str("%").num(s) }

func (b *sigBuilder) num(n int) *sigBuilder { b.b = strconv.AppendInt(b.b, int64(n), 10); return b }

func (b *sigBuilder) typ(t array.Type) *sigBuilder { b.b, _ = t.AppendText(b.b); return b }

func (b *sigBuilder) String() string { return string(b.b) }

// clPlan collects a fused kernel's parts in the device pass.
type clPlan struct {
	params  []string // after dst: leaves and constants, in argument order
	body    strings.Builder
	helpers strings.Builder
	have    map[string]bool
	nleaves int
	leafT   []string // by leaf: its storage type
	slots   []clType
}

// fuseArg is a kernel argument after dst: leaf k (k ≥ 0) or a constant.
type fuseArg struct {
	leaf int
	b    []byte
}

func clOf(t array.Type) clType {
	ct, ok := clTypeOf(t)
	if !ok {
		panic(fmt.Sprintf("ops: no OpenCL type for %v", t)) // every array.Elem has one
	}
	return ct
}

// ld converts a storage value of ct to its compute type; st back; rnd
// rounds a compute value to ct's precision.
func (ct clType) ld(x string) string {
	switch ct.half {
	case 1:
		return "h2f(" + x + ")"
	case 2:
		return "bf2f(" + x + ")"
	}
	return x
}

func (ct clType) st(x string) string {
	switch ct.half {
	case 1:
		return "f2h(" + x + ")"
	case 2:
		return "f2bf(" + x + ")"
	}
	return x
}

func (ct clType) rnd(x string) string {
	if ct.half == 0 {
		return x
	}
	return ct.ld(ct.st(x))
}

func (c *clPlan) slot(s int, t array.Type) clType {
	ct := clOf(t)
	for len(c.slots) <= s {
		c.slots = append(c.slots, clType{})
	}
	c.slots[s] = ct
	return ct
}

func (c *clPlan) helper(name, src string) {
	if c.have == nil {
		c.have = map[string]bool{}
	}
	if !c.have[name] {
		c.have[name] = true
		c.helpers.WriteString(src)
	}
}

func (c *clPlan) leaf(k int, t array.Type) {
	c.nleaves = max(c.nleaves, k+1)
	for len(c.leafT) <= k {
		c.leafT = append(c.leafT, "")
	}
	c.leafT[k] = clOf(t).s
	c.params = append(c.params, fmt.Sprintf("__global const %s *in%d", clOf(t).s, k))
}

func (c *clPlan) load(s, k int, t array.Type) {
	ct := c.slot(s, t)
	fmt.Fprintf(&c.body, "\t\t%s v%d = %s;\n", ct.c, s, ct.ld(fmt.Sprintf("in%d[o%d]", k, k+1)))
}

func (c *clPlan) constant(s int, t array.Type) {
	ct := c.slot(s, t)
	c.params = append(c.params, fmt.Sprintf("%s c%d", ct.s, s))
	fmt.Fprintf(&c.body, "\t\t%s v%d = %s;\n", ct.c, s, ct.ld(fmt.Sprintf("c%d", s)))
}

// subst fills a template: $a, $b the operands, $C, $S, $W ct's compute,
// storage and wrapping types.
func subst(tmpl string, ct clType, a, b string) string {
	return strings.NewReplacer("$a", a, "$b", b, "$C", ct.c, "$S", ct.s, "$W", ct.w).Replace(tmpl)
}

// The ops' OpenCL C, by kind, is generated with the op-by-op kernels'
// (binary_gen.go, unary_gen.go: clBinFloat, clUnFloat, …).

func (c *clPlan) binary(s int, op BinaryOp, t array.Type, x, y int) {
	ct := c.slot(s, t)
	e, h := clBinFloat[op], clBinHelperFloat[op]
	switch {
	case ct.float:
	case ct.signed:
		e, h = clBinSigned[op], clBinHelperSigned[op]
	default:
		e, h = clBinUnsigned[op], clBinHelperUnsigned[op]
	}
	if h != "" {
		h = subst(h, ct, "", "")
		c.helper(h, h)
	}
	a, b := fmt.Sprintf("v%d", x), fmt.Sprintf("v%d", y)
	fmt.Fprintf(&c.body, "\t\t%s v%d = %s;\n", ct.c, s, ct.rnd(subst(e, ct, a, b)))
}

func (c *clPlan) unary(s int, op UnaryOp, t array.Type, x int) {
	ct := c.slot(s, t)
	var e string
	switch {
	case ct.float:
		e = clUnFloat[op]
	case ct.signed:
		e = clUnSigned[op]
	default:
		e = clUnUnsigned[op]
	}
	fmt.Fprintf(&c.body, "\t\t%s v%d = %s;\n", ct.c, s, ct.rnd(subst(e, ct, fmt.Sprintf("v%d", x), "")))
}

// cast converts slot x (type S) to D in slot s with cast.cl's rules, in
// a function per node.
func (c *clPlan) cast(s int, dt, st array.Type, sat bool, x int) {
	dc := c.slot(s, dt)
	sc := clOf(st)
	maxf := "INFINITY"
	switch {
	case dc.half == 1:
		maxf = "65504.0f"
	case dc.half == 2:
		maxf = "0x1.fep127f"
	case dt == array.TypeOf[float32]() && st == array.TypeOf[float64]():
		maxf = "FLT_MAX"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "inline %s cv%d(%s x) {\n", dc.c, s, sc.c)
	switch {
	case dc.float && sc.float:
		if sat {
			fmt.Fprintf(&b, "\tif (!isinf(x) && !isnan(x)) x = clamp(x, (%[1]s)-%[2]s, (%[1]s)%[2]s);\n", sc.c, maxf)
		}
		fmt.Fprintf(&b, "\treturn %s;\n", dc.rnd("("+dc.c+")x"))
	case dc.float:
		fmt.Fprintf(&b, "\t%s y = (%s)x;\n", dc.c, dc.c)
		if sat {
			fmt.Fprintf(&b, "\ty = clamp(y, (%[1]s)-%[2]s, (%[1]s)%[2]s);\n", dc.c, maxf)
		}
		fmt.Fprintf(&b, "\treturn %s;\n", dc.rnd("y"))
	case sc.float:
		if sat {
			fmt.Fprintf(&b, "\treturn isnan(x) ? (%[1]s)0 : convert_%[1]s_sat_rtz(x);\n", dc.s)
		} else {
			fmt.Fprintf(&b, `	if (isnan(x) || isinf(x)) return (%[1]s)0;
	if (fabs(x) < (%[2]s)0x1p63f) return (%[1]s)(long)x;
	%[2]s m = fmod(x, (%[2]s)0x1p64f);
	return (%[1]s)(ulong)(m < 0 ? m + (%[2]s)0x1p64f : m);
`, dc.s, sc.c)
		}
	default:
		if sat {
			fmt.Fprintf(&b, "\treturn convert_%s_sat(x);\n", dc.s)
		} else {
			fmt.Fprintf(&b, "\treturn (%s)x;\n", dc.s)
		}
	}
	b.WriteString("}\n")
	c.helper(fmt.Sprintf("cv%d", s), b.String())
	fmt.Fprintf(&c.body, "\t\t%s v%d = cv%d(v%d);\n", dc.c, s, s, x)
}

// Reductions at the end of a fused kernel: the accumulator type, its
// initial value, one step and the final conversion, by op (reduce.cl's).
func clReduceParts(op reduceOp, ct clType, fp64 bool) (accT, init, add, fin string) {
	switch op {
	case redSum:
		switch {
		case ct.float && fp64:
			accT, add = "double", "acc + (double)$x"
		case ct.float:
			accT, add = "float", "acc + (float)$x"
		case ct.signed:
			accT, add = "ulong", "acc + (ulong)(long)$x"
		default:
			accT, add = "ulong", "acc + (ulong)$x"
		}
		return accT, "0", add, ct.st("(" + ct.c + ")acc")
	case redMin, redMax:
		cmp, init := "<", "INFINITY"
		if op == redMax {
			cmp, init = ">", "-INFINITY"
		}
		if ct.float {
			add = fmt.Sprintf("(isnan(acc) ? acc : isnan($x) ? $x : ($x %s acc ? $x : acc))", cmp)
		} else {
			init = ct.max
			if op == redMax {
				init = ct.min
			}
			add = fmt.Sprintf("($x %s acc ? $x : acc)", cmp)
		}
		return ct.c, "(" + ct.c + ")" + init, add, ct.st("acc")
	}
	panic("ops: no fused form of " + reduceNames[op])
}

// denseW is how many elements a work-item of a fused reduction's dense
// path loads at once, per leaf one vector.
const denseW = 4

// dense is a fused reduction's element loop. Where every leaf is one
// contiguous run starting at a multiple of denseW elements (a runtime
// test: one program serves every layout), each work-item loads denseW
// elements of each leaf as one vector and adds them in order; one element
// at a time, with the N-D offsets, the loop reached 0.4 TB/s on the H200
// (the mixed chain's uint8 cast·scale·sum, in the stream trace). body is
// an element's statements, its leaves read at offs (the N-D offsets),
// which the general loop and the dense path's ragged end compute.
func (c *clPlan) dense(K int, offs, body string) string {
	one := offs + body
	var b strings.Builder
	cond := []string{"s.rank == 1"}
	for k := 1; k < K; k++ {
		cond = append(cond, fmt.Sprintf("s.st[%d][0] == 1 && s.off[%d] %% %d == 0", k, k, denseW))
	}
	fmt.Fprintf(&b, "\tif (%s) {\n", strings.Join(cond, " && "))
	fmt.Fprintf(&b, "\t\tlong nv_ = s.n / %d;\n", denseW)
	b.WriteString("\t\tfor (long b_ = get_global_id(0); b_ < nv_; b_ += get_global_size(0)) {\n")
	for k := 1; k < K; k++ {
		t := c.leafT[k-1]
		fmt.Fprintf(&b, "\t\t%[1]s%[2]d x%[3]d_ = ((__global const %[1]s%[2]d *)(in%[3]d + s.off[%[4]d]))[b_];\n", t, denseW, k-1, k)
	}
	for _, f := range []string{"x", "y", "z", "w"}[:denseW] {
		lb := body
		for k := 1; k < K; k++ {
			lb = strings.ReplaceAll(lb, fmt.Sprintf("in%d[o%d]", k-1, k), fmt.Sprintf("x%d_.%s", k-1, f))
		}
		fmt.Fprintf(&b, "\t\t{\n%s\t\t}\n", lb)
	}
	b.WriteString("\t\t}\n")
	fmt.Fprintf(&b, "\t\tfor (long i = nv_ * %d + get_global_id(0); i < s.n; i += get_global_size(0)) {\n%s\t\t}\n", denseW, one)
	fmt.Fprintf(&b, "\t} else {\n\t\tfor (long i = get_global_id(0); i < s.n; i += get_global_size(0)) {\n%s\t\t}\n\t}\n", one)
	return b.String()
}

// source is the program of a fused expression: kernel fuse_ew storing
// the root's value in d (red < 0), or, reducing it with red, fuse_one
// (one launch: the last work-group to finish joins the partials, with
// cl/lastgroup.cl's LAST_GROUP, as reduce.cl's red_*_one) and the
// two-pass fuse_part and fuse_fin. fence puts PTX's membar.gl in
// GLOBAL_FENCE (fenceDefines).
func (c *clPlan) source(red reduceOp, isReduce, fp64, fence bool) string {
	root := len(c.slots) - 1
	rt := c.slots[root]
	K := c.nleaves + 1
	var b strings.Builder
	b.WriteString(clCommon)
	b.WriteString("#pragma OPENCL FP_CONTRACT OFF\n")
	b.WriteString(c.helpers.String())
	fmt.Fprintf(&b, "typedef struct { long n, rank; long ext[8]; long st[%d][8]; long off[%d]; } fnd_t;\n", K, K)
	params := strings.Join(c.params, ", ")
	if params != "" {
		params += ", "
	}
	// offsets: o_k of operand k at point i (dimension 0 fastest)
	var offs strings.Builder
	offs.WriteString("\t\tlong r_ = i;\n")
	for k := 0; k < K; k++ {
		fmt.Fprintf(&offs, "\t\tlong o%d = s.off[%d];\n", k, k)
	}
	offs.WriteString("\t\tint l_ = (int)s.rank - 1;\n\t\tfor (int k_ = 0; k_ < l_; k_++) {\n\t\t\tlong c_ = r_ % s.ext[k_]; r_ /= s.ext[k_];\n")
	for k := 0; k < K; k++ {
		fmt.Fprintf(&offs, "\t\t\to%d += c_ * s.st[%d][k_];\n", k, k)
	}
	offs.WriteString("\t\t}\n")
	for k := 0; k < K; k++ {
		fmt.Fprintf(&offs, "\t\to%d += r_ * s.st[%d][l_];\n", k, k)
	}
	if !isReduce {
		fmt.Fprintf(&b, "__kernel void fuse_ew(__global %s *d, %sfnd_t s) {\n", rt.s, params)
		b.WriteString("\tfor (long i = get_global_id(0); i < s.n; i += get_global_size(0)) {\n")
		b.WriteString(offs.String())
		b.WriteString(c.body.String())
		fmt.Fprintf(&b, "\t\td[o0] = %s;\n\t}\n}\n", rt.st(fmt.Sprintf("v%d", root)))
		return b.String()
	}
	b.WriteString(fenceDefines(fence))
	b.WriteString(clLastGroup)
	accT, init, add, fin := clReduceParts(red, rt, fp64)
	step := strings.ReplaceAll(add, "$x", fmt.Sprintf("v%d", root))
	fmt.Fprintf(&b, "inline %[1]s fuse_join(%[1]s acc, %[1]s q) { return %[2]s; }\n", accT, strings.ReplaceAll(add, "$x", "q"))
	fmt.Fprintf(&b, "inline %s fuse_end(%s acc) { return %s; }\n", rt.s, accT, fin)
	// the work-group's share of the elements, joined into lm[0]
	var part strings.Builder
	fmt.Fprintf(&part, "\t%s acc = %s;\n", accT, init)
	part.WriteString(c.dense(K, offs.String(), c.body.String()+fmt.Sprintf("\t\tacc = %s;\n", step)))
	part.WriteString("\tlong lid = get_local_id(0), ls = get_local_size(0), g = get_group_id(0);\n")
	part.WriteString("\tJOIN_GROUP(fuse_join, lm, lid, ls, acc)\n")
	fmt.Fprintf(&b, "__kernel void fuse_one(__global %s *d, long doff, %sfnd_t s, long G, __global %s *part, __global int *cnt, __local %s *lm) {\n",
		rt.s, params, accT, accT)
	b.WriteString("\t__local int last;\n")
	b.WriteString(part.String())
	fmt.Fprintf(&b, "\tLAST_GROUP(%s, %s, fuse_join, part, cnt, 0, g, G, lm, lid, ls, acc, last, d[doff] = fuse_end(lm[0]))\n}\n", accT, init)
	fmt.Fprintf(&b, "__kernel void fuse_part(%sfnd_t s, __global %s *part, __local %s *lm) {\n", params, accT, accT)
	b.WriteString(part.String())
	b.WriteString("\tif (lid == 0) part[g] = lm[0];\n}\n")
	fmt.Fprintf(&b, `__kernel void fuse_fin(__global %[2]s *d, long doff, __global const %[1]s *part, long G) {
	if (get_global_id(0) != 0) return;
	%[1]s acc = part[0];
	for (long g = 1; g < G; g++) acc = fuse_join(acc, part[g]);
	d[doff] = fuse_end(acc);
}
`, accT, rt.s)
	return b.String()
}
