package array_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
)

// model is an Array as NumPy sees it: a shape (outermost first) and the
// values in C order. The shape operations are checked against it.
type model struct {
	Shape []int   `json:"shape"`
	Vals  []int32 `json:"data"`
}

func modelOf(t testing.TB, a *array.Array[int32]) model {
	t.Helper()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	m := model{Shape: a.Shape(), Vals: []int32{}}
	// Index arithmetic, not the library's iterator: C order over Shape is
	// dimension 0 fastest over the Dims.
	dims := a.Dims()
	each(dims, func(c []int, off int) { m.Vals = append(m.Vals, v.At(c...)) })
	return m
}

func (m model) size() int {
	n := 1
	for _, e := range m.Shape {
		n *= e
	}
	return n
}

// at is the value at NumPy position p (outermost first).
func (m model) at(p []int) int32 {
	i := 0
	for k, e := range m.Shape {
		i = i*e + p[k]
	}
	return m.Vals[i]
}

// pick lists the positions a selection takes from an axis of n, by
// Python's rules written out (range over the adjusted bounds).
func pick(s selSpec, n int) (ps []int, drop bool) {
	if s.Kind == "i" {
		i := s.Start
		if i < 0 {
			i += n
		}
		return []int{i}, true
	}
	adj := func(x int, neg bool) int {
		if x < 0 {
			x += n
			if x < 0 {
				if neg {
					return -1
				}
				return 0
			}
		}
		if x >= n {
			if neg {
				return n - 1
			}
			return n
		}
		return x
	}
	step := s.Step
	start, stop := 0, n
	if step < 0 {
		start, stop = n-1, -1
	}
	if s.HasStart {
		start = adj(s.Start, step < 0)
	}
	if s.HasStop {
		stop = adj(s.Stop, step < 0)
	}
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		ps = append(ps, i)
	}
	return ps, false
}

// selSpec is a Sel as data, for the model and for NumPy.
type selSpec struct {
	Kind              string `json:"kind"` // "i" or "r"
	Start, Stop, Step int
	HasStart, HasStop bool
}

func (s selSpec) sel() array.Sel {
	if s.Kind == "i" {
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
	if s.Step != 1 {
		x = x.Step(s.Step)
	}
	return x
}

func (s selSpec) py() string {
	if s.Kind == "i" {
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

// indexModel is m[sels...] by the model.
func indexModel(m model, sels []selSpec) model {
	var lists [][]int
	var shape []int
	for k, n := range m.Shape {
		s := selSpec{Kind: "r", Step: 1}
		if k < len(sels) {
			s = sels[k]
		}
		ps, drop := pick(s, n)
		lists = append(lists, ps)
		if !drop {
			shape = append(shape, len(ps))
		}
	}
	out := model{Shape: shape, Vals: []int32{}}
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

// genLayout draws an int32 Array with distinct values and a generated
// layout: a dense root, then crops, transposes and moved mins.
func genLayout(r *rand.Rand) *array.Array[int32] {
	rank := r.IntN(5)
	ext := make([]int, rank)
	for i := range ext {
		ext[i] = r.IntN(5)
		if r.IntN(8) == 0 {
			ext[i] = 1
		}
	}
	a := array.New[int32](ext...)
	h, _ := a.Host()
	d := h.Data()
	for i := range d {
		d[i] = int32(i + 1)
	}
	for range r.IntN(4) {
		if rank == 0 {
			break
		}
		k := r.IntN(rank)
		switch r.IntN(3) {
		case 0:
			e := a.Dim(k)
			lo := e.Min + r.IntN(e.Extent+1)
			a = a.Crop(k, lo, r.IntN(e.Max()-lo+2))
		case 1:
			a = a.Transpose(k, r.IntN(rank))
		case 2:
			a = a.Translate(k, r.IntN(7)-3)
		}
	}
	return a
}

func genSel(r *rand.Rand, n int, steps bool) selSpec {
	if r.IntN(5) == 0 && n > 0 {
		return selSpec{Kind: "i", Start: r.IntN(2*n) - n}
	}
	s := selSpec{Kind: "r", Step: 1}
	if steps && r.IntN(2) == 0 {
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

func sameModel(t *testing.T, what string, got, want model) {
	t.Helper()
	if !slices.Equal(got.Shape, want.Shape) || !slices.Equal(got.Vals, want.Vals) {
		t.Fatalf("%s: got shape %v %v, want %v %v", what, got.Shape, got.Vals, want.Shape, want.Vals)
	}
}

// sharesMemory checks that v is a view of a: a write through v shows in a.
func sharesMemory(t *testing.T, what string, a, v *array.Array[int32]) {
	t.Helper()
	if v.Len() == 0 {
		return
	}
	h, _ := v.Host()
	c := make([]int, v.Rank())
	for i := range c {
		c[i] = v.Dim(i).Min
	}
	old := h.At(c...)
	h.Set(-7, c...)
	found := false
	ah, _ := a.HostReadOnly()
	for x := range ah.Values() {
		found = found || x == -7
	}
	h.Set(old, c...)
	if !found {
		t.Fatalf("%s: a write through the view did not reach the Array", what)
	}
}

// TestShapeViewsModel: Index, Reshape, Squeeze, ExpandDims and Split over
// generated layouts, against the model; every result shares memory.
func TestShapeViewsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 3))
	for i := range 600 {
		a := genLayout(r)
		m := modelOf(t, a)
		what := fmt.Sprintf("case %d: %v dims %v", i, m.Shape, a.Dims())

		var sels []selSpec
		for k := range r.IntN(a.Rank() + 1) {
			sels = append(sels, genSel(r, m.Shape[k], false))
		}
		var xs []array.Sel
		for _, s := range sels {
			xs = append(xs, s.sel())
		}
		v := a.Index(xs...)
		sameModel(t, what+fmt.Sprintf(" Index %v", sels), modelOf(t, v), indexModel(m, sels))
		sharesMemory(t, what+" Index", a, v)

		// Reshape to a random factorization of the element count.
		shape := factorShape(r, m.size())
		if len(shape) > 0 && m.size() > 0 && r.IntN(3) == 0 { // NumPy infers no -1 for 0 elements
			shape[r.IntN(len(shape))] = -1
		}
		if rv, err := a.Reshape(shape...); err == nil {
			got := modelOf(t, rv)
			want := model{Shape: rv.Shape(), Vals: m.Vals}
			sameModel(t, what+fmt.Sprintf(" Reshape %v", shape), got, want)
			sharesMemory(t, what+" Reshape", a, rv)
		} else if !errors.Is(err, array.ErrNotView) {
			t.Fatalf("%s: Reshape %v: %v", what, shape, err)
		} else if cOrder(a) {
			t.Fatalf("%s: Reshape of dense data refused: %v", what, err)
		}

		sq := a.Squeeze()
		var sqShape []int
		for _, e := range m.Shape {
			if e != 1 {
				sqShape = append(sqShape, e)
			}
		}
		sameModel(t, what+" Squeeze", modelOf(t, sq), model{Shape: orEmpty(sqShape), Vals: m.Vals})

		ax := r.IntN(2*a.Rank()+2) - a.Rank() - 1
		ex := a.ExpandDims(array.Axis(ax))
		p := ax
		if p < 0 {
			p += a.Rank() + 1
		}
		exShape := slices.Insert(slices.Clone(m.Shape), p, 1)
		sameModel(t, what+fmt.Sprintf(" ExpandDims(%d)", ax), modelOf(t, ex), model{Shape: exShape, Vals: m.Vals})
		sharesMemory(t, what+" ExpandDims", a, ex)

		if a.Rank() > 0 {
			sax := r.IntN(2*a.Rank()) - a.Rank()
			k := sax
			if k < 0 {
				k += a.Rank()
			}
			idx := []int{r.IntN(6) - 2, r.IntN(6) - 1}
			parts := a.SplitAt(array.Axis(sax), idx...)
			bounds := []selSpec{
				{Kind: "r", Step: 1, HasStop: true, Stop: idx[0]},
				{Kind: "r", Step: 1, HasStart: true, Start: idx[0], HasStop: true, Stop: idx[1]},
				{Kind: "r", Step: 1, HasStart: true, Start: idx[1]},
			}
			for j, part := range parts {
				sel := make([]selSpec, k+1)
				for q := range k {
					sel[q] = selSpec{Kind: "r", Step: 1}
				}
				sel[k] = bounds[j]
				sameModel(t, what+fmt.Sprintf(" SplitAt(%d, %v)[%d]", sax, idx, j), modelOf(t, part), indexModel(m, sel))
			}
		}
	}
}

// cOrder reports whether a's elements are dense in dimension order, the
// layouts NumPy's reshape always views.
func cOrder(a *array.Array[int32]) bool {
	s := 1
	for _, d := range a.Dims() {
		if d.Extent == 0 {
			return true
		}
		if d.Extent != 1 && d.Stride != s {
			return false
		}
		s *= d.Extent
	}
	return true
}

func orEmpty(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// factorShape draws a shape (0 to 4 axes) whose element count is n.
func factorShape(r *rand.Rand, n int) []int {
	var shape []int
	rest := n
	for range r.IntN(4) {
		var ds []int
		for d := 1; d <= max(rest, 1); d++ {
			if rest == 0 || rest%d == 0 {
				ds = append(ds, d)
			}
		}
		d := ds[r.IntN(len(ds))]
		if rest == 0 {
			d = r.IntN(3)
		}
		shape = append(shape, d)
		if d != 0 {
			rest /= d
		}
	}
	if rest != 1 || n == 0 && !slices.Contains(shape, 0) {
		shape = append(shape, rest)
	}
	r.Shuffle(len(shape), func(i, j int) { shape[i], shape[j] = shape[j], shape[i] })
	return shape
}

// TestShapeNumPy: a seeded subset of those cases computed again by NumPy
// through /usr/bin/python3 (skipped when it or numpy is missing).
func TestShapeNumPy(t *testing.T) {
	if _, err := os.Stat(npPython); err != nil {
		t.Skip("no " + npPython)
	}
	type npCase struct {
		In    model  `json:"in"`
		Index string `json:"index"`
		Shape []int  `json:"reshape"`
	}
	r := rand.New(rand.NewPCG(22, 7))
	var cases []npCase
	var got []model
	for len(cases) < 80 {
		a := genLayout(r)
		m := modelOf(t, a)
		var sels []selSpec
		var xs []array.Sel
		idx := ""
		for k := range r.IntN(a.Rank() + 1) {
			s := genSel(r, m.Shape[k], false)
			sels, xs = append(sels, s), append(xs, s.sel())
			idx += s.py() + ","
		}
		shape := factorShape(r, m.size())
		rv, err := a.Reshape(shape...)
		if err != nil {
			continue
		}
		if idx == "" {
			idx = "()"
		}
		cases = append(cases, npCase{In: m, Index: idx, Shape: orEmpty(shape)})
		got = append(got, modelOf(t, a.Index(xs...)), modelOf(t, rv))
	}
	in, _ := json.Marshal(cases)
	cmd := exec.Command(npPython, "-c", `
import sys, json
import numpy as np
out = []
for c in json.load(sys.stdin):
    a = np.array(c['in']['data'], dtype=np.int32).reshape(c['in']['shape'])
    for r in (eval('a[' + c['index'] + ']'), a.reshape(c['reshape'])):
        r = np.asarray(r)
        out.append({'shape': list(r.shape), 'data': r.ravel().tolist()})
print(json.dumps(out))
`)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		if bytes.Contains(stderr.Bytes(), []byte("No module named")) {
			t.Skip("no numpy")
		}
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var want []model
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		c := cases[i/2]
		sameModel(t, fmt.Sprintf("case %d (shape %v, a[%s], reshape %v)", i/2, c.In.Shape, c.Index, c.Shape), got[i], want[i])
	}
}

const npPython = "/usr/bin/python3"

// TestIndexOfReshapedView: a crop of a reshaped view can be no box of the
// root (every other row); Index refuses it with ErrNotView, where a device
// write through it would mark rows it never wrote.
func TestIndexOfReshapedView(t *testing.T) {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 6, 4)
	b, err := a.Reshape(3, 8)
	if err != nil {
		t.Fatal(err)
	}
	mustPanicWith(t, array.ErrNotView, func() { b.Index(array.All, array.R(0, 4)) })
	mustPanicWith(t, array.ErrNotView, func() { b.SplitAt(-1, 4) })
	// A crop that is a box is still a view: whole rows of the root.
	v := b.Index(array.R(1, 3))
	sameModel(t, "b[1:3]", modelOf(t, v), model{Shape: []int{2, 8}, Vals: []int32{8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}})
}
