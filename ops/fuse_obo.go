package ops

import (
	"github.com/resident-go/resident/array"
)

// Op-by-op evaluation of an Expr: one ops call per node, each placed by
// the rule, into temporary Arrays of the node's broadcast shape that are
// closed at the end. Eval falls back to it where no fused form applies;
// the tests compare the fused forms with it.

// oboRun holds one op-by-op evaluation's temporaries.
type oboRun struct {
	op   string
	tmps []interface{ Close() error }
}

func (r *oboRun) close() {
	for _, t := range r.tmps {
		t.Close()
	}
}

// oboVal is a node's value: an Array, or a Go value for a node without
// Arrays below it (folded on the host).
type oboVal[T array.Elem] struct {
	a       *array.Array[T]
	v       T
	isConst bool
}

// oboOut is where node n writes: into when given (the root of Eval), else
// a new temporary of n's broadcast shape.
func oboOut[T array.Elem](r *oboRun, n node, into *array.Array[T]) *array.Array[T] {
	if into != nil {
		return into
	}
	a := array.New[T](n.bcast(r.op, nil)...)
	r.tmps = append(r.tmps, a)
	return a
}

// constVal is v as n's value: stored in into when given.
func constVal[T array.Elem](v T, into *array.Array[T]) (oboVal[T], error) {
	if into != nil {
		return oboVal[T]{a: into}, Fill(into, v)
	}
	return oboVal[T]{v: v, isConst: true}, nil
}

// fold1 runs f on a one-element host-only Array holding v and returns
// its element afterwards: a constant subexpression, computed on the host.
func fold1[T array.Elem](v T, f func(a *array.Array[T]) error) (T, error) {
	s := []T{v}
	err := f(array.FromSlice(s))
	return s[0], err
}

func (n *leafExpr[T]) obo(r *oboRun, into *array.Array[T]) (oboVal[T], error) {
	if into != nil {
		return oboVal[T]{a: into}, Copy(into, n.a)
	}
	return oboVal[T]{a: n.a}, nil
}

func (n *constExpr[T]) obo(r *oboRun, into *array.Array[T]) (oboVal[T], error) {
	return constVal(n.v, into)
}

func (n *binExpr[T]) obo(r *oboRun, into *array.Array[T]) (oboVal[T], error) {
	x, err := n.x.obo(r, nil)
	if err != nil {
		return x, err
	}
	y, err := n.y.obo(r, nil)
	if err != nil {
		return y, err
	}
	if x.isConst && y.isConst {
		v, err := fold1(x.v, func(a *array.Array[T]) error { return BinaryScalar(a, a, y.v, n.op) })
		if err != nil {
			return oboVal[T]{}, err
		}
		return constVal(v, into)
	}
	out := oboOut(r, n, into)
	switch {
	case x.isConst:
		err = ScalarBinary(out, x.v, y.a, n.op)
	case y.isConst:
		err = BinaryScalar(out, x.a, y.v, n.op)
	default:
		err = Binary(out, x.a, y.a, n.op)
	}
	return oboVal[T]{a: out}, err
}

func (n *unExpr[T]) obo(r *oboRun, into *array.Array[T]) (oboVal[T], error) {
	x, err := n.x.obo(r, nil)
	if err != nil {
		return x, err
	}
	if x.isConst {
		v, err := fold1(x.v, func(a *array.Array[T]) error { return Unary(a, a, n.op) })
		if err != nil {
			return oboVal[T]{}, err
		}
		return constVal(v, into)
	}
	out := oboOut(r, n, into)
	return oboVal[T]{a: out}, Unary(out, x.a, n.op)
}

func (n *castExpr[D, S]) obo(r *oboRun, into *array.Array[D]) (oboVal[D], error) {
	x, err := n.x.obo(r, nil)
	if err != nil {
		return oboVal[D]{}, err
	}
	if x.isConst {
		d := []D{0}
		if err := cast(array.FromSlice(d), array.FromSlice([]S{x.v}), n.sat); err != nil {
			return oboVal[D]{}, err
		}
		return constVal(d[0], into)
	}
	out := oboOut(r, n, into)
	return oboVal[D]{a: out}, cast(out, x.a, n.sat)
}

// oboReduce is a reduction of root's value over all its elements, op by
// op: the value into a temporary, then its sum, least or greatest element.
func oboReduce[T array.Elem](op reduceOp, name string, root tnode[T]) (T, error) {
	r := &oboRun{op: name}
	defer r.close()
	x, err := root.obo(r, nil)
	if err != nil {
		return 0, err
	}
	if x.isConst {
		return x.v, nil // no Arrays: one element
	}
	switch op {
	case redMin:
		return reduceAllValue(redMin, x.a)
	case redMax:
		return reduceAllValue(redMax, x.a)
	}
	return reduceAllValue(redSum, x.a)
}
