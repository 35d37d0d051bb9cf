package ops_test

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/internal/nptest"
)

var axisOrderSeed = flag.Uint64("axisorder.seed", 0, "seed of TestAxisOrderNumPy's cases (0: the time, logged)")

// axisCase is one call of a NumPy-order function with drawn shapes and
// axis, as Go runs it and as NumPy's expression (operands a0, a1, …
// zeros of shapes, idx an index list).
type axisCase struct {
	Expr   string  `json:"expr"`
	Shapes [][]int `json:"shapes"`
	Idx    []int64 `json:"idx"`
	run    func() (shapes [][]int, err error)
	// alias: a shape NumPy's message prints (key) that ours prints as
	// the call's argument (value): reshape's target without its -1.
	alias map[string]string
}

// npOutcome is what NumPy did: the result's shapes, or the exception.
type npOutcome struct {
	Shapes [][]int `json:"shapes"`
	Exc    string  `json:"exc"`
	Msg    string  `json:"msg"`
}

// TestAxisOrderNumPy is generated: each case draws a NumPy-order call
// (shape operations, reductions and functions along an axis, broadcasting
// and matmul; an axis sometimes out of range, shapes sometimes wrong) and
// runs it here and in NumPy (/usr/bin/python3; skipped without numpy).
// Both accept it or both refuse it; accepted, the result shapes are
// NumPy's; refused, ours panics with ErrShape or ErrOutOfRange (a shape
// mistake) and its message prints every shape NumPy's prints, in NumPy's
// form, (2, 3), the axis and the rank NumPy's AxisError names, and no
// operand's shape reversed (the library's order). The seed changes per
// run (logged; -axisorder.seed replays one).
func TestAxisOrderNumPy(t *testing.T) {
	seed := *axisOrderSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -axisorder.seed %d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 3))
	n := 150
	if testing.Short() {
		n = 60
	}
	cases := make([]axisCase, n)
	for i := range cases {
		cases[i] = drawAxisCase(r, i)
	}
	var want []npOutcome
	nptest.Run(t, `
import sys, json
import numpy as np
out = []
for c in json.load(sys.stdin):
    env = {'np': np, 'idx': c['idx']}
    for i, s in enumerate(c['shapes']):
        env['a%d' % i] = np.zeros(s, dtype=np.float32)
    env['c0'] = np.zeros(c['shapes'][0], dtype=np.bool_)
    try:
        r = eval(c['expr'], env)
        rs = r if isinstance(r, list) else [r]
        out.append({'shapes': [list(np.shape(x)) for x in rs], 'exc': '', 'msg': ''})
    except Exception as e:
        out.append({'shapes': None, 'exc': type(e).__name__, 'msg': str(e)})
print(json.dumps(out))
`, cases, &want)
	if len(want) != len(cases) {
		t.Fatalf("%d NumPy outcomes for %d cases", len(want), len(cases))
	}
	refused := 0
	for i, c := range cases {
		w := want[i]
		shapes, err, rec := runAxisCase(c)
		where := fmt.Sprintf("case %d: %s with a%v", i, c.Expr, c.Shapes)
		if w.Exc == "" {
			if rec != nil || err != nil {
				t.Errorf("%s: NumPy gives shapes %v, ours failed: %v %v", where, w.Shapes, err, rec)
				continue
			}
			if fmt.Sprint(orEmptyAll(shapes)) != fmt.Sprint(orEmptyAll(w.Shapes)) {
				t.Errorf("%s: shapes %v, NumPy %v", where, shapes, w.Shapes)
			}
			continue
		}
		refused++
		re, _ := rec.(error)
		if rec == nil || !errors.Is(re, array.ErrShape) && !errors.Is(re, array.ErrOutOfRange) {
			t.Errorf("%s: NumPy raises %s (%s); ours: shapes %v, error %v, panic %v; want a panic wrapping ErrShape or ErrOutOfRange", where, w.Exc, w.Msg, shapes, err, rec)
			continue
		}
		checkMessage(t, where, re.Error(), w, c.Expr, c.Shapes, c.alias)
	}
	t.Logf("%d of %d cases refused by NumPy and by us", refused, len(cases))
	if refused == 0 || refused == len(cases) {
		t.Errorf("%d of %d cases refused: the generator is off", refused, len(cases))
	}
}

func orEmptyAll(s [][]int) [][]int {
	out := make([][]int, len(s))
	for i, x := range s {
		out[i] = append([]int{}, x...)
	}
	return out
}

func runAxisCase(c axisCase) (shapes [][]int, err error, rec any) {
	defer func() {
		if r := recover(); r != nil {
			rec = r
		}
	}()
	shapes, err = c.run()
	return shapes, err, nil
}

var npShapeRE = regexp.MustCompile(`\((\d+(?:,\s*\d+)*,?)?\)`)

// checkMessage: our message prints NumPy's shapes as NumPy does, the
// axis and rank of NumPy's AxisError, and no operand shape reversed.
func checkMessage(t *testing.T, where, msg string, w npOutcome, expr string, operands [][]int, alias map[string]string) {
	t.Helper()
	printed := map[string]bool{} // the shapes NumPy's message prints
	for _, m := range npShapeRE.FindAllString(w.Msg, -1) {
		if !strings.Contains(m, ",") && m != "()" {
			continue // "(4)": NumPy's reshape prints the known extents so, not a tuple
		}
		var s []int
		for _, f := range strings.FieldsFunc(strings.Trim(m, "()"), func(r rune) bool { return r == ',' || r == ' ' }) {
			var x int
			fmt.Sscan(f, &x)
			s = append(s, x)
		}
		printed[npShape(s)] = true
		if !strings.Contains(msg, npShape(s)) && (alias[npShape(s)] == "" || !strings.Contains(msg, alias[npShape(s)])) {
			t.Errorf("%s: NumPy says %q; ours %q does not print shape %s", where, w.Msg, msg, npShape(s))
		}
	}
	if w.Exc == "AxisError" {
		var ax, nd int
		if _, err := fmt.Sscanf(w.Msg, "axis %d is out of bounds for array of dimension %d", &ax, &nd); err == nil {
			if !strings.Contains(msg, fmt.Sprintf("axis %d ", ax)) || !strings.Contains(msg, fmt.Sprintf("%d-D", nd)) {
				t.Errorf("%s: NumPy says %q; ours %q names another axis or rank", where, w.Msg, msg)
			}
		}
	}
	for _, s := range operands {
		rev := slices.Clone(s)
		slices.Reverse(rev)
		if slices.Equal(rev, s) || slices.ContainsFunc(operands, func(x []int) bool { return slices.Equal(x, rev) }) ||
			printed[npShape(rev)] || strings.Contains(expr, pyTuple(rev)) {
			continue // the reversed shape is also an argument of the call
		}
		if strings.Contains(msg, npShape(rev)) || strings.Contains(msg, fmt.Sprint(rev)) {
			t.Errorf("%s: %q prints shape %s reversed (the library's order)", where, msg, npShape(s))
		}
	}
}

// drawAxisCase draws case i: a family by i, shapes of extents 1…4, an
// axis in range four times in five, shapes that fit most of the time.
func drawAxisCase(r *rand.Rand, i int) axisCase {
	shape := func(lo, hi int) []int {
		s := make([]int, lo+r.IntN(hi-lo+1))
		for k := range s {
			s[k] = 1 + r.IntN(4)
		}
		return s
	}
	axis := func(rank int) int {
		if r.IntN(5) == 0 {
			if r.IntN(2) == 0 {
				return rank + r.IntN(2)
			}
			return -rank - 1 - r.IntN(2)
		}
		return r.IntN(2*rank) - rank
	}
	// spoilOne changes one extent of s (to one ≥ 2 that is not s's) one
	// time in three.
	spoilOne := func(s []int) []int {
		out := slices.Clone(s)
		if len(out) > 0 && r.IntN(3) == 0 {
			k := r.IntN(len(out))
			out[k] = out[k] + 1 + r.IntN(2)
		}
		return out
	}
	z := func(s []int) *array.Array[float32] { return array.Zeros[float32](s...) }
	one := func(a *array.Array[float32], err error) ([][]int, error) {
		if err != nil {
			return nil, err
		}
		return [][]int{a.Shape()}, nil
	}
	a := shape(1, 3)
	c := axisCase{Shapes: [][]int{a}}
	switch i % 16 {
	case 0: // reshape: a permutation of a's extents, with one -1, or a wrong count
		to := slices.Clone(a)
		r.Shuffle(len(to), func(x, y int) { to[x], to[y] = to[y], to[x] })
		infer := r.IntN(3) == 0
		to = spoilOne(to)
		if infer {
			k := r.IntN(len(to))
			to[k] = -1
			c.alias = map[string]string{npShape(slices.Delete(slices.Clone(to), k, k+1)): npShape(to)}
		}
		c.Expr = fmt.Sprintf("a0.reshape(%s)", pyTuple(to))
		c.run = func() ([][]int, error) { return one(z(a).Reshape(to...)) }
	case 1: // broadcast_to
		to := append(shape(0, 1), a...)
		for k := range to {
			if r.IntN(4) == 0 {
				to[k] = 1 + r.IntN(4)
			}
		}
		c.Expr = fmt.Sprintf("np.broadcast_to(a0, %s)", pyTuple(to))
		c.run = func() ([][]int, error) { return one(z(a).BroadcastTo(to...)) }
	case 2: // squeeze
		ax := axis(len(a))
		if ax >= -len(a) && ax < len(a) && r.IntN(2) == 0 {
			a[(ax+len(a))%len(a)] = 1
		}
		c.Shapes[0] = a
		c.Expr = fmt.Sprintf("np.squeeze(a0, axis=%d)", ax)
		c.run = func() ([][]int, error) { return [][]int{z(a).Squeeze(array.Axis(ax)).Shape()}, nil }
	case 3: // expand_dims
		ax := axis(len(a) + 1)
		c.Expr = fmt.Sprintf("np.expand_dims(a0, %d)", ax)
		c.run = func() ([][]int, error) { return [][]int{z(a).ExpandDims(array.Axis(ax)).Shape()}, nil }
	case 4: // split
		ax, k := axis(len(a)), 1+r.IntN(3)
		c.Expr = fmt.Sprintf("np.split(a0, %d, axis=%d)", k, ax)
		c.run = func() ([][]int, error) {
			var out [][]int
			for _, p := range z(a).Split(k, array.Axis(ax)) {
				out = append(out, p.Shape())
			}
			return out, nil
		}
	case 5, 6: // concatenate, stack
		b := spoilOne(a)
		c.Shapes = append(c.Shapes, b)
		if i%16 == 5 {
			ax := axis(len(a))
			if ax >= -len(a) && ax < len(a) && r.IntN(2) == 0 { // grow along the axis: fits
				b[(ax+len(a))%len(a)] += 1
			}
			c.Expr = fmt.Sprintf("np.concatenate([a0, a1], axis=%d)", ax)
			c.run = func() ([][]int, error) { return one(ops.Concatenate(array.Axis(ax), z(a), z(b))) }
		} else {
			ax := axis(len(a) + 1)
			c.Expr = fmt.Sprintf("np.stack([a0, a1], axis=%d)", ax)
			c.run = func() ([][]int, error) { return one(ops.Stack(array.Axis(ax), z(a), z(b))) }
		}
	case 7: // flip
		ax := axis(len(a))
		c.Expr = fmt.Sprintf("np.flip(a0, %d)", ax)
		c.run = func() ([][]int, error) { return one(ops.Flip(z(a), array.Axis(ax))) }
	case 8: // take
		ax := axis(len(a))
		m := a[(ax%len(a)+len(a))%len(a)]
		c.Idx = []int64{int64(r.IntN(m)), int64(r.IntN(m))}
		c.Expr = fmt.Sprintf("np.take(a0, idx, axis=%d)", ax)
		c.run = func() ([][]int, error) {
			return one(ops.Take(z(a), array.FromSlice(slices.Clone(c.Idx)), array.Axis(ax)))
		}
	case 9: // sum
		ax := axis(len(a))
		c.Expr = fmt.Sprintf("a0.sum(axis=%d)", ax)
		c.run = func() ([][]int, error) { return one(ops.NewReduce(ops.Sum[float32], z(a), array.Axis(ax))) }
	case 10: // argmax
		ax := axis(len(a))
		c.Expr = fmt.Sprintf("a0.argmax(axis=%d)", ax)
		c.run = func() ([][]int, error) {
			x, err := ops.NewReduce(ops.ArgMax[float32], z(a), array.Axis(ax))
			if err != nil {
				return nil, err
			}
			return [][]int{x.Shape()}, nil
		}
	case 11: // sort, cumsum
		ax := axis(len(a))
		if r.IntN(2) == 0 {
			c.Expr = fmt.Sprintf("np.sort(a0, axis=%d)", ax)
			c.run = func() ([][]int, error) { return one(ops.NewAlong(ops.Sort[float32], z(a), array.Axis(ax))) }
		} else {
			c.Expr = fmt.Sprintf("np.cumsum(a0, axis=%d)", ax)
			c.run = func() ([][]int, error) { return one(ops.NewAlong(ops.CumSum[float32], z(a), array.Axis(ax))) }
		}
	case 12: // var, mean
		ax := axis(len(a))
		if r.IntN(2) == 0 {
			c.Expr = fmt.Sprintf("np.var(a0, axis=%d)", ax)
			c.run = func() ([][]int, error) { return one(ops.NewReduceOp(ops.Var, z(a), array.Axis(ax), 0)) }
		} else {
			c.Expr = fmt.Sprintf("np.mean(a0, axis=%d)", ax)
			c.run = func() ([][]int, error) {
				x, err := ops.MeanFloat(z(a), array.Axis(ax))
				if err != nil {
					return nil, err
				}
				return [][]int{x.Shape()}, nil
			}
		}
	case 13: // broadcasting add
		b := spoilOne(a[r.IntN(len(a)):])
		for k := range b {
			if r.IntN(4) == 0 {
				b[k] = 1
			}
		}
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		c.Shapes = [][]int{a, b}
		c.Expr = "np.add(a0, a1)"
		c.run = func() ([][]int, error) { return one(ops.New2Op(ops.Binary[float32], z(a), z(b), ops.OpAdd)) }
	case 14: // matmul
		m, k, n := 1+r.IntN(4), 1+r.IntN(4), 1+r.IntN(4)
		x, y := []int{m, k}, spoilOne([]int{k, n})
		if r.IntN(3) == 0 {
			nb := 1 + r.IntN(3)
			x, y = append([]int{nb}, x...), append([]int{nb}, y...)
		}
		c.Shapes = [][]int{x, y}
		c.Expr = "np.matmul(a0, a1)"
		c.run = func() ([][]int, error) { return one(ops.NewMatMul(z(x), z(y))) }
	case 15: // where
		b := spoilOne(a)
		c.Shapes = [][]int{a, b}
		c.Expr = "np.where(c0, a0, a1)"
		c.run = func() ([][]int, error) {
			return one(ops.NewWhere(array.Zeros[uint8](a...), z(a), z(b)))
		}
	}
	return c
}
