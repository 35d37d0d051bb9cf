package ops_test

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// Tests of the NumPy indexing, constructor and statistics additions
// (indexing.go, unique.go, meshgrid.go, alloc_along.go, generator.go,
// array's construct.go): each against a plain-loop model written here,
// on the host, a computing sim and PoCL where they place work there
// (with the transfer counters), and against NumPy in indexing_numpy_test.go.

// posOf is the NumPy-order position of C-order index i in shape.
func posOf(shape []int, i int) []int {
	p := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		p[k] = i % shape[k]
		i /= shape[k]
	}
	return p
}

// genIdx is an index Array of shape ishape with values in [-n, n).
func genIdx(r *rand.Rand, n int, ishape []int) *array.Array[int64] {
	x := array.Zeros[int64](ishape...)
	h, _ := x.Host()
	for i := range h.Data() {
		h.Data()[i] = int64(r.IntN(2*n) - n)
	}
	return x
}

// genIdxShape is the shape of an index Array of rank 0 to 2 (empty
// when there is nothing to index).
func genIdxShape(r *rand.Rand, n int) []int {
	if n == 0 {
		return []int{0}
	}
	s := make([]int, r.IntN(3))
	for i := range s {
		s[i] = 1 + r.IntN(3)
	}
	return s
}

// takeModel is np.take(a, idx, axis=p) by positions.
func takeModel(a npModel, idx []int64, ishape []int, p int) npModel {
	n := a.Shape[p]
	shape := slices.Concat(a.Shape[:p], ishape, a.Shape[p+1:])
	out := npModel{Shape: shape, Vals: []int32{}}
	eachPos(shape, func(q []int) {
		j := 0
		for k := range ishape {
			j = j*ishape[k] + q[p+k]
		}
		i := int(idx[j])
		if i < 0 {
			i += n
		}
		src := slices.Concat(q[:p], []int{i}, q[p+len(ishape):])
		out.Vals = append(out.Vals, a.at(src))
	})
	return out
}

// TestTakeModel: Take of generated views along every axis with index
// Arrays of rank 0 to 2, against takeModel; on a device the result is
// made there with no transfer.
func TestTakeModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 1))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			for c := range 40 {
				a := genArray(r, 3)
				if a.Rank() == 0 {
					continue
				}
				p := r.IntN(a.Rank())
				ax := array.Axis(p)
				if r.IntN(2) == 0 {
					ax = array.Axis(p - a.Rank())
				}
				n := a.Shape()[p]
				ishape := genIdxShape(r, n)
				idx := genIdx(r, n, ishape)
				m := modelOf(t, a)
				is := vals(t, idx)
				onDev(t, d, a)
				var before device.Stats
				if d != nil {
					before = d.Stats()
				}
				got, err := ops.Take(a, idx, ax)
				must(t, err)
				what := fmt.Sprintf("case %d: np.take(a%v, %v, axis=%d)", c, m.Shape, is, ax)
				if d != nil && got.Len() > 0 {
					checkPlaced(t, what, d, got, before)
				}
				sameModel(t, what, modelOf(t, got), takeModel(m, is, ishape, p))
				got.Close()
			}
		})
	}
}

// TestPutModel: Put at generated flat indices (repeats included, the last
// one winning) with values that repeat, against a C-order model; on a
// device where a is newest, a stays there with no transfer.
func TestPutModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			for c := range 40 {
				a := genArray(r, 3)
				n := a.Len()
				ni := r.IntN(6)
				if n == 0 {
					ni = 0
				}
				idx := genIdx(r, max(n, 1), []int{ni})
				v := array.FromValues([]int32{-1, -2, -3}[:1+r.IntN(3)])
				m := modelOf(t, a)
				for k, i := range vals(t, idx) {
					if i < 0 {
						i += int64(n)
					}
					m.Vals[i] = vals(t, v)[k%v.Len()]
				}
				onDev(t, d, a)
				if d != nil {
					must(t, ops.BinaryScalar(a, a, 0, ops.OpAdd)) // a newest on d
				}
				var before device.Stats
				if d != nil {
					before = d.Stats()
				}
				must(t, ops.Put(a, idx, v))
				if d != nil && ni > 0 {
					checkPlaced(t, fmt.Sprintf("case %d: Put", c), d, a, before)
				}
				sameModel(t, fmt.Sprintf("case %d: np.put(a, %v, %v)", c, vals(t, idx), vals(t, v)), modelOf(t, a), m)
			}
		})
	}
}

// genMask is a mask of shape with about half its elements set.
func genMask(r *rand.Rand, shape []int) *array.Array[uint8] {
	m := array.Zeros[uint8](shape...)
	h, _ := m.Host()
	for i := range h.Data() {
		h.Data()[i] = uint8(r.IntN(2) * (1 + r.IntN(255)))
	}
	return m
}

// TestMaskModel: Extract (a[mask]) and PutMask (a[mask] = x) of
// generated views against loops over C order; PutMask on a device where
// a is newest and the mask current runs there with no transfer.
func TestMaskModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 3))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			for c := range 30 {
				a := genArray(r, 3)
				mask := genMask(r, a.Shape())
				m, ms := modelOf(t, a), vals(t, mask)
				want := npModel{Shape: []int{0}, Vals: []int32{}}
				put := npModel{Shape: m.Shape, Vals: slices.Clone(m.Vals)}
				for i, b := range ms {
					if b != 0 {
						want.Vals = append(want.Vals, m.Vals[i])
						put.Vals[i] = 99
					}
				}
				want.Shape[0] = len(want.Vals)
				onDev(t, d, a, mask)
				if d != nil {
					must(t, ops.BinaryScalar(a, a, 0, ops.OpAdd))
				}
				got, err := ops.Extract(mask, a)
				must(t, err)
				sameModel(t, fmt.Sprintf("case %d: a[mask]", c), modelOf(t, got), want)
				got.Close()
				if d != nil {
					must(t, ops.BinaryScalar(a, a, 0, ops.OpAdd)) // newest on d again
				}
				var before device.Stats
				if d != nil {
					before = d.Stats()
				}
				must(t, ops.PutMask(a, mask, 99))
				if d != nil && a.Len() > 0 {
					checkPlaced(t, fmt.Sprintf("case %d: PutMask", c), d, a, before)
				}
				sameModel(t, fmt.Sprintf("case %d: a[mask] = 99", c), modelOf(t, a), put)
			}
		})
	}
}

// TestMaskGuard: Extract of a device-dirty Array is a counted copy home,
// refused under the transfer guard before anything moves.
func TestMaskGuard(t *testing.T) {
	d := placements(t)[1]
	a := array.FromValues([]float32{1, -2, 3}, 3)
	mask := array.FromValues([]uint8{1, 0, 1}, 3)
	onDev(t, d, a)
	must(t, ops.BinaryScalar(a, a, 1, ops.OpAdd))
	was := guard.Set(true)
	_, err := ops.Extract(mask, a)
	guard.Set(was)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("Extract of a device-dirty Array under the guard: %v, want ErrTransferGuard", err)
	}
	s0 := d.Stats()
	got, err := ops.Extract(mask, a)
	must(t, err)
	if s := d.Stats().Sub(s0); s.D2HCalls == 0 {
		t.Fatalf("Extract of a device-dirty Array: no counted download")
	}
	if v := vals(t, got); !slices.Equal(v, []float32{2, 4}) {
		t.Fatalf("a[mask] = %v, want [2 4]", v)
	}
}

// TestMeshgridModel: Meshgrid ('xy') and MeshgridIJ of 1 to 3 inputs
// against positions; on a device the results are made there.
func TestMeshgridModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			for c := range 12 {
				xs := make([]*array.Array[int32], 1+r.IntN(3))
				ms := make([][]int32, len(xs))
				for k := range xs {
					ms[k] = make([]int32, 1+r.IntN(4))
					for i := range ms[k] {
						ms[k][i] = int32(100*k + i)
					}
					xs[k] = array.FromValues(ms[k])
				}
				onDev(t, d, slices.Collect(func(yield func(array.Buffer) bool) {
					for _, x := range xs {
						yield(x)
					}
				})...)
				for _, xy := range []bool{true, false} {
					shape := make([]int, len(xs))
					ax := make([]int, len(xs))
					for k := range xs {
						shape[k], ax[k] = len(ms[k]), k
					}
					var gs []*array.Array[int32]
					var err error
					if xy {
						gs, err = ops.Meshgrid(xs...)
						if len(xs) >= 2 {
							shape[0], shape[1] = shape[1], shape[0]
							ax[0], ax[1] = 1, 0
						}
					} else {
						gs, err = ops.MeshgridIJ(xs...)
					}
					must(t, err)
					for k, g := range gs {
						if d != nil && (g.Device() != d || !g.DeviceDirty()) {
							t.Fatalf("case %d: meshgrid output %d on %v, want on %s", c, k, g.Device(), d.Name())
						}
						want := npModel{Shape: shape, Vals: []int32{}}
						eachPos(shape, func(p []int) { want.Vals = append(want.Vals, ms[k][p[ax[k]]]) })
						sameModel(t, fmt.Sprintf("case %d xy=%v output %d", c, xy, k), modelOf(t, g), want)
						g.Close()
					}
				}
			}
		})
	}
}

// TestUniqueBincountModel: Unique, UniqueCounts and Bincount of random
// data against a map; floats with NaNs, −0 and +0.
func TestUniqueBincountModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for c := range 30 {
		n := r.IntN(40)
		xs := make([]int32, n)
		count := map[int32]int64{}
		for i := range xs {
			xs[i] = int32(r.IntN(9))
			count[xs[i]]++
		}
		keys := make([]int32, 0, len(count))
		for k := range count {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		a := array.FromValues(xs, n)
		u, cnt, err := ops.UniqueCounts(a)
		must(t, err)
		if got := vals(t, u); !slices.Equal(got, keys) {
			t.Fatalf("case %d: Unique(%v) = %v, want %v", c, xs, got, keys)
		}
		wantCounts := make([]int64, len(keys))
		for i, k := range keys {
			wantCounts[i] = count[k]
		}
		if got := vals(t, cnt); !slices.Equal(got, wantCounts) {
			t.Fatalf("case %d: counts of %v = %v, want %v", c, xs, got, wantCounts)
		}
		minlength := r.IntN(12)
		bc, err := ops.Bincount(a, minlength)
		must(t, err)
		nb := minlength
		if len(keys) > 0 {
			nb = max(nb, int(keys[len(keys)-1])+1)
		}
		want := make([]int64, nb)
		for k, m := range count {
			want[k] = m
		}
		if got := vals(t, bc); !slices.Equal(got, want) {
			t.Fatalf("case %d: Bincount(%v, %d) = %v, want %v", c, xs, minlength, got, want)
		}
	}
	nan := math.NaN()
	f := array.FromValues([]float64{2, nan, -1, 0, nan, math.Copysign(0, -1), 2, math.Inf(1)})
	u, cnt, err := ops.UniqueCounts(f)
	must(t, err)
	gu, gc := vals(t, u), vals(t, cnt)
	if len(gu) != 5 || gu[0] != -1 || gu[1] != 0 || gu[2] != 2 || !math.IsInf(gu[3], 1) || !math.IsNaN(gu[4]) || !slices.Equal(gc, []int64{1, 2, 2, 1, 2}) {
		t.Fatalf("UniqueCounts with NaNs and zeros = %v %v, want [-1 0 2 +Inf NaN] [1 2 2 1 2]", gu, gc)
	}
	if _, err := ops.Bincount(array.FromValues([]int8{1, -1}), 0); !errors.Is(err, array.ErrOutOfRange) {
		t.Fatalf("Bincount of a negative value: %v, want ErrOutOfRange", err)
	}
}

// TestHistogramModel: Histogram of integer-valued data (edges exact)
// against counting by the edges' definition.
func TestHistogramModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 6))
	for c := range 30 {
		n := r.IntN(30)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(r.IntN(17) - 4)
		}
		bins := []int{1, 2, 4, 8}[r.IntN(4)]
		lo, hi := -4.0, 12.0
		ranged := r.IntN(2) == 0
		if !ranged {
			if n == 0 {
				lo, hi = 0, 1
			} else {
				lo, hi = slices.Min(xs), slices.Max(xs)
			}
			if lo == hi {
				lo, hi = lo-0.5, hi+0.5
			}
		} else {
			lo, hi = 0, 8
		}
		want := make([]int64, bins)
		w := (hi - lo) / float64(bins)
		for _, x := range xs {
			for i := range bins {
				a, b := lo+float64(i)*w, lo+float64(i+1)*w
				if x >= a && (x < b || i == bins-1 && x <= b) {
					want[i]++
					break
				}
			}
		}
		a := array.FromValues(xs, n)
		var counts *array.Array[int64]
		var edges *array.Array[float64]
		var err error
		if ranged {
			counts, edges, err = ops.HistogramRange(a, bins, lo, hi)
		} else {
			counts, edges, err = ops.Histogram(a, bins)
		}
		must(t, err)
		if got := vals(t, counts); !slices.Equal(got, want) {
			t.Fatalf("case %d: histogram(%v, %d, ranged %v) = %v, want %v", c, xs, bins, ranged, got, want)
		}
		e := vals(t, edges)
		if len(e) != bins+1 || e[0] != lo || e[bins] != hi {
			t.Fatalf("case %d: edges %v, want %d from %v to %v", c, e, bins+1, lo, hi)
		}
	}
	if _, _, err := ops.Histogram(array.FromValues([]float32{1, float32(math.NaN())}), 2); !errors.Is(err, array.ErrOutOfRange) {
		t.Fatalf("Histogram with a NaN: %v, want ErrOutOfRange", err)
	}
}

// TestLinspaceEyeModel: array's constructors against their formulas.
func TestLinspaceEyeModel(t *testing.T) {
	for _, c := range []struct {
		start, stop float64
		num         int
	}{{0, 1, 5}, {-3, 7, 11}, {2, 2, 3}, {5, -5, 4}, {1, 9, 1}, {0, 1, 0}, {0, 1e-300, 3}} {
		got := vals(t, array.Linspace[float64](c.start, c.stop, c.num))
		if len(got) != c.num {
			t.Fatalf("Linspace%v: %d values", c, len(got))
		}
		for i, y := range got {
			want := c.start
			if c.num > 1 {
				want = c.start + (c.stop-c.start)*float64(i)/float64(c.num-1)
			}
			if math.Abs(y-want) > 1e-15*math.Max(math.Abs(c.start), math.Abs(c.stop)) {
				t.Fatalf("Linspace%v[%d] = %v, want %v", c, i, y, want)
			}
		}
		if c.num > 1 && got[c.num-1] != c.stop {
			t.Fatalf("Linspace%v ends at %v, want stop exactly", c, got[c.num-1])
		}
	}
	if got := vals(t, array.Linspace[int32](-1, 1, 5)); !slices.Equal(got, []int32{-1, -1, 0, 0, 1}) {
		t.Fatalf("Linspace[int32](-1, 1, 5) = %v, want the floors [-1 -1 0 0 1]", got)
	}
	for _, c := range [][3]int{{3, 3, 0}, {2, 4, 1}, {4, 2, -1}, {3, 3, 5}, {0, 2, 0}} {
		e := array.Eye[float32](c[0], c[1], c[2])
		if !slices.Equal(e.Shape(), []int{c[0], c[1]}) {
			t.Fatalf("Eye%v: shape %v", c, e.Shape())
		}
		v, _ := e.HostReadOnly()
		for i := range c[0] {
			for j := range c[1] {
				want := float32(0)
				if j-i == c[2] {
					want = 1
				}
				if got := v.At(j, i); got != want {
					t.Fatalf("Eye%v[%d, %d] = %v, want %v", c, i, j, got, want)
				}
			}
		}
	}
}

// TestMeanFloatModel: MeanAllFloat and MeanFloat of integers are the
// float64 means NumPy gives, where the element type's sum overflows too.
func TestMeanFloatModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 7))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			xs := make([]int8, 24)
			for i := range xs {
				xs[i] = int8(r.IntN(256) - 128)
			}
			a := array.FromValues(xs, 4, 6)
			onDev(t, d, a)
			sum := 0.0
			for _, x := range xs {
				sum += float64(x)
			}
			m, err := ops.MeanAllFloat(a)
			must(t, err)
			if m != sum/24 {
				t.Fatalf("MeanAllFloat = %v, want %v", m, sum/24)
			}
			mf, err := ops.MeanFloat(a, -1)
			must(t, err)
			got := vals(t, mf)
			for i := range 4 {
				s := 0.0
				for _, x := range xs[6*i : 6*i+6] {
					s += float64(x)
				}
				if math.Abs(got[i]-s/6) > 1e-12 {
					t.Fatalf("MeanFloat row %d = %v, want %v", i, got[i], s/6)
				}
			}
			if m, _ := ops.MeanAllFloat(array.FromValues([]int8{100, 100})); m != 100 {
				t.Fatalf("MeanAllFloat(int8 [100, 100]) = %v, want 100 (no wrap)", m)
			}
		})
	}
}

// TestNewAlongPlacement: NewAlong and NewReduceOp (Var, Std) equal their dst-first
// ops on host copies, and run on a's device with no transfer.
func TestNewAlongPlacement(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 8))
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			a := filled(r, 5, 3, 2)
			ha := hostCopy(t, a)
			onDev(t, d, a)
			for _, ax := range []array.Axis{-1, 0, 1} {
				dim := a.DimOf(ax)
				check := func(name string, got *array.Array[float32], err error, op func(dst, x *array.Array[float32]) error, ext []int) {
					t.Helper()
					must(t, err)
					if d != nil && (got.Device() != d || !got.DeviceDirty()) {
						t.Fatalf("%s axis %d on %s: result on %v", name, ax, d.Name(), got.Device())
					}
					want := array.New[float32](ext...)
					must(t, op(want, ha))
					w, g := vals(t, want), vals(t, got)
					for i := range w {
						if math.Abs(float64(w[i]-g[i])) > 1e-5*(1+math.Abs(float64(w[i]))) {
							t.Fatalf("%s axis %d: %v, want %v", name, ax, g, w)
						}
					}
					got.Close()
				}
				red := slices.Delete(a.Extents(), dim, dim+1)
				var before device.Stats
				if d != nil {
					before = d.Stats()
				}
				s, err := ops.NewAlong(ops.Sort, a, ax)
				check("Sort", s, err, func(dst, x *array.Array[float32]) error { return ops.Sort(dst, x, array.Axis(-1-dim)) }, a.Extents())
				c, err := ops.NewAlong(ops.CumSum, a, ax)
				check("CumSum", c, err, func(dst, x *array.Array[float32]) error { return ops.CumSum(dst, x, array.Axis(-1-dim)) }, a.Extents())
				v, err := ops.NewReduceOp(ops.Var, a, ax, 1)
				check("Var", v, err, func(dst, x *array.Array[float32]) error { return ops.Var(dst, x, array.Axis(-1-dim), 1) }, red)
				sd, err := ops.NewReduceOp(ops.Std, a, ax, 0)
				check("Std", sd, err, func(dst, x *array.Array[float32]) error { return ops.Std(dst, x, array.Axis(-1-dim), 0) }, red)
				as, err := ops.NewAlong(ops.ArgSort, a, ax)
				must(t, err)
				wantIdx := array.New[int64](a.Extents()...)
				must(t, ops.ArgSort(wantIdx, ha, array.Axis(-1-dim)))
				if !slices.Equal(vals(t, as), vals(t, wantIdx)) {
					t.Fatalf("ArgSort axis %d differs from the dst-first op", ax)
				}
				if d != nil {
					if s := d.Stats().Sub(before); s.H2DCalls != 0 || s.D2HCalls > 5 {
						t.Fatalf("axis %d on %s: %d uploads (want none), %d downloads (the checks' reads only)", ax, d.Name(), s.H2DCalls, s.D2HCalls)
					}
				}
			}
		})
	}
}

// TestIndexingErrors: programmer errors panic with the package sentinel
// naming the shapes; data errors return errors; closed operands return
// ErrClosed.
func TestIndexingErrors(t *testing.T) {
	a := array.FromValues([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	mustPanicNaming(t, array.ErrShape, func() { _, _ = ops.Take(a, array.FromValues([]int64{0}), 2) })
	mustPanicNaming(t, array.ErrShape, func() { _, _ = ops.Extract(array.Zeros[uint8](3, 2), a) }, "(3, 2)", "(2, 3)")
	mustPanicNaming(t, array.ErrShape, func() { _ = ops.PutMask(a, array.Zeros[uint8](2), 0) }, "(2,)", "(2, 3)")
	mustPanicNaming(t, array.ErrShape, func() { _ = ops.Put(a, array.FromValues([]int64{0}), array.Zeros[int32](0)) })
	mustPanicNaming(t, array.ErrShape, func() { _, _ = ops.Bincount(a, 0) }, "(2, 3)")
	mustPanicNaming(t, array.ErrShape, func() { _, _ = ops.Meshgrid(a) }, "(2, 3)")
	mustPanicNaming(t, array.ErrOutOfRange, func() { _, _, _ = ops.Histogram(a, 0) })
	mustPanicNaming(t, array.ErrOutOfRange, func() { _, _, _ = ops.HistogramRange(a, 2, 3, 1) })
	mustPanicNaming(t, array.ErrOutOfRange, func() { _ = ops.NewGenerator(1).Integers(a, 3, 3) })
	mustPanicNaming(t, array.ErrOutOfRange, func() { _ = ops.NewGenerator(1).Integers(array.New[uint8](2), -1, 3) })
	mustPanicNaming(t, array.ErrOutOfRange, func() { array.Linspace[float32](0, 1, -1) })
	mustPanicNaming(t, array.ErrShape, func() { array.Eye[float32](-1, 2, 0) })
	if err := ops.Put(a, array.FromValues([]int64{6}), a); !errors.Is(err, array.ErrOutOfRange) {
		t.Fatalf("Put out of range: %v", err)
	}
	if !slices.Equal(vals(t, a), []int32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("a failed Put wrote: %v", vals(t, a))
	}
	if err := ops.NewGenerator(1).Integers(array.New[float32](2), 0, 3); !errors.Is(err, ops.ErrUnsupported) {
		t.Fatalf("Integers into float32: %v, want ErrUnsupported", err)
	}
	if err := ops.NewGenerator(1).Normal(array.New[int32](2)); !errors.Is(err, ops.ErrUnsupported) {
		t.Fatalf("Normal into int32: %v, want ErrUnsupported", err)
	}
	c := array.FromValues([]int32{0, 1})
	c.Close()
	idx := array.FromValues([]int64{0})
	for name, f := range map[string]func() error{
		"Take":         func() error { _, err := ops.Take(c, idx, 0); return err },
		"Put":          func() error { return ops.Put(c, idx, a) },
		"Extract":      func() error { _, err := ops.Extract(array.Zeros[uint8](2), c); return err },
		"PutMask":      func() error { return ops.PutMask(c, array.Zeros[uint8](2), 0) },
		"Meshgrid":     func() error { _, err := ops.Meshgrid(c); return err },
		"Unique":       func() error { _, err := ops.Unique(c); return err },
		"Bincount":     func() error { _, err := ops.Bincount(c, 0); return err },
		"Histogram":    func() error { _, _, err := ops.Histogram(c, 2); return err },
		"NewAlong":     func() error { _, err := ops.NewAlong(ops.Sort, c, 0); return err },
		"MeanAllFloat": func() error { _, err := ops.MeanAllFloat(c); return err },
		"MeanFloat":    func() error { _, err := ops.MeanFloat(c, 0); return err },
		"Uniform":      func() error { return ops.NewGenerator(1).Uniform(c) },
		"Integers":     func() error { return ops.NewGenerator(1).Integers(c, 0, 2) },
	} {
		if err := f(); !errors.Is(err, array.ErrClosed) {
			t.Errorf("%s of a closed Array: %v, want ErrClosed", name, err)
		}
	}
}

func mustPanicNaming(t *testing.T, sentinel error, fn func(), words ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, sentinel) {
			t.Fatalf("panic %v, want %v", r, sentinel)
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("panic %q does not name %s", err, w)
			}
		}
	}()
	fn()
}
