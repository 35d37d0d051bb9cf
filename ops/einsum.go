package ops

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resident-go/resident/array"
)

// Einsum returns NumPy's np.einsum(spec, xs...): the Einstein summation
// that spec writes in NumPy's words, subscripts in NumPy's axis order
// (the first letter of an operand's subscripts is its outermost axis):
//
//	"ij,jk->ik"      matrix product       "bij,bjk->bik"  batched product
//	"ij->ji"         transpose            "ii->i", "ii"   diagonal, trace
//	"ij->", "ij->j"  sums                 "i,i", "i,j"    inner, outer
//	"...ij,...jk"    broadcast batches    "ij,ij->ij"     elementwise
//
// Letters are a–z and A–Z; "..." stands for the axes an operand has
// beyond its letters, broadcast across operands as NumPy does. Without
// "->" the output is "..." then the letters that occur once, sorted
// (ASCII, as NumPy). A letter's extents must match, or be 1 (broadcast).
//
// The result is always a new Array (NumPy sometimes returns a view). Its
// work runs where ops run: operands on a device stay there, each
// contraction of two operands is one MatMul for float32 and float64
// (batched over the letters both keep), else a broadcast product and a
// Sum; three or more operands contract left to right. Diagonals ("ii")
// multiply by an identity mask made on the host and moved to the
// operand's device with On (explicit, so allowed under the guard).
// Sums of floats accumulate as Sum's do. A malformed spec, or operands
// it does not fit, panics with array.ErrShape, as every shape mistake.
func Einsum[T array.Elem](spec string, xs ...*array.Array[T]) (*array.Array[T], error) {
	raws := make([]*array.Raw, len(xs))
	for i, x := range xs {
		raws[i] = rawOf(x)
	}
	if err := closedOperand("Einsum", nil, raws...); err != nil {
		return nil, err
	}
	ranks := make([]int, len(xs))
	for i, x := range xs {
		ranks[i] = x.Rank()
	}
	p := parseEinsum(spec, ranks)
	e := &einsum[T]{spec: spec}
	defer e.closeAll()
	terms := make([]*einTerm[T], len(xs))
	for i, x := range xs {
		terms[i] = &einTerm[T]{x: x, l: p.ins[i]}
	}
	e.broadcast(terms)
	for i, t := range terms {
		// Keep what the output or another operand names.
		others := slices.Concat(terms[:i:i], terms[i+1:])
		if err := e.reduceOne(t, keepSet(p.out, others)); err != nil {
			return nil, err
		}
	}
	for len(terms) > 1 {
		keep := keepSet(p.out, terms[2:])
		var want []byte // the last contraction may write the result itself
		if len(terms) == 2 {
			want = p.out
		}
		t, err := e.contract(terms[0], terms[1], keep, want)
		if err != nil {
			return nil, err
		}
		terms = append([]*einTerm[T]{t}, terms[2:]...)
	}
	t := terms[0]
	if t.result {
		return t.x, nil
	}
	if err := e.reduceOne(t, keepSet[T](p.out, nil)); err != nil {
		return nil, err
	}
	v := t.x.Permute(permFor(t.l, p.out)...)
	return run(array.New[T](v.Extents()...), func(d *array.Array[T]) error { return Copy(d, v) })
}

// einSpec is a parsed spec: each operand's labels (NumPy order, one byte
// per axis; the axes of "..." get labels of 128 and up) and the output's.
type einSpec struct {
	ins [][]byte
	out []byte
}

// parseEinsum parses spec for operands of the given ranks, panicking with
// array.ErrShape where the spec cannot be theirs.
func parseEinsum(spec string, ranks []int) einSpec {
	bad := func(format string, args ...any) {
		panic(fmt.Errorf("%w: ops.Einsum(%q): %s", array.ErrShape, spec, fmt.Sprintf(format, args...)))
	}
	lhs, rhs, explicit := strings.Cut(spec, "->")
	if strings.Contains(rhs, "->") {
		bad("more than one \"->\"")
	}
	if len(ranks) == 0 {
		bad("no operands")
	}
	subs := strings.Split(lhs, ",")
	if len(subs) != len(ranks) {
		bad("%d operand subscripts for %d operands", len(subs), len(ranks))
	}
	// letters returns a subscript's labels and whether it has "...".
	letters := func(s string, what string) ([]byte, int, bool) {
		dots := strings.Index(s, "...")
		if dots >= 0 {
			if strings.Contains(s[dots+3:], "...") {
				bad("%s has \"...\" twice", what)
			}
			s = s[:dots] + s[dots+3:]
		}
		for i := 0; i < len(s); i++ {
			if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				bad("%s: %q is not a letter (a–z, A–Z) nor part of \"...\"", what, c)
			}
		}
		return []byte(s), dots, dots >= 0
	}
	nell := 0 // axes "..." stands for: the most of any operand
	type sub struct {
		l    []byte
		dots int
		has  bool
	}
	parsed := make([]sub, len(subs))
	for i, s := range subs {
		l, dots, has := letters(s, fmt.Sprintf("operand %d's subscripts %q", i, s))
		if !has && len(l) != ranks[i] {
			bad("operand %d has %d axes but %d subscripts %q", i, ranks[i], len(l), s)
		}
		if has && len(l) > ranks[i] {
			bad("operand %d has %d axes but %d letters besides \"...\" in %q", i, ranks[i], len(l), s)
		}
		if has {
			nell = max(nell, ranks[i]-len(l))
		}
		parsed[i] = sub{l, dots, has}
	}
	// The axes of "..." are labelled 128 + k, aligned on the right as
	// NumPy broadcasts them.
	ell := make([]byte, nell)
	for k := range ell {
		ell[k] = byte(128 + k)
	}
	var sp einSpec
	for i, s := range parsed {
		if !s.has {
			sp.ins = append(sp.ins, s.l)
			continue
		}
		n := ranks[i] - len(s.l)
		l := slices.Concat(s.l[:s.dots], ell[nell-n:], s.l[s.dots:])
		sp.ins = append(sp.ins, l)
	}
	count := map[byte]int{}
	for _, l := range sp.ins {
		for _, c := range l {
			count[c]++
		}
	}
	if !explicit {
		var once []byte
		for c, n := range count {
			if n == 1 && c < 128 {
				once = append(once, c)
			}
		}
		slices.Sort(once)
		sp.out = slices.Concat(ell, once)
		return sp
	}
	l, dots, has := letters(rhs, fmt.Sprintf("the output %q", rhs))
	if has {
		l = slices.Concat(l[:dots], ell, l[dots:])
	} else if nell > 0 {
		bad("the operands' \"...\" stand for %d axes but the output has no \"...\"", nell)
	}
	for i, c := range l {
		if slices.Contains(l[:i], c) {
			bad("the output names %q twice", c)
		}
		if count[c] == 0 {
			bad("the output's %q is in no operand", c)
		}
	}
	sp.out = l
	return sp
}

// einTerm is an operand in flight: its Array and its labels; result:
// x is Einsum's result, a new Array labelled as the output.
type einTerm[T array.Elem] struct {
	x      *array.Array[T]
	l      []byte
	result bool
}

// einsum holds a call's temporaries, closed when it returns.
type einsum[T array.Elem] struct {
	spec string
	tmp  []*array.Array[T]
}

func (e *einsum[T]) own(x *array.Array[T]) *array.Array[T] { e.tmp = append(e.tmp, x); return x }

func (e *einsum[T]) closeAll() {
	for _, x := range e.tmp {
		x.Close()
	}
}

func (e *einsum[T]) bad(format string, args ...any) {
	panic(fmt.Errorf("%w: ops.Einsum(%q): %s", array.ErrShape, e.spec, fmt.Sprintf(format, args...)))
}

// broadcast checks every label's extents (equal, or 1) and squeezes the
// axes of extent 1 whose label is longer elsewhere: an operand constant
// along a label is one without it, which is NumPy's broadcast.
func (e *einsum[T]) broadcast(ts []*einTerm[T]) {
	ext := map[byte]int{}
	for i, t := range ts {
		sh := t.x.Shape()
		for k, c := range t.l {
			n := sh[k]
			if j := slices.Index(t.l, c); j < k && sh[j] != n {
				e.bad("operand %d's repeated %s has extents %d and %d (a diagonal wants them equal)", i, einLabel(c), sh[j], n)
			}
			if m, ok := ext[c]; ok && m != n && m != 1 && n != 1 {
				e.bad("%s has extents %d and %d (they must match, or one be 1)", einLabel(c), m, n)
			}
			if _, ok := ext[c]; !ok || ext[c] == 1 {
				ext[c] = n
			}
		}
	}
	for _, t := range ts {
		sh := t.x.Shape()
		var axes []array.Axis
		var l []byte
		for k, c := range t.l {
			if sh[k] == 1 && ext[c] != 1 {
				axes = append(axes, array.Axis(k))
				continue
			}
			l = append(l, c)
		}
		if len(axes) > 0 {
			t.x, t.l = t.x.Squeeze(axes...), l
		}
	}
}

// einLabel names a label in messages.
func einLabel(c byte) string {
	if c >= 128 {
		return fmt.Sprintf("axis %d of \"...\"", c-128)
	}
	return fmt.Sprintf("%q", c)
}

// reduceOne takes t's diagonals (a label twice) and sums away the labels
// not in keep.
func (e *einsum[T]) reduceOne(t *einTerm[T], keep map[byte]bool) error {
	for k := 0; k < len(t.l); k++ {
		j := slices.Index(t.l, t.l[k])
		if j == k {
			continue
		}
		// Multiply by the identity over axes j and k, then sum axis k.
		sh := t.x.Shape()
		mshape := make([]int, len(sh))
		for i := range mshape {
			mshape[i] = 1
		}
		mshape[j], mshape[k] = sh[j], sh[k]
		eye, err := array.Eye[T](sh[j], sh[k], 0).Reshape(mshape...)
		if err != nil {
			return err
		}
		e.own(eye)
		if d := t.x.Device(); d != nil {
			if err := On(d, eye); err != nil {
				return err
			}
		}
		m, err := New2Op(Binary, t.x, eye, OpMul)
		if err != nil {
			return err
		}
		s, err := NewReduce(Sum, e.own(m), array.Axis(k))
		if err != nil {
			return err
		}
		t.x, t.l = e.own(s), slices.Delete(slices.Clone(t.l), k, k+1)
		k--
	}
	for k := len(t.l) - 1; k >= 0; k-- {
		if keep[t.l[k]] {
			continue
		}
		s, err := NewReduce(Sum, t.x, array.Axis(k))
		if err != nil {
			return err
		}
		t.x, t.l = e.own(s), slices.Delete(slices.Clone(t.l), k, k+1)
	}
	return nil
}

// contract is a and b's product summed over the labels they share that
// keep lacks: one batched matrix product of (batch, M, K) by (batch, K,
// N), where batch are the shared labels kept, M and N the labels of one
// operand only, K the ones summed. When want (the output's labels) is
// batch, then a's, then b's labels, each group in any order, the product
// is written straight into the result, with no copy after.
func (e *einsum[T]) contract(a, b *einTerm[T], keep map[byte]bool, want []byte) (*einTerm[T], error) {
	var batch, ka, kb, sum []byte
	for _, c := range a.l {
		switch {
		case !slices.Contains(b.l, c):
			ka = append(ka, c)
		case keep[c]:
			batch = append(batch, c)
		default:
			sum = append(sum, c)
		}
	}
	for _, c := range b.l {
		if !slices.Contains(a.l, c) {
			kb = append(kb, c)
		}
	}
	ext := map[byte]int{}
	for _, t := range [2]*einTerm[T]{a, b} {
		for k, n := range t.x.Shape() {
			ext[t.l[k]] = n
		}
	}
	prod := func(l []byte) int {
		n := 1
		for _, c := range l {
			n *= ext[c]
		}
		return n
	}
	final := want != nil && len(want) == len(batch)+len(ka)+len(kb) &&
		sameSet(want[:len(batch)], batch) && sameSet(want[len(batch):len(batch)+len(ka)], ka)
	if final {
		batch, ka, kb = want[:len(batch)], want[len(batch):len(batch)+len(ka)], want[len(batch)+len(ka):]
	}
	nb, m, n, k := prod(batch), prod(ka), prod(kb), prod(sum)
	l := slices.Concat(batch, ka, kb)
	shape := make([]int, len(l))
	for i, c := range l {
		shape[i] = ext[c]
	}
	out := array.New[T](reversed(shape)...)
	if !final {
		e.own(out)
	}
	ok := false
	defer func() {
		if !ok && final {
			out.Close()
		}
	}()
	// One batch is a plain product: 2-D views take MatMul's unbatched path.
	bs := func(dims ...int) []int {
		if nb == 1 {
			return dims
		}
		return append([]int{nb}, dims...)
	}
	dst, err := out.Reshape(bs(m, n)...)
	if err != nil {
		return nil, err
	}
	if mm := matmulFor[T](); mm != nil {
		a3, err := e.shaped(a, slices.Concat(batch, ka, sum), bs(m, k)...)
		if err != nil {
			return nil, err
		}
		b3, err := e.shaped(b, slices.Concat(batch, sum, kb), bs(k, n)...)
		if err != nil {
			return nil, err
		}
		if err := mm(dst, a3, b3); err != nil {
			return nil, err
		}
	} else {
		a4, err := e.shaped(a, slices.Concat(batch, ka, sum), bs(m, 1, k)...)
		if err != nil {
			return nil, err
		}
		b4, err := e.shaped(b, slices.Concat(batch, kb, sum), bs(1, n, k)...)
		if err != nil {
			return nil, err
		}
		p, err := New2Op(Binary, a4, b4, OpMul)
		if err != nil {
			return nil, err
		}
		if err := Sum(dst, e.own(p), -1); err != nil {
			return nil, err
		}
	}
	ok = true
	return &einTerm[T]{x: out, l: l, result: final}, nil
}

// sameSet reports whether x and y hold the same labels.
func sameSet(x, y []byte) bool {
	return len(x) == len(y) && !slices.ContainsFunc(x, func(c byte) bool { return !slices.Contains(y, c) })
}

// shaped is t's Array with its labels in the order l, reshaped to shape:
// a view where the layout allows it, else a dense copy (made where t is).
func (e *einsum[T]) shaped(t *einTerm[T], l []byte, shape ...int) (*array.Array[T], error) {
	v := t.x.Permute(permFor(t.l, l)...)
	if r, err := v.Reshape(shape...); err == nil {
		return r, nil
	}
	c, err := run(array.New[T](v.Extents()...), func(d *array.Array[T]) error { return Copy(d, v) })
	if err != nil {
		return nil, err
	}
	return e.own(c).Reshape(shape...)
}

// permFor is the Permute order that puts an Array labelled from in the
// label order to (NumPy order; Permute speaks of dimensions).
func permFor(from, to []byte) []int {
	r := len(from)
	order := make([]int, r)
	for j, c := range to {
		order[r-1-j] = r - 1 - slices.Index(from, c)
	}
	return order
}

// keepSet is the labels of out and of the terms ts: those a reduction
// must keep.
func keepSet[T array.Elem](out []byte, ts []*einTerm[T]) map[byte]bool {
	s := make(map[byte]bool, len(out))
	for _, l := range append([][]byte{out}, labelsOf(ts)...) {
		for _, c := range l {
			s[c] = true
		}
	}
	return s
}

func labelsOf[T array.Elem](ts []*einTerm[T]) [][]byte {
	ls := make([][]byte, len(ts))
	for i, t := range ts {
		ls[i] = t.l
	}
	return ls
}

// matmulFor is MatMul for T where T is float32 or float64, else nil.
func matmulFor[T array.Elem]() func(dst, a, b *array.Array[T]) error {
	var f any
	switch any(*new(T)).(type) {
	case float32:
		f = MatMul[float32]
	case float64:
		f = MatMul[float64]
	default:
		return nil
	}
	return f.(func(dst, a, b *array.Array[T]) error)
}
