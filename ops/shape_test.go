package ops_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/internal/nptest"
)

// npModel is an Array as NumPy sees it: shape outermost first, values in
// C order. The copying shape ops are checked against it.
type npModel struct {
	Shape []int   `json:"shape"`
	Vals  []int32 `json:"data"`
}

func modelOf(t testing.TB, a *array.Array[int32]) npModel {
	return npModel{Shape: a.Shape(), Vals: vals(t, a)}
}

func (m npModel) at(p []int) int32 {
	i := 0
	for k, e := range m.Shape {
		i = i*e + p[k]
	}
	return m.Vals[i]
}

// each visits every position of shape, outermost first, in C order.
func eachPos(shape []int, fn func(p []int)) {
	for _, e := range shape {
		if e == 0 {
			return
		}
	}
	p := make([]int, len(shape))
	for {
		fn(p)
		k := len(p) - 1
		for ; k >= 0; k-- {
			if p[k]++; p[k] < shape[k] {
				break
			}
			p[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// selSpec is a selection as data: Python's slice written out.
type selSpec struct {
	Index             bool
	Start, Stop, Step int
	HasStart, HasStop bool
}

func (s selSpec) sel() array.Sel {
	if s.Index {
		return array.I(s.Start)
	}
	var x array.Sel
	switch {
	case s.HasStart && s.HasStop:
		x = array.R(s.Start, s.Stop)
	case s.HasStart:
		x = array.From(s.Start)
	case s.HasStop:
		x = array.To(s.Stop)
	default:
		x = array.All
	}
	return x.Step(s.Step)
}

func (s selSpec) py() string {
	if s.Index {
		return fmt.Sprint(s.Start)
	}
	o := ""
	if s.HasStart {
		o += fmt.Sprint(s.Start)
	}
	o += ":"
	if s.HasStop {
		o += fmt.Sprint(s.Stop)
	}
	return o + fmt.Sprintf(":%d", s.Step)
}

// pick is Python's slice on range(n), written out: adjust, clamp, walk.
func pick(s selSpec, n int) (ps []int, drop bool) {
	if s.Index {
		i := s.Start
		if i < 0 {
			i += n
		}
		return []int{i}, true
	}
	lo, hi := 0, n
	if s.Step < 0 {
		lo, hi = -1, n-1
	}
	adj := func(x int) int {
		if x < 0 {
			x += n
		}
		return min(max(x, lo), hi)
	}
	start, stop := 0, n
	if s.Step < 0 {
		start, stop = n-1, -1
	}
	if s.HasStart {
		start = adj(s.Start)
	}
	if s.HasStop {
		stop = adj(s.Stop)
	}
	for i := start; (s.Step > 0 && i < stop) || (s.Step < 0 && i > stop); i += s.Step {
		ps = append(ps, i)
	}
	return ps, false
}

func indexModel(m npModel, sels []selSpec) npModel {
	var lists [][]int
	shape := []int{}
	for k, n := range m.Shape {
		s := selSpec{Step: 1}
		if k < len(sels) {
			s = sels[k]
		}
		ps, drop := pick(s, n)
		lists = append(lists, ps)
		if !drop {
			shape = append(shape, len(ps))
		}
	}
	out := npModel{Shape: shape, Vals: []int32{}}
	p := make([]int, len(lists))
	var rec func(k int)
	rec = func(k int) {
		if k == len(lists) {
			out.Vals = append(out.Vals, m.at(p))
			return
		}
		for _, x := range lists[k] {
			p[k] = x
			rec(k + 1)
		}
	}
	rec(0)
	return out
}

// genArray draws an int32 Array of distinct values with a generated
// layout: crops, transposes and moved mins of a dense root.
func genArray(r *rand.Rand, maxRank int) *array.Array[int32] {
	rank := r.IntN(maxRank + 1)
	ext := make([]int, rank)
	for i := range ext {
		ext[i] = r.IntN(5)
		if r.IntN(6) == 0 {
			ext[i] = 1
		}
	}
	a := array.New[int32](ext...)
	h, _ := a.Host()
	for i := range h.Data() {
		h.Data()[i] = int32(i + 1)
	}
	for range r.IntN(4) {
		if rank == 0 {
			break
		}
		k := r.IntN(rank)
		switch r.IntN(4) {
		case 0:
			e := a.Dim(k)
			lo := e.Min + r.IntN(e.Extent+1)
			a = a.Crop(k, lo, r.IntN(e.Max()-lo+2))
		case 1:
			a = a.Transpose(k, r.IntN(rank))
		case 2:
			a = a.Translate(k, r.IntN(7)-3)
		case 3: // a reshaped view, where the layout allows one
			shape := []int{-1}
			if n := a.Len(); n > 0 && n%2 == 0 {
				shape = []int{2, -1, 1}[:2+r.IntN(2)]
			}
			if v, err := a.Reshape(shape...); err == nil {
				a, rank = v, v.Rank()
			}
		}
	}
	return a
}

func genSel(r *rand.Rand, n int) selSpec {
	if r.IntN(5) == 0 && n > 0 {
		return selSpec{Index: true, Start: r.IntN(2*n) - n}
	}
	s := selSpec{Step: 1}
	if r.IntN(3) > 0 {
		s.Step = r.IntN(7) - 3
		if s.Step == 0 {
			s.Step = -1
		}
	}
	if r.IntN(3) > 0 {
		s.HasStart, s.Start = true, r.IntN(2*n+5)-n-2
	}
	if r.IntN(3) > 0 {
		s.HasStop, s.Stop = true, r.IntN(2*n+5)-n-2
	}
	return s
}

func sameModel(t *testing.T, what string, got, want npModel) {
	t.Helper()
	if !slices.Equal(orEmpty(got.Shape), orEmpty(want.Shape)) || !slices.Equal(got.Vals, want.Vals) {
		t.Fatalf("%s: got shape %v %v, want %v %v", what, got.Shape, got.Vals, want.Shape, want.Vals)
	}
}

func orEmpty(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// shapeCase is one generated use of the copying shape ops: its result by
// the library and by the model, and the NumPy expression for it.
type shapeCase struct {
	name string
	got  *array.Array[int32]
	want npModel
	py   string // NumPy expression over ins (a0, a1, …)
	ins  []npModel
}

// genShapeCase draws one op over a generated input resident on d.
func genShapeCase(t *testing.T, r *rand.Rand, d device.Device) shapeCase {
	a := genArray(r, 4)
	m := modelOf(t, a)
	rank := a.Rank()
	place := func(xs ...*array.Array[int32]) {
		for _, x := range xs {
			if x.Len() > 0 {
				onDev(t, d, x)
			}
		}
	}
	switch op := r.IntN(6); {
	case op == 0 || rank == 0:
		var sels []selSpec
		var xs []array.Sel
		for k := range r.IntN(rank + 1) {
			s := genSel(r, m.Shape[k])
			sels, xs = append(sels, s), append(xs, s.sel())
		}
		place(a)
		got, err := ops.Index(a, xs...)
		must(t, err)
		py := make([]string, len(sels))
		for i, s := range sels {
			py[i] = s.py()
		}
		expr := "a0[()]"
		if len(py) > 0 {
			expr = "a0[" + strings.Join(py, ",") + ",]"
		}
		return shapeCase{fmt.Sprintf("Index%v", sels), got, indexModel(m, sels), expr, []npModel{m}}
	case op == 1:
		ax := r.IntN(2*rank) - rank
		k := (ax + rank) % rank
		place(a)
		got, err := ops.Flip(a, array.Axis(ax))
		must(t, err)
		sels := make([]selSpec, k+1)
		for i := range sels {
			sels[i] = selSpec{Step: 1}
		}
		sels[k].Step = -1
		return shapeCase{fmt.Sprintf("Flip(%d)", ax), got, indexModel(m, sels), fmt.Sprintf("np.flip(a0, %d)", ax), []npModel{m}}
	case op == 2:
		// Concatenate the pieces SplitAt cuts: the input again.
		ax := r.IntN(2*rank) - rank
		parts := splitPieces(t, a, ax, r.IntN(6)-1, r.IntN(6))
		var ins []npModel
		for _, p := range parts {
			ins = append(ins, modelOf(t, p))
		}
		place(parts...)
		got, err := ops.Concatenate(array.Axis(ax), parts...)
		must(t, err)
		// Decreasing cut points make pieces that overlap, as in NumPy:
		// the model joins the pieces' models.
		k := (ax + rank) % rank
		shape := slices.Clone(m.Shape)
		shape[k] = 0
		for _, p := range ins {
			shape[k] += p.Shape[k]
		}
		want := npModel{Shape: shape, Vals: []int32{}}
		eachPos(shape, func(p []int) {
			q := slices.Clone(p)
			for _, part := range ins {
				if q[k] < part.Shape[k] {
					want.Vals = append(want.Vals, part.at(q))
					return
				}
				q[k] -= part.Shape[k]
			}
		})
		return shapeCase{fmt.Sprintf("Concatenate(%d, SplitAt)", ax), got, want, fmt.Sprintf("np.concatenate([a0, a1, a2], %d)", ax), ins}
	case op == 3:
		ax := r.IntN(2*rank+2) - rank - 1
		b := array.New[int32](a.Extents()...)
		must(t, ops.BinaryScalar(b, a.SetMin(make([]int, rank)...), 1000, ops.OpAdd))
		mb := modelOf(t, b)
		place(a, b)
		got, err := ops.Stack(array.Axis(ax), a, b)
		must(t, err)
		k := (ax + rank + 1) % (rank + 1)
		shape := slices.Insert(slices.Clone(m.Shape), k, 2)
		want := npModel{Shape: shape, Vals: []int32{}}
		eachPos(shape, func(p []int) {
			src := m
			if p[k] == 1 {
				src = mb
			}
			want.Vals = append(want.Vals, src.at(slices.Delete(slices.Clone(p), k, k+1)))
		})
		return shapeCase{fmt.Sprintf("Stack(%d)", ax), got, want, fmt.Sprintf("np.stack([a0, a1], %d)", ax), []npModel{m, mb}}
	case op == 4:
		shape := slices.Clone(m.Shape)
		for i, e := range shape {
			if e == 1 {
				shape[i] = r.IntN(4)
			}
		}
		lead := make([]int, r.IntN(3))
		for i := range lead {
			lead[i] = r.IntN(4)
		}
		shape = append(lead, shape...)
		place(a)
		got, err := ops.BroadcastTo(a, shape...)
		must(t, err)
		want := npModel{Shape: shape, Vals: []int32{}}
		eachPos(shape, func(p []int) {
			q := slices.Clone(p[len(lead):])
			for i := range q {
				if m.Shape[i] == 1 {
					q[i] = 0
				}
			}
			want.Vals = append(want.Vals, m.at(q))
		})
		return shapeCase{fmt.Sprintf("BroadcastTo%v", shape), got, want, fmt.Sprintf("np.broadcast_to(a0, %s)", pyTuple(shape)), []npModel{m}}
	default:
		n := a.Len()
		shape := []int{n}
		if n > 1 && n%2 == 0 && r.IntN(2) == 0 {
			shape = []int{2, -1}
		}
		place(a)
		got, err := ops.Reshape(a, shape...)
		must(t, err)
		res := slices.Clone(shape)
		if len(res) == 2 {
			res[1] = n / 2
		}
		return shapeCase{fmt.Sprintf("Reshape%v", shape), got, npModel{Shape: res, Vals: m.Vals}, fmt.Sprintf("a0.reshape(%s)", pyTuple(shape)), []npModel{m}}
	}
}

// splitPieces is a.SplitAt(ax, i0, i1), or where those views would be no
// box of the root (ErrNotView), the same pieces copied by ops.Index.
func splitPieces(t *testing.T, a *array.Array[int32], ax, i0, i1 int) (parts []*array.Array[int32]) {
	func() {
		defer func() {
			if e := recover(); e != nil {
				if err, _ := e.(error); !errors.Is(err, array.ErrNotView) {
					panic(e)
				}
				parts = nil
			}
		}()
		parts = a.SplitAt(array.Axis(ax), i0, i1)
	}()
	if parts != nil {
		return parts
	}
	k := ax
	if k < 0 {
		k += a.Rank()
	}
	for _, s := range []array.Sel{array.To(i0), array.R(i0, i1), array.From(i1)} {
		sel := make([]array.Sel, k+1)
		for i := range sel {
			sel[i] = array.All
		}
		sel[k] = s
		p, err := ops.Index(a, sel...)
		must(t, err)
		parts = append(parts, p)
	}
	return parts
}

func pyTuple(s []int) string {
	p := make([]string, len(s))
	for i, x := range s {
		p[i] = fmt.Sprint(x)
	}
	return "(" + strings.Join(p, ",") + ",)"
}

// TestShapeOpsModel: the copying shape ops over generated layouts and
// selections, against the model, on the host, a sim and PoCL: each
// result is on its input's device, made with no transfer.
func TestShapeOpsModel(t *testing.T) {
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			r := rand.New(rand.NewPCG(22, 9))
			n := 300
			if d != nil && !strings.HasPrefix(d.Name(), "sim") {
				n = 60 // PoCL: one launch per stepped position
			}
			for i := range n {
				var before device.Stats
				if d != nil {
					before = d.Stats()
				}
				c := genShapeCase(t, r, d)
				var during device.Stats
				if d != nil {
					during = d.Stats().Sub(before)
				}
				if d != nil && c.got.Len() > 0 && !strings.HasPrefix(c.name, "Reshape") && !c.got.DeviceDirty() {
					t.Fatalf("case %d %s: the result was not written on %s", i, c.name, d.Name())
				}
				what := fmt.Sprintf("case %d %s of %v", i, c.name, c.ins[0].Shape)
				sameModel(t, what, modelOf(t, c.got), c.want)
				if d != nil && c.got.Len() > 0 {
					if c.got.Device() != d {
						t.Fatalf("%s: result on %v, want %s", what, c.got.Device(), d.Name())
					}
					// The inputs were placed by On (uploads); the op itself
					// reads nothing back.
					if during.D2HCalls != 0 {
						t.Fatalf("%s: %d downloads, want none", what, during.D2HCalls)
					}
				}
				c.got.Close()
			}
		})
	}
}

// TestShapeOpsNumPy: a seeded subset computed again by NumPy through
// /usr/bin/python3 (skipped when it or numpy is missing).
func TestShapeOpsNumPy(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 10))
	type job struct {
		Expr string    `json:"expr"`
		Ins  []npModel `json:"ins"`
	}
	var jobs []job
	var cases []shapeCase
	for range 120 {
		c := genShapeCase(t, r, nil)
		cases = append(cases, c)
		jobs = append(jobs, job{c.py, c.ins})
	}
	var want []npModel
	nptest.Run(t, `
import sys, json
import numpy as np
out = []
for c in json.load(sys.stdin):
    env = {'np': np}
    for i, x in enumerate(c['ins']):
        env['a%d' % i] = np.array(x['data'], dtype=np.int32).reshape(x['shape'])
    r = np.asarray(eval(c['expr'], env))
    out.append({'shape': list(r.shape), 'data': r.ravel().tolist()})
print(json.dumps(out))
`, jobs, &want)
	for i, c := range cases {
		sameModel(t, fmt.Sprintf("case %d: %s (%s) of %v", i, c.name, c.py, c.ins[0].Shape), modelOf(t, c.got), want[i])
		c.got.Close()
	}
}

// TestShapeOpsFailure: a device failure in the middle of Concatenate and
// Index returns the error, frees the partial result on the device and
// leaves the inputs as they were.
func TestShapeOpsFailure(t *testing.T) {
	for _, d := range placements(t)[1:2] { // the sim: it injects failures
		a := array.FromValues([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
		onDev(t, d, a)
		live := d.Stats().AllocsLive
		boom := errors.New("boom")
		for name, f := range map[string]func() (*array.Array[int32], error){
			"Concatenate": func() (*array.Array[int32], error) { return ops.Concatenate(0, a, a) },
			"Index":       func() (*array.Array[int32], error) { return ops.Index(a, array.All, array.All.Step(2)) },
			"Flip":        func() (*array.Array[int32], error) { return ops.Flip(a) },
		} {
			d.(interface{ FailNext(string, error) }).FailNext("Run", boom)
			res, err := f()
			if !errors.Is(err, boom) || res != nil {
				t.Fatalf("%s: got %v, %v; want the injected failure", name, res, err)
			}
			if n := d.Stats().AllocsLive; n != live {
				t.Fatalf("%s: %d live allocations after the failure, %d before", name, n, live)
			}
			sameModel(t, name+": input after the failure", modelOf(t, a), npModel{Shape: []int{2, 3}, Vals: []int32{1, 2, 3, 4, 5, 6}})
		}
		a.Close()
		if _, err := ops.Concatenate(0, a); !errors.Is(err, array.ErrClosed) {
			t.Fatalf("Concatenate of a closed Array: %v", err)
		}
	}
}

// TestIndexOfReshapedView: where array.Index refuses a crop of a reshaped
// view (no box of the root), ops.Index copies it, on the device the
// input lives on.
func TestIndexOfReshapedView(t *testing.T) {
	for _, d := range placements(t) {
		vals24 := make([]int32, 24)
		for i := range vals24 {
			vals24[i] = int32(i)
		}
		a := array.FromValues(vals24, 6, 4)
		onDev(t, d, a)
		b, err := a.Reshape(3, 8)
		must(t, err)
		c, err := ops.Index(b, array.All, array.R(0, 4))
		must(t, err)
		if d != nil && c.Device() != d {
			t.Fatalf("%s: result on %v", devName(d), c.Device())
		}
		sameModel(t, devName(d), modelOf(t, c), npModel{Shape: []int{3, 4}, Vals: []int32{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19}})
		c.Close()
		a.Close()
	}
}
