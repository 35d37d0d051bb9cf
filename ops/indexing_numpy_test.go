package ops_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/internal/nptest"
)

// TestIndexingNumPy: generated cases of the NumPy indexing, constructor
// and statistics additions computed again by NumPy through
// /usr/bin/python3 (skipped when it or numpy is missing): exact for
// integer results, within 1e-12 relative for float64 ones.
func TestIndexingNumPy(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 11))
	type job struct {
		Expr string    `json:"expr"`
		Ins  []npModel `json:"ins"`
	}
	type result struct {
		Shape []int     `json:"shape"`
		Data  []float64 `json:"data"`
	}
	var jobs []job
	var got []result
	add := func(expr string, ins []npModel, shape []int, data []float64) {
		jobs = append(jobs, job{expr, ins})
		got = append(got, result{shape, data})
	}
	asF := func(m npModel) []float64 {
		out := make([]float64, len(m.Vals))
		for i, v := range m.Vals {
			out[i] = float64(v)
		}
		return out
	}
	of := func(a *array.Array[int32]) ([]int, []float64) { m := modelOf(t, a); return m.Shape, asF(m) }
	ofI64 := func(a *array.Array[int64]) ([]int, []float64) {
		v := vals(t, a)
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return a.Shape(), out
	}
	ofF64 := func(a *array.Array[float64]) ([]int, []float64) { return a.Shape(), vals(t, a) }
	pyList := func(v []int64) string { b, _ := json.Marshal(v); return string(b) }
	for c := range 60 {
		a := genArray(r, 3)
		m := modelOf(t, a)
		shape := a.Shape()
		switch c % 6 {
		case 0: // take
			if a.Rank() == 0 {
				continue
			}
			p := r.IntN(a.Rank())
			n := shape[p]
			ishape := genIdxShape(r, n)
			idx := genIdx(r, n, ishape)
			b, err := ops.Take(a, idx, array.Axis(p-a.Rank()))
			must(t, err)
			s, d := of(b)
			add(fmt.Sprintf("np.take(a0, np.array(%s, dtype=np.int64).reshape(%s), axis=%d)", pyList(vals(t, idx)), pyShapeList(ishape), p-a.Rank()), []npModel{m}, s, d)
		case 1: // put, then a[mask], then a[mask] = 7
			if a.Len() == 0 {
				continue
			}
			idx := genIdx(r, a.Len(), []int{1 + r.IntN(4)})
			v := array.FromValues([]int32{-1, -2}[:1+r.IntN(2)])
			must(t, ops.Put(a, idx, v))
			s, d := of(a)
			add(fmt.Sprintf("[np.put(a0, %s, %s), a0][1]", pyList(vals(t, idx)), pyInts(vals(t, v))), []npModel{m}, s, d)
			mask := genMask(r, a.Shape())
			mm := npModel{Shape: mask.Shape(), Vals: []int32{}}
			for _, x := range vals(t, mask) {
				mm.Vals = append(mm.Vals, int32(x))
			}
			after := modelOf(t, a)
			e, err := ops.Extract(mask, a)
			must(t, err)
			s, d = of(e)
			add("a0[a1 != 0]", []npModel{after, mm}, s, d)
			must(t, ops.PutMask(a, mask, 7))
			s, d = of(a)
			add("[a0.__setitem__(a1 != 0, 7), a0][1]", []npModel{after, mm}, s, d)
		case 2: // unique with counts
			u, cnt, err := ops.UniqueCounts(a)
			must(t, err)
			s, d := of(u)
			add("np.unique(a0)", []npModel{m}, s, d)
			s, d = ofI64(cnt)
			add("np.unique(a0, return_counts=True)[1]", []npModel{m}, s, d)
		case 3: // bincount and histogram of |a| % 7
			flat := npModel{Shape: []int{len(m.Vals)}, Vals: make([]int32, len(m.Vals))}
			for i, v := range m.Vals {
				flat.Vals[i] = v % 7
			}
			x := array.FromValues(flat.Vals, len(flat.Vals))
			ml := r.IntN(9)
			bc, err := ops.Bincount(x, ml)
			must(t, err)
			s, d := ofI64(bc)
			add(fmt.Sprintf("np.bincount(a0, minlength=%d)", ml), []npModel{flat}, s, d)
			bins := 1 + r.IntN(5)
			hc, he, err := ops.Histogram(x, bins)
			must(t, err)
			s, d = ofI64(hc)
			add(fmt.Sprintf("np.histogram(a0, %d)[0]", bins), []npModel{flat}, s, d)
			s, d = ofF64(he)
			add(fmt.Sprintf("np.histogram(a0, %d)[1]", bins), []npModel{flat}, s, d)
			hc, _, err = ops.HistogramRange(x, bins, 1, 4.5)
			must(t, err)
			s, d = ofI64(hc)
			add(fmt.Sprintf("np.histogram(a0, %d, range=(1, 4.5))[0]", bins), []npModel{flat}, s, d)
		case 4: // meshgrid of two or three 1-D Arrays
			xs := []*array.Array[int32]{array.FromValues([]int32{1, 2, 3}[:1+r.IntN(3)]), array.FromValues([]int32{10, 20}), array.FromValues([]int32{5, 6, 7, 8}[:1+r.IntN(4)])}[:2+r.IntN(2)]
			var ins []npModel
			names := ""
			for k, x := range xs {
				ins = append(ins, modelOf(t, x))
				names += fmt.Sprintf("a%d, ", k)
			}
			for _, ij := range []bool{false, true} {
				var gs []*array.Array[int32]
				var err error
				kw := ""
				if ij {
					gs, err = ops.MeshgridIJ(xs...)
					kw = "indexing='ij'"
				} else {
					gs, err = ops.Meshgrid(xs...)
				}
				must(t, err)
				for k, g := range gs {
					s, d := of(g)
					add(fmt.Sprintf("np.meshgrid(%s%s)[%d]", names, kw, k), ins, s, d)
				}
			}
		case 5: // means, sorts, cumsum, var and std along an axis; linspace, eye
			mf, err := ops.MeanAllFloat(a)
			must(t, err)
			if a.Len() > 0 {
				add("np.mean(a0)", []npModel{m}, []int{}, []float64{mf})
			}
			if a.Rank() > 0 {
				ax := array.Axis(r.IntN(a.Rank()) - a.Rank())
				mfa, err := ops.MeanFloat(a, ax)
				must(t, err)
				if a.Shape()[a.Rank()+int(ax)] > 0 {
					s, d := ofF64(mfa)
					add(fmt.Sprintf("np.mean(a0, axis=%d)", ax), []npModel{m}, s, d)
				}
				srt, err := ops.NewAlong(ops.Sort, a, ax)
				must(t, err)
				s, d := of(srt)
				add(fmt.Sprintf("np.sort(a0, axis=%d)", ax), []npModel{m}, s, d)
				as, err := ops.NewAlong(ops.ArgSort, a, ax)
				must(t, err)
				s, d = ofI64(as)
				add(fmt.Sprintf("np.argsort(a0, axis=%d, kind='stable')", ax), []npModel{m}, s, d)
				cs, err := ops.NewAlong(ops.CumSum, a, ax)
				must(t, err)
				s, d = of(cs)
				add(fmt.Sprintf("np.cumsum(a0, axis=%d, dtype=np.int32)", ax), []npModel{m}, s, d)
				f, err := ops.New1(ops.CastWrap[float64, int32], a)
				must(t, err)
				if a.Shape()[a.Rank()+int(ax)] > 1 {
					v, err := ops.NewReduceOp(ops.Var, f, ax, 1)
					must(t, err)
					s, d = ofF64(v)
					add(fmt.Sprintf("np.var(a0.astype(np.float64), axis=%d, ddof=1)", ax), []npModel{m}, s, d)
					sd, err := ops.NewReduceOp(ops.Std, f, ax, 0)
					must(t, err)
					s, d = ofF64(sd)
					add(fmt.Sprintf("np.std(a0.astype(np.float64), axis=%d)", ax), []npModel{m}, s, d)
				}
			}
			start, stop, num := float64(r.IntN(21)-10), float64(r.IntN(21)-10)/3, r.IntN(9)
			s, d := ofF64(array.Linspace[float64](start, stop, num))
			add(fmt.Sprintf("np.linspace(%v, %v, %d)", start, stop, num), nil, s, d)
			s, d = of(array.Linspace[int32](start, stop, num))
			add(fmt.Sprintf("np.linspace(%v, %v, %d, dtype=np.int32)", start, stop, num), nil, s, d)
			en, em, ek := r.IntN(4), r.IntN(4), r.IntN(5)-2
			s, d = of(array.Eye[int32](en, em, ek))
			add(fmt.Sprintf("np.eye(%d, %d, k=%d, dtype=np.int32)", en, em, ek), nil, s, d)
		}
		// Over every element (axis=None) of the drawn view, with ties:
		// the argmax NumPy gives is the first in C order.
		must(t, ops.BinaryScalar(a, a, 3, ops.OpMod))
		mt := modelOf(t, a)
		sum, err := ops.Value(ops.Sum, a)
		must(t, err)
		add("a0.sum(dtype=np.int32)", []npModel{mt}, []int{}, []float64{float64(sum)})
		if a.Len() > 0 {
			for name, op := range map[string]func(*array.Array[int64], *array.Array[int32], array.Axis) error{"argmax": ops.ArgMax[int32], "argmin": ops.ArgMin[int32]} {
				i, err := ops.Value(op, a)
				must(t, err)
				add("a0."+name+"()", []npModel{mt}, []int{}, []float64{float64(i)})
			}
		}
	}
	var want []result
	nptest.Run(t, `
import sys, json
import numpy as np
out = []
for c in json.load(sys.stdin):
    env = {'np': np}
    for i, x in enumerate(c['ins'] or []):
        env['a%d' % i] = np.array(x['data'], dtype=np.int32).reshape(x['shape'])
    r = np.asarray(eval(c['expr'], env))
    out.append({'shape': list(r.shape), 'data': [float(v) for v in r.ravel().tolist()]})
print(json.dumps(out))
`, jobs, &want)
	if len(want) != len(got) || len(got) < 100 {
		t.Fatalf("%d NumPy results for %d cases (want 100 or more)", len(want), len(got))
	}
	for i, j := range jobs {
		g, w := got[i], want[i]
		ok := fmt.Sprint(orEmpty(g.Shape)) == fmt.Sprint(orEmpty(w.Shape)) && len(g.Data) == len(w.Data)
		for k := 0; ok && k < len(g.Data); k++ {
			ok = g.Data[k] == w.Data[k] || math.Abs(g.Data[k]-w.Data[k]) <= 1e-12*math.Abs(w.Data[k])
		}
		if !ok {
			t.Errorf("case %d: %s of %v: got %v %v, NumPy %v %v", i, j.Expr, j.Ins, g.Shape, g.Data, w.Shape, w.Data)
		}
	}
}

func pyInts(v []int32) string { b, _ := json.Marshal(v); return string(b) }

func pyShapeList(s []int) string { b, _ := json.Marshal(orEmpty(s)); return string(b) }
