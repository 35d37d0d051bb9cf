package ops

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
)

// TestAlongNumPy: a seeded subset of the Along family's kinds of cases
// (same layout and residency generators, every other one on the OpenCL
// device) computed again by NumPy and compared, like TestDiffNumPy:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run AlongNumPy ./ops -diff.npn 200

const npAlongScript = `
import sys, json
import numpy as np
def topk(x, k):
    # descending, ties lower index first
    o = sorted(range(len(x)), key=lambda i: (-x[i].item(), i))
    return np.array(o[:k], dtype=np.int64)
out = []
for c in json.load(sys.stdin):
    x = np.array(c['ins'][0]['data'], dtype=c['ins'][0]['dtype']).reshape(c['ins'][0]['shape'])
    op, ax, k = c['op'], c['axis'], c.get('a0', 0)
    f = x.astype(np.float64)
    with np.errstate(all='ignore'):
        if op == 'var':
            r = np.var(f, axis=ax, ddof=k)
        elif op == 'std':
            r = np.std(f, axis=ax, ddof=k)
        elif op == 'norm':
            r = np.linalg.norm(f, ord=[1, 2, np.inf][k], axis=ax)
        elif op == 'logsumexp':
            m = np.max(f, axis=ax, keepdims=True)
            r = np.squeeze(m, axis=ax) + np.log(np.sum(np.exp(f - m), axis=ax))
        elif op == 'count_nonzero':
            r = np.count_nonzero(x, axis=ax)
        elif op in ('any', 'all'):
            r = getattr(np, op)(x, axis=ax)
        elif op in ('cumsum', 'cumprod'):
            r = getattr(np, op)(f if x.dtype.kind == 'f' else x, axis=ax)
        elif op == 'sort':
            r = np.sort(x, axis=ax, kind='stable')
        elif op == 'argsort':
            r = np.argsort(x, axis=ax, kind='stable')
        elif op == 'topk':
            r = np.apply_along_axis(topk, ax, x, k) if x.shape[ax] > 0 else np.zeros(c['out'], np.int64)
        elif op == 'softmax':
            e = np.exp(f - np.max(f, axis=ax, keepdims=True))
            r = e / np.sum(e, axis=ax, keepdims=True)
        else:
            raise ValueError(op)
    r = np.asarray(r).astype(c['odtype']).reshape(c['out'])
    out.append([str(v) for v in r.ravel().tolist()])
json.dump(out, sys.stdout)
`

func npAlongMake[T array.Elem](g *dgen) *npCase {
	c := &npCase{tol: 4 * devTol[T]()}
	ext := drawExt(g, 3)
	if len(ext) == 0 {
		ext = []int{2 + g.n(8)}
	}
	for i := range ext {
		ext[i] = max(ext[i], 1)
	}
	n := len(ext)
	dim := g.n(n)
	ax := n - 1 - dim
	names := []string{"var", "std", "norm", "logsumexp", "count_nonzero", "any", "all", "cumsum", "cumprod", "sort", "argsort", "topk", "softmax"}
	k := g.n(len(names))
	if !isFloatT[T]() && (k <= 3 || k == 12) {
		k = 4 + g.n(8)
	}
	v := valSmall
	if k == 8 {
		v = valUnit
	}
	a := newOperand[T](g, ext, v)
	c.Op, c.Axis, c.Ins = names[k], &ax, []npArr{npOf(a)}
	rext := slices.Delete(slices.Clone(ext), dim, dim+1)
	base := int64(a.a.Dim(dim).Min)
	switch c.Op {
	case "var", "std", "norm", "logsumexp":
		dst := newOperand[T](g, rext, valSmall)
		switch k {
		case 0, 1:
			c.A0 = g.n(2)
			g.must([]func(d, a *array.Array[T], ax array.Axis, ddof int) error{Var[T], Std[T]}[k](dst.a, a.a, axisOf(dim), c.A0))
		case 2:
			c.A0 = g.n(3)
			g.must(Norm(dst.a, a.a, axisOf(dim), NormOrd(c.A0)))
		default:
			g.must(LogSumExp(dst.a, a.a, axisOf(dim)))
		}
		npResult(g, c, dst.a)
	case "count_nonzero":
		dst := newOperand[int64](g, rext, valSmall)
		g.must(CountNonzero(dst.a, a.a, axisOf(dim)))
		npResult(g, c, dst.a)
	case "any", "all":
		dst := newOperand[uint8](g, rext, valSmall)
		if c.Op == "any" {
			g.must(Any(dst.a, a.a, axisOf(dim)))
		} else {
			g.must(All(dst.a, a.a, axisOf(dim)))
		}
		npResult(g, c, dst.a)
		c.ODtype = "uint8"
	case "cumsum", "cumprod", "sort", "softmax":
		dst := newOperand[T](g, ext, valSmall)
		switch c.Op {
		case "cumsum":
			g.must(CumSum(dst.a, a.a, axisOf(dim)))
			c.tol *= float64(ext[dim])
		case "cumprod":
			g.must(CumProd(dst.a, a.a, axisOf(dim)))
			c.tol *= float64(ext[dim])
		case "sort":
			g.must(Sort(dst.a, a.a, axisOf(dim)))
			c.tol = 0
		default:
			g.must(Softmax(dst.a, a.a, axisOf(dim)))
		}
		npResult(g, c, dst.a)
	default: // argsort, topk: coordinates from 0, as NumPy's
		kext := slices.Clone(ext)
		if c.Op == "topk" {
			c.A0 = 1 + g.n(ext[dim])
			kext[dim] = c.A0
			g.must(func() error {
				dst := newOperand[int64](g, kext, valSmall)
				c.Out = nil
				err := TopK(nil, dst.a, a.a, axisOf(dim))
				g.must(err)
				g.must(BinaryScalar(dst.a, dst.a, -base, OpAdd))
				npResult(g, c, dst.a)
				return nil
			}())
			return c
		}
		dst := newOperand[int64](g, kext, valSmall)
		g.must(ArgSort(dst.a, a.a, axisOf(dim)))
		g.must(BinaryScalar(dst.a, dst.a, -base, OpAdd))
		npResult(g, c, dst.a)
	}
	return c
}

type npAlongRunner interface{ make(g *dgen) *npCase }
type npa[T array.Elem] struct{}

func (npa[T]) make(g *dgen) *npCase { return npAlongMake[T](g) }

var npAlongTypes = []npAlongRunner{npa[int8]{}, npa[int16]{}, npa[int32]{}, npa[int64]{}, npa[uint8]{}, npa[uint16]{},
	npa[uint32]{}, npa[uint64]{}, npa[float32]{}, npa[float64]{}, npa[array.Float16]{},
	npa[float32]{}, npa[float64]{}, npa[array.Float16]{}, npa[float32]{}, npa[float64]{}, npa[array.Float16]{}} // floats more often: most ops want them

func TestAlongNumPy(t *testing.T) {
	needNumPy(t)
	seed := seedOf(t)
	d, err := opencl.Default()
	if err != nil {
		d = nil
	}
	var cases []*npCase
	for i := range *diffNPN {
		sub := &failLog{TB: t}
		g := &dgen{tb: sub, r: rand.New(rand.NewPCG(seed, 2<<32+uint64(i))), d: d, plain: true}
		if i%2 == 1 || d == nil {
			g.d = nil
		} else {
			g.fp64 = d.Caps().FP64
		}
		var c *npCase
		func() {
			defer func() {
				if r := recover(); r != nil && r != errCaseFatal {
					sub.Errorf("panic: %v", r)
				}
			}()
			c = npAlongTypes[g.n(len(npAlongTypes))].make(g)
		}()
		if sub.failed || c == nil {
			t.Fatalf("case %d: %v\n\t%v", i, sub.msgs, g.log)
		}
		c.desc = fmt.Sprintf("case %d (%s %s axis %d k %d, device %v): %v", i, c.Op, c.Ins[0].Dtype, *c.Axis, c.A0, g.d != nil, g.log)
		cases = append(cases, c)
	}
	res := askNumPy(t, npAlongScript, cases)
	ops := map[string]int{}
	for _, c := range cases {
		ops[c.Op]++
	}
	t.Logf("%d cases: %v", len(cases), ops)
	checkNumPy(t, cases, res)
}
