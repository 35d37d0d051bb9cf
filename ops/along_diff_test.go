package ops

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/draw"
)

// The Along family of TestDiff: the ops of stats.go, scan.go, sort.go and
// softmax.go on generated layouts and residency states, against the
// references below (plain loops in float64 or 64-bit integers, never
// calling ops).

var alongOpNames = [...]string{"Var", "Std", "NormL1", "NormL2", "NormMax", "LogSumExp", "CountNonzero", "Any", "All",
	"CumSum", "CumProd", "Sort", "ArgSort", "TopK", "Softmax",
	"VarAll", "StdAll", "NormL1All", "NormL2All", "NormMaxAll", "LogSumExpAll", "CountNonzeroAll", "AnyAll", "AllAll"}

const (
	alVar = iota
	alStd
	alL1
	alL2
	alMax
	alLSE
	alCount
	alAny
	alAll
	alCumSum
	alCumProd
	alSort
	alArgSort
	alTopK
	alSoftmax
	alVarAll // … the *All forms of alVar … alAll, in that order
	nAlong   = alVarAll + 9
)

// alongFloatOnly reports the ops that refuse integer types.
func alongFloatOnly(op int) bool {
	if op >= alVarAll {
		op -= alVarAll
	}
	return op <= alLSE || op == alSoftmax
}

func diffAlong[T array.Elem](g *dgen) {
	op := g.n(nAlong)
	ext := drawExt(g, 4)
	if op < alVarAll && len(ext) == 0 {
		ext = []int{1 + g.n(9)}
	}
	dim := 0
	if len(ext) > 0 {
		dim = g.n(len(ext))
	}
	if (op == alMax || op == alVarAll+4) && slices.Contains(ext, 0) {
		for i := range ext {
			ext[i] = max(ext[i], 1) // NormMax over nothing is an error (TestAlongErrors)
		}
	}
	v := valSmall
	if op == alCumProd {
		v = valUnit
	}
	a := newInput[T](g, ext, v)
	g.note("%s along %d", alongOpNames[op], dim)
	unsup := alongFloatOnly(op) && !isFloatT[T]()
	ddof := g.n(3)
	if op >= alVarAll {
		diffAlongAll(g, op-alVarAll, a, ddof, unsup)
		return
	}
	L := ext[dim]
	rext := slices.Delete(slices.Clone(ext), dim, dim+1)
	if g.p(0.3) {
		rext = slices.Clone(ext)
		rext[dim] = 1
	}
	// line returns a's values along dim at the position pos of the other
	// dimensions (pos has a's rank; pos[dim] is ignored)
	line := func(pos []int) []T {
		q := slices.Clone(pos)
		xs := make([]T, L)
		for k := range L {
			q[dim] = k
			xs[k] = a.at(q)
		}
		return xs
	}
	// full turns a position of a reduced dst into one of a's shape
	full := func(pos []int) []int {
		if len(pos) == len(ext) {
			return slices.Clone(pos)
		}
		return slices.Insert(slices.Clone(pos), dim, 0)
	}
	tol := 4 * devTol[T]()
	switch op {
	case alCount, alAny, alAll:
		if op == alCount {
			dst := newOperand[int64](g, rext, valSmall)
			p := g.expect(isF64[T](), dst.a, a.a)
			if !g.finish(p, CountNonzero(dst.a, a.a, axisOf(dim)), false, dst.a, a.a) {
				return
			}
			compareTo(g, dst.a, func(pos []int) int64 { return int64(drefCount(line(full(pos)))) }, exact)
			return
		}
		dst := newOperand[uint8](g, rext, valSmall)
		p := g.expect(isF64[T](), dst.a, a.a)
		var err error
		if op == alAny {
			err = Any(dst.a, a.a, axisOf(dim))
		} else {
			err = All(dst.a, a.a, axisOf(dim))
		}
		if !g.finish(p, err, false, dst.a, a.a) {
			return
		}
		compareTo(g, dst.a, func(pos []int) uint8 {
			xs := line(full(pos))
			c := drefCount(xs)
			if op == alAny && c > 0 || op == alAll && c == len(xs) {
				return 1
			}
			return 0
		}, exact)
	case alVar, alStd, alL1, alL2, alMax, alLSE:
		dst := newOperand[T](g, rext, valSmall)
		p := g.expect(isF64[T](), dst.a, a.a)
		var err error
		switch op {
		case alVar:
			err = Var(dst.a, a.a, axisOf(dim), ddof)
		case alStd:
			err = Std(dst.a, a.a, axisOf(dim), ddof)
		case alL1, alL2, alMax:
			err = Norm(dst.a, a.a, axisOf(dim), NormOrd(op-alL1))
		case alLSE:
			err = LogSumExp(dst.a, a.a, axisOf(dim))
		}
		if !g.finish(p, err, unsup, dst.a, a.a) {
			return
		}
		compareTo(g, dst.a, func(pos []int) T { return drefFromF[T](drefStat(op, line(full(pos)), ddof)) },
			func([]int) float64 { return tol })
	case alCumSum, alCumProd, alSoftmax, alSort:
		dst := newOperand[T](g, ext, valSmall)
		if g.p(0.2) && a.a.Raw().Len() > 0 && a.a.Raw().Writable() {
			dst = a // in place
			g.note("in place")
		}
		vals := slices.Clone(a.vals)
		src := &operand[T]{a: a.a, ext: a.ext, vals: vals}
		lineOf := func(pos []int) []T {
			q := slices.Clone(pos)
			xs := make([]T, L)
			for k := range L {
				q[dim] = k
				xs[k] = src.at(q)
			}
			return xs
		}
		p := g.expect(isF64[T](), dst.a, a.a)
		var err error
		switch op {
		case alCumSum:
			err = CumSum(dst.a, a.a, axisOf(dim))
		case alCumProd:
			err = CumProd(dst.a, a.a, axisOf(dim))
		case alSoftmax:
			err = Softmax(dst.a, a.a, axisOf(dim))
		case alSort:
			err = Sort(dst.a, a.a, axisOf(dim))
		}
		if !g.finish(p, err, unsup, dst.a, a.a) {
			return
		}
		compareTo(g, dst.a, func(pos []int) T {
			xs := lineOf(pos)
			k := pos[dim]
			switch op {
			case alCumSum, alCumProd:
				return drefScan(op == alCumProd, xs)[k]
			case alSoftmax:
				return drefFromF[T](drefSoftmax(xs)[k])
			}
			return xs[drefOrder(xs, false)[k]]
		}, func(pos []int) float64 {
			switch op {
			case alSort:
				return 0
			case alCumProd:
				return devTol[T]() * float64(max(1, L))
			case alCumSum:
				return devTol[T]() * 4 * max(1, drefAbsSum(lineOf(pos)))
			}
			return 8 * devTol[T]()
		})
	case alArgSort, alTopK:
		if op == alArgSort {
			dst := newOperand[int64](g, ext, valSmall)
			p := g.expect(isF64[T](), dst.a, a.a)
			if !g.finish(p, ArgSort(dst.a, a.a, axisOf(dim)), false, dst.a, a.a) {
				return
			}
			base := int64(a.a.Dim(dim).Min)
			compareTo(g, dst.a, func(pos []int) int64 { return int64(drefOrder(line(pos), false)[pos[dim]]) + base }, exact)
			return
		}
		k := 0
		if L > 0 {
			k = g.n(L + 1)
		}
		kext := slices.Clone(ext)
		kext[dim] = k
		withV, withI := true, true
		switch g.n(4) {
		case 0:
			withV = false
		case 1:
			withI = false
		}
		var vals *operand[T]
		var idx *array.Array[int64]
		if withV {
			vals = newOperand[T](g, kext, valSmall)
		}
		if withI {
			// host-new: a second output does not sway placement
			idx = layoutOf[int64](g, kext)
		}
		var p placed
		var err error
		if withV {
			p = g.expect(isF64[T](), vals.a, a.a)
			err = TopK(vals.a, idx, a.a, axisOf(dim))
		} else {
			p = g.expect(isF64[T](), idx, a.a)
			err = TopK(nil, idx, a.a, axisOf(dim))
		}
		if withV && !g.finish(p, err, false, vals.a, a.a) || !withV && !g.finish(p, err, false, idx, a.a) {
			return
		}
		if withV && withI && p.dev && idx.Len() > 0 && !idx.DeviceDirty() {
			g.tb.Errorf("TopK ran on the device, but idx is not device-dirty there")
		}
		base := int64(a.a.Dim(dim).Min)
		if withV {
			compareTo(g, vals.a, func(pos []int) T { xs := line(pos); return xs[drefOrder(xs, true)[pos[dim]]] }, exact)
		}
		if withI {
			compareTo(g, idx, func(pos []int) int64 { return int64(drefOrder(line(pos), true)[pos[dim]]) + base }, exact)
		}
	}
}

func diffAlongAll[T array.Elem](g *dgen, op int, a *operand[T], ddof int, unsup bool) {
	p := g.expect(isF64[T](), nil, a.a)
	xs := slices.Clone(a.vals)
	var got float64
	var err error
	switch op {
	case alVar, alStd, alL1, alL2, alMax, alLSE:
		var v T
		switch op {
		case alVar:
			v, err = ValueOp(Var, a.a, ddof)
		case alStd:
			v, err = ValueOp(Std, a.a, ddof)
		case alL1, alL2, alMax:
			v, err = ValueOp(Norm, a.a, NormOrd(op-alL1))
		case alLSE:
			v, err = Value(LogSumExp, a.a)
		}
		if !g.finish(p, err, unsup, nil, a.a) {
			return
		}
		if want := drefFromF[T](drefStat(op, xs, ddof)); !closeTo(v, want, 4*devTol[T]()) {
			g.tb.Errorf("%sAll = %v, want %v", alongOpNames[op], v, want)
		}
		return
	case alCount:
		var c int64
		c, err = Value(CountNonzero, a.a)
		got = float64(c)
	case alAny, alAll:
		var b uint8
		if op == alAny {
			b, err = Value(Any, a.a)
		} else {
			b, err = Value(All, a.a)
		}
		got = float64(b)
	}
	if !g.finish(p, err, false, nil, a.a) {
		return
	}
	c := drefCount(xs)
	want := float64(c)
	if op == alAny {
		want = b2f(c > 0)
	} else if op == alAll {
		want = b2f(c == len(xs))
	}
	if got != want {
		g.tb.Errorf("%sAll = %v, want %v", alongOpNames[op], got, want)
	}
}

// drefCount counts the nonzero elements (NaN is nonzero, −0 is not).
func drefCount[T array.Elem](xs []T) int {
	c := 0
	for _, x := range xs {
		if isFloatT[T]() && drefF(x) != 0 || !isFloatT[T]() && drefU(x) != 0 {
			c++
		}
	}
	return c
}

// drefStat is statistic op (alVar … alLSE) of xs by its definition.
func drefStat[T array.Elem](op int, xs []T, ddof int) float64 {
	n := float64(len(xs))
	switch op {
	case alVar, alStd:
		var s float64
		for _, x := range xs {
			s += drefF(x)
		}
		m, q := s/n, 0.0
		for _, x := range xs {
			q += (drefF(x) - m) * (drefF(x) - m)
		}
		v := q / max(n-float64(ddof), 0)
		if op == alStd {
			return math.Sqrt(v)
		}
		return v
	case alL1, alL2:
		var s float64
		for _, x := range xs {
			if op == alL1 {
				s += math.Abs(drefF(x))
			} else {
				s += drefF(x) * drefF(x)
			}
		}
		if op == alL2 {
			return math.Sqrt(s)
		}
		return s
	case alMax:
		m := 0.0
		for _, x := range xs {
			if f := math.Abs(drefF(x)); f > m || f != f {
				m = f
			}
		}
		for _, x := range xs {
			if f := drefF(x); f != f {
				return f
			}
		}
		return m
	}
	// LogSumExp: the maximum where it is not finite, −Inf over nothing
	m := math.Inf(-1)
	for _, x := range xs {
		if f := drefF(x); f > m {
			m = f
		}
	}
	for _, x := range xs {
		if f := drefF(x); f != f {
			return f
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var s float64
	for _, x := range xs {
		s += math.Exp(drefF(x) - m)
	}
	return m + math.Log(s)
}

// drefScan is the running sums or products, wrapping for integers.
func drefScan[T array.Elem](prod bool, xs []T) []T {
	out := make([]T, len(xs))
	if isFloatT[T]() {
		r := 0.0
		if prod {
			r = 1
		}
		for i, x := range xs {
			if prod {
				r *= drefF(x)
			} else {
				r += drefF(x)
			}
			out[i] = drefFromF[T](r)
		}
		return out
	}
	var r uint64
	if prod {
		r = 1
	}
	for i, x := range xs {
		if prod {
			r *= drefU(x)
		} else {
			r += drefU(x)
		}
		out[i] = drefWrap[T](r)
	}
	return out
}

func drefAbsSum[T array.Elem](xs []T) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Abs(drefF(x))
	}
	return s
}

func drefSoftmax[T array.Elem](xs []T) []float64 {
	m := math.Inf(-1)
	nan := false
	for _, x := range xs {
		f := drefF(x)
		m = max(m, f)
		nan = nan || f != f
	}
	if nan {
		m = math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += math.Exp(drefF(x) - m)
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Exp(drefF(x)-m) / s
	}
	return out
}

// drefOrder is the stable order of xs (indices): ascending with −0
// before +0 and NaNs last, or (desc) descending with NaNs first; ties in
// index order.
func drefOrder[T array.Elem](xs []T, desc bool) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	rank := func(x T) (int, float64) { // class: 0 number, 1 NaN
		if !isFloatT[T]() {
			if isSignedT[T]() {
				return 0, float64(drefI(x))
			}
			return 0, float64(drefU(x))
		}
		f := drefF(x)
		if f != f {
			return 1, 0
		}
		if f == 0 && math.Signbit(f) {
			return 0, -1e-300 // −0 just below +0, above every negative of these types
		}
		return 0, f
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		ci, fi := rank(xs[i])
		cj, fj := rank(xs[j])
		c := cmp.Compare(ci, cj)
		if c == 0 {
			c = cmp.Compare(fi, fj)
			if c == 0 && !isFloatT[T]() && !isSignedT[T]() {
				c = cmp.Compare(drefU(xs[i]), drefU(xs[j])) // uint64 past 2^53
			} else if c == 0 && isSignedT[T]() {
				c = cmp.Compare(drefI(xs[i]), drefI(xs[j]))
			}
		}
		if desc {
			return -c
		}
		return c
	})
	return idx
}

var _ = fmt.Sprint

// TestTopKSelect: few of many (TopK's heap selection) on lines with many
// ties and some NaNs, against the reference order.
func TestTopKSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, L := range []int{17, 100, 1000, 5000} {
		xs := make([]float32, L)
		for i := range xs {
			xs[i] = float32(r.IntN(20) - 10)
			if r.IntN(50) == 0 {
				xs[i] = float32(math.NaN())
			}
		}
		a := array.FromSlice(xs, L)
		for _, k := range []int{0, 1, 3, L / 20} {
			vals, idx := array.New[float32](k), array.New[int64](k)
			if err := TopK(vals, idx, a, -1); err != nil {
				t.Fatal(err)
			}
			want := drefOrder(xs, true)[:k]
			vv, _ := vals.HostReadOnly()
			iv, _ := idx.HostReadOnly()
			for q := range k {
				if int(iv.At(q)) != want[q] || !same(vv.At(q), xs[want[q]]) {
					t.Fatalf("L %d k %d: slot %d: got %v at %d, want %v at %d", L, k, q, vv.At(q), iv.At(q), xs[want[q]], want[q])
				}
			}
		}
	}
}

// TestSortLongLines: Sort of float32 lines past insertion sort's 48
// (radixU32, values without indices) and past sortF32Min (sortF32's 11-bit
// digits, counted by sortedF32) against the reference order, with keys
// that vary in every byte, keys that share their high bytes (the passes
// skipped), ties, ±0 and NaNs of either sign and any payload, which keep
// their bits and index order.
func TestSortLongLines(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 5))
	for c := range 60 {
		L := 49 + r.IntN(3000)
		if c%2 == 1 {
			L = sortF32Min + r.IntN(12000)
		}
		xs := make([]float32, L)
		spread := r.IntN(3)
		for i := range xs {
			switch spread {
			case 0: // every byte differs
				xs[i] = float32(r.NormFloat64() * 1e3)
			case 1: // same sign and exponent: the top digit is skipped
				xs[i] = 1 + r.Float32()
			default: // few values: ties, ±0
				xs[i] = float32(r.IntN(5)-2) * 0.5
				if xs[i] == 0 && r.IntN(2) == 0 {
					xs[i] = float32(math.Copysign(0, -1))
				}
			}
			if r.IntN(100) == 0 {
				xs[i] = math.Float32frombits(0x7f800001 | r.Uint32()&0x807fffff)
			}
		}
		before := sortedF32.Load()
		a := array.FromSlice(slices.Clone(xs), L)
		if err := Sort(a, a, -1); err != nil {
			t.Fatal(err)
		}
		if got, want := sortedF32.Load()-before, int64(L/sortF32Min); got != min(want, 1) {
			t.Fatalf("case %d (L %d): %d lines took sortF32, want %d", c, L, got, min(want, 1))
		}
		got, _ := a.HostReadOnly()
		for q, i := range drefOrder(xs, false) {
			if math.Float32bits(got.At(q)) != math.Float32bits(xs[i]) {
				t.Fatalf("case %d (L %d, spread %d): slot %d is %v (%#x), want %v (%#x)", c, L, spread, q, got.At(q), math.Float32bits(got.At(q)), xs[i], math.Float32bits(xs[i]))
			}
		}
	}
}
