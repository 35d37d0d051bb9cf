package ops_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/internal/nptest"
)

// einCase is a drawn Einsum call: its spec and operands (NumPy shapes,
// values in C order), and whether the operands are laid out reversed
// (a transposed storage behind a Permute view).
type einCase struct {
	Spec   string    `json:"spec"`
	Shapes [][]int   `json:"shapes"`
	Vals   [][]int32 `json:"vals"`
	rev    []bool
	diag   bool // a label twice in one operand
}

// genEinsum draws a spec NumPy accepts: 1 to 3 operands over labels of
// extents 1 to 4, with diagonals, "..." (broadcast, extent-1 axes among
// them) and named labels of extent 1 against longer ones, an implicit or
// explicit output.
func genEinsum(r *rand.Rand) einCase {
	pool := []byte("abcdefgAB")
	nl := 1 + r.IntN(5)
	labels := make([]byte, nl)
	for i, k := range r.Perm(len(pool))[:nl] {
		labels[i] = pool[k]
	}
	ext := map[byte]int{}
	for _, c := range labels {
		ext[c] = 1 + r.IntN(4)
	}
	useEll := r.IntN(5) == 0
	ell := make([]int, r.IntN(3))
	for i := range ell {
		ell[i] = 1 + r.IntN(3)
	}
	var c einCase
	nops := 1 + r.IntN(3)
	anyEll := false
	var subs []string
	for range nops {
		rank := r.IntN(4)
		var l []byte
		for range rank {
			l = append(l, labels[r.IntN(nl)])
		}
		shape := []int{}
		diag := false
		for k, x := range l {
			n := ext[x]
			if slices.Index(l, x) < k {
				diag = true
			} else if r.IntN(8) == 0 && bytes.Count(l, []byte{x}) == 1 {
				n = 1 // broadcast against the label's other occurrences
			}
			shape = append(shape, n)
		}
		c.diag = c.diag || diag
		s := string(l)
		if useEll && r.IntN(2) == 0 {
			anyEll = true
			e := r.IntN(len(ell) + 1)
			at := r.IntN(len(l) + 1)
			s = string(l[:at]) + "..." + string(l[at:])
			es := slices.Clone(ell[len(ell)-e:])
			for i := range es {
				if r.IntN(4) == 0 {
					es[i] = 1
				}
			}
			shape = append([]int{}, slices.Concat(shape[:at], es, shape[at:])...)
		}
		subs = append(subs, s)
		c.Shapes = append(c.Shapes, shape)
		n := 1
		for _, x := range shape {
			n *= x
		}
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(r.IntN(7) - 3)
		}
		c.Vals = append(c.Vals, v)
		c.rev = append(c.rev, r.IntN(3) == 0)
	}
	c.Spec = strings.Join(subs, ",")
	if r.IntN(3) > 0 {
		present := map[byte]bool{}
		for _, s := range subs {
			for i := 0; i < len(s); i++ {
				if s[i] != '.' {
					present[s[i]] = true
				}
			}
		}
		var out []byte
		for _, x := range labels {
			if present[x] && r.IntN(2) == 0 {
				out = append(out, x)
			}
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		o := string(out)
		if anyEll {
			at := r.IntN(len(o) + 1)
			o = o[:at] + "..." + o[at:]
		}
		c.Spec += "->" + o
	}
	return c
}

// einOperands makes c's operands as Arrays of T, reversed-storage views
// where c.rev says so.
func einOperands[T array.Elem](c einCase) []*array.Array[T] {
	var xs []*array.Array[T]
	for i, shape := range c.Shapes {
		v := make([]T, len(c.Vals[i]))
		for k, x := range c.Vals[i] {
			v[k] = T(x)
		}
		if len(shape) == 0 {
			xs = append(xs, array.Scalar(v[0]))
			continue
		}
		if !c.rev[i] || len(shape) < 2 {
			xs = append(xs, array.FromValues(v, shape...))
			continue
		}
		// Store the values in Fortran order and reverse the axes back.
		rs := slices.Clone(shape)
		slices.Reverse(rs)
		st := make([]T, len(v))
		idx := make([]int, len(shape))
		for k := range v {
			f, m := 0, 1
			for a := 0; a < len(shape); a++ {
				f += idx[a] * m
				m *= shape[a]
			}
			st[f] = v[k]
			for a := len(shape) - 1; a >= 0; a-- {
				if idx[a]++; idx[a] < shape[a] {
					break
				}
				idx[a] = 0
			}
		}
		order := make([]int, len(shape))
		for d := range order {
			order[d] = len(shape) - 1 - d
		}
		x := array.FromValues(st, rs...).Permute(order...)
		if !slices.Equal(x.Shape(), shape) {
			panic(fmt.Sprint("reversed view of ", shape, " has shape ", x.Shape()))
		}
		xs = append(xs, x)
	}
	return xs
}

// numpyEinsum runs cases through np.einsum (int64 results), or skips t
// without python3 and numpy.
func numpyEinsum(t *testing.T, cases []einCase) []npModel {
	t.Helper()
	var want []struct {
		Shape []int   `json:"shape"`
		Vals  []int64 `json:"vals"`
	}
	nptest.Run(t, `
import sys, json
import numpy as np
out = []
for c in json.load(sys.stdin):
    xs = [np.array(v, dtype=np.int64).reshape(s) for v, s in zip(c['vals'], c['shapes'])]
    r = np.asarray(np.einsum(c['spec'], *xs))
    out.append({'shape': list(r.shape), 'vals': [int(v) for v in r.ravel().tolist()]})
print(json.dumps(out))
`, cases, &want)
	out := make([]npModel, len(want))
	for i, w := range want {
		v := make([]int32, len(w.Vals))
		for k, x := range w.Vals {
			v[k] = int32(x)
		}
		out[i] = npModel{Shape: w.Shape, Vals: v}
	}
	return out
}

// TestEinsumNumPy: drawn specs and operands (views among them) through
// Einsum for int32, float32 and float64, on the host, the simulated
// device and PoCL, against np.einsum: the same shapes and values
// (exact: the values are small integers). On a device the result is
// resident there and, without a diagonal's mask, nothing moved.
func TestEinsumNumPy(t *testing.T) {
	r := rand.New(rand.NewPCG(36, uint64(*einSeed)))
	var cases []einCase
	for range *einN {
		cases = append(cases, genEinsum(r))
	}
	want := numpyEinsum(t, cases)
	devs := []device.Device{nil, sim.NewCompute("einsum", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	}
	for _, d := range devs {
		t.Run(devName(d), func(t *testing.T) {
			for i, c := range cases {
				einCheck[int32](t, d, i, c, want[i])
				einCheck[float64](t, d, i, c, want[i])
				if d == nil || i%4 == 0 {
					einCheck[float32](t, d, i, c, want[i])
				}
			}
		})
	}
}

var (
	einN    = flag.Int("einsum.n", 150, "cases of TestEinsumNumPy")
	einSeed = flag.Int("einsum.seed", 1, "seed of TestEinsumNumPy's cases")
)

func einCheck[T array.Elem](t *testing.T, d device.Device, i int, c einCase, w npModel) {
	t.Helper()
	xs := einOperands[T](c)
	if d != nil {
		for _, x := range xs {
			must(t, ops.On(d, x))
		}
	}
	var before device.Stats
	if d != nil {
		before = d.Stats()
	}
	got, err := ops.Einsum(c.Spec, xs...)
	if err != nil {
		t.Fatalf("case %d %q %v on %s: %v", i, c.Spec, c.Shapes, devName(d), err)
	}
	defer got.Close()
	if d != nil {
		moved := d.Stats().Sub(before)
		if got.Device() != d {
			t.Errorf("case %d %q: result on %v, want %s", i, c.Spec, got.Device(), d.Name())
		}
		if !c.diag && (moved.H2DCalls != 0 || moved.D2HCalls != 0) {
			t.Errorf("case %d %q %v on %s: %d uploads and %d downloads, want none", i, c.Spec, c.Shapes, d.Name(), moved.H2DCalls, moved.D2HCalls)
		}
	}
	g := vals(t, got)
	ok := slices.Equal(orEmpty(got.Shape()), orEmpty(w.Shape)) && len(g) == len(w.Vals)
	for k := 0; ok && k < len(g); k++ {
		ok = float64(g[k]) == float64(w.Vals[k])
	}
	if !ok {
		t.Errorf("case %d: Einsum[%s](%q) of %v on %s: got %v %v, NumPy %v %v", i, array.TypeOf[T](), c.Spec, c.Shapes, devName(d), got.Shape(), g, w.Shape, w.Vals)
	}
	for _, x := range xs {
		x.Close()
	}
}

// TestEinsumMistakes: specs that cannot be the operands' panic with
// array.ErrShape and a message naming the mistake, NumPy's refusals all.
func TestEinsumMistakes(t *testing.T) {
	a := array.Zeros[float32](2, 3)
	b := array.Zeros[float32](4, 3)
	for _, c := range []struct {
		spec string
		xs   []*array.Array[float32]
		msg  string
	}{
		{"ij,jk", []*array.Array[float32]{a, b}, "extents 3 and 4"},
		{"ij", []*array.Array[float32]{a, b}, "1 operand subscripts for 2 operands"},
		{"ijk", []*array.Array[float32]{a}, "2 axes but 3 subscripts"},
		{"i", []*array.Array[float32]{a}, "2 axes but 1 subscripts"},
		{"ij->k", []*array.Array[float32]{a}, "in no operand"},
		{"ij->ii", []*array.Array[float32]{a}, "twice"},
		{"ii", []*array.Array[float32]{a}, "diagonal"},
		{"i1", []*array.Array[float32]{a}, "not a letter"},
		{"i...->i", []*array.Array[float32]{a}, "no \"...\""},
		{"......", []*array.Array[float32]{a}, "twice"},
		{"ij->i->j", []*array.Array[float32]{a}, "more than one"},
		{"", nil, "no operands"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			mustPanicWith(t, array.ErrShape, c.msg, func() { ops.Einsum(c.spec, c.xs...) })
		})
	}
}

// FuzzEinsumSpec: any spec, against operands of drawn shapes, returns a
// result or panics with array.ErrShape; never another panic.
func FuzzEinsumSpec(f *testing.F) {
	for _, s := range []string{"ij,jk->ik", "ii", "...i,...i", "i,j", "ij->", "a...b->...", "->", ",", "ij,,k"} {
		f.Add(s, uint8(2), uint8(3))
	}
	f.Fuzz(func(t *testing.T, spec string, n0, n1 uint8) {
		xs := []*array.Array[int32]{
			array.Full[int32](1, int(n0%3)+1, int(n1%3)+1),
			array.Full[int32](2, int(n1%3)+1),
		}
		k := strings.Count(spec, ",") + 1
		if k > len(xs) {
			k = len(xs)
		}
		defer func() {
			if p := recover(); p != nil {
				if err, ok := p.(error); !ok || !errors.Is(err, array.ErrShape) {
					t.Fatalf("Einsum(%q): panic %v", spec, p)
				}
			}
		}()
		if r, err := ops.Einsum(spec, xs[:k]...); err != nil {
			t.Fatalf("Einsum(%q): error %v (a spec mistake panics)", spec, err)
		} else {
			r.Close()
		}
	})
}

// TestEinsumClosesTemporaries: a three-operand contraction on a device
// leaves only its result allocated there.
func TestEinsumClosesTemporaries(t *testing.T) {
	d := sim.NewCompute("einsum-live", 0)
	a := array.Full[float32](1, 3, 4)
	b := array.Full[float32](2, 4, 5)
	c := array.Full[float32](3, 5, 3)
	must(t, ops.On(d, a, b, c))
	live := d.Stats().AllocsLive
	r, err := ops.Einsum("ij,jk,ki->", a, b, c)
	must(t, err)
	if n := d.Stats().AllocsLive - live; n != 1 {
		t.Errorf("%d allocations live after Einsum, want 1 (its result)", n)
	}
	v, err := r.HostReadOnly()
	must(t, err)
	if got := v.At(); math.Abs(float64(got)-3*1*2*3*4*5) > 0 {
		t.Errorf("trace of the product: %v, want %v", got, 3*2*3*4*5)
	}
	r.Close()
}

// TestEinsumFailures: on a device that runs out of memory at every point
// of a three-operand contraction (an allocation limit swept upward), or
// whose first launch fails, Einsum returns the error and leaves nothing
// allocated but the operands, which keep their values.
func TestEinsumFailures(t *testing.T) {
	vals := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%5 - 2)
		}
		return v
	}
	run := func(d *sim.Device) (*array.Array[float32], error, []*array.Array[float32]) {
		xs := []*array.Array[float32]{array.FromValues(vals(12), 3, 4), array.FromValues(vals(20), 4, 5), array.FromValues(vals(15), 5, 3)}
		if err := ops.On(d, xs[0], xs[1], xs[2]); err != nil {
			return nil, err, nil // the limit is below the operands
		}
		r, err := ops.Einsum("ij,jk,kl->il", xs...)
		return r, err, xs
	}
	ref, err, _ := run(sim.NewCompute("ref", 0))
	must(t, err)
	want := mustVals(t, ref)
	fails, oks := 0, 0
	for limit := 160; limit <= 1024 && oks == 0; limit += 16 {
		d := sim.NewCompute("limited", limit)
		r, err, xs := run(d)
		if xs == nil {
			continue
		}
		live := int64(len(xs))
		if err != nil {
			fails++
			if !strings.Contains(err.Error(), "exceeds the device's") {
				t.Errorf("limit %d: error %v is not the device's refusal", limit, err)
			}
		} else {
			oks++
			if got := mustVals(t, r); !slices.Equal(got, want) {
				t.Errorf("limit %d: %v, want %v", limit, got, want)
			}
			live++
		}
		if n := d.Stats().AllocsLive; n != live {
			t.Errorf("limit %d (err %v): %d allocations live, want %d", limit, err, n, live)
		}
		if got := mustVals(t, xs[1]); !slices.Equal(got, vals(20)) {
			t.Errorf("limit %d: an operand changed: %v", limit, got)
		}
	}
	if fails == 0 || oks == 0 {
		t.Fatalf("the sweep saw %d failures and %d successes, want both", fails, oks)
	}
	d := sim.NewCompute("launch", 0)
	xs := []*array.Array[float32]{array.FromValues(vals(12), 3, 4), array.FromValues(vals(20), 4, 5)}
	must(t, ops.On(d, xs[0], xs[1]))
	d.FailNext("Run", errors.New("injected"))
	if _, err := ops.Einsum("ij,jk", xs...); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("a failed launch: %v", err)
	}
	if n := d.Stats().AllocsLive; n != 2 {
		t.Errorf("after a failed launch %d allocations live, want 2 (the operands)", n)
	}
}

func mustVals(t *testing.T, a *array.Array[float32]) []float32 { t.Helper(); return vals(t, a) }

// BenchmarkEinsum: Einsum's matrix product against NewMatMul, the same
// product, in one run (float32, n×n by n×n, on the host).
func BenchmarkEinsum(b *testing.B) {
	for _, n := range []int{64, 256, 1024} {
		x := array.Full[float32](0.5, n, n)
		y := array.Full[float32](0.25, n, n)
		for _, c := range []struct {
			name string
			f    func() (*array.Array[float32], error)
		}{
			{"einsum", func() (*array.Array[float32], error) { return ops.Einsum("ij,jk->ik", x, y) }},
			{"matmul", func() (*array.Array[float32], error) { return ops.NewMatMul(x, y) }},
		} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				b.SetBytes(int64(3 * n * n * 4))
				b.ReportAllocs()
				for b.Loop() {
					r, err := c.f()
					if err != nil {
						b.Fatal(err)
					}
					r.Close()
				}
			})
		}
	}
}
