package ops_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

var copyOrderSeed = flag.Uint64("copyorder.seed", 0, "seed of TestCopyKeepsOrder's layouts (0: the time, logged)")

// TestCopyKeepsOrder draws layouts (roots dense in a drawn stride order or
// interleaved, permuted views, crops, slices, moved mins, broadcasts), on
// the host, resident on a computing sim and on PoCL (device-dirty or
// current there), and copies each with array.Like, Compact and
// ops.Clone: in the default order the copy is dense with the source's
// stride order, holds its elements, and every Reshape view of the source
// is one of the copy with the same elements; with COrder it is planar
// (dimension 0 innermost) with the same elements. The seed changes per
// run (logged; -copyorder.seed replays one).
func TestCopyKeepsOrder(t *testing.T) {
	seed := *copyOrderSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -copyorder.seed %d)", seed, seed)
	n := 40
	if testing.Short() {
		n = 15
	}
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			for i := range n {
				checkCopyOrder(t, r, d, i)
			}
		})
	}
}

// memOrder is a layout's memory order: its dimensions of extent > 1 by
// increasing stride, ties in dimension order.
func memOrder(dims []array.Dim) []int {
	var o []int
	for i, d := range dims {
		if d.Extent > 1 {
			o = append(o, i)
		}
	}
	slices.SortStableFunc(o, func(a, b int) int { return dims[a].Stride - dims[b].Stride })
	return o
}

// drawLayout returns a root and a view of it laid out as drawn, and what
// was drawn.
func drawLayout(r *rand.Rand) (root, v *array.Array[int32], how string) {
	rank := 1 + r.IntN(4)
	ext := make([]int, rank)
	for i := range ext {
		ext[i] = 1 + r.IntN(4)
		if r.IntN(20) == 0 {
			ext[i] = 0
		}
	}
	if rank == 3 && r.IntN(3) == 0 {
		root = array.NewInterleaved[int32](ext[0], ext[1], ext[2])
		v, how = root, fmt.Sprintf("interleaved %v", ext)
	} else {
		perm := r.Perm(rank) // the root's dimension i is the view's perm[i]
		rext := make([]int, rank)
		for i, p := range perm {
			rext[i] = ext[p]
		}
		root = array.New[int32](rext...)
		inv := make([]int, rank)
		for i, p := range perm {
			inv[p] = i
		}
		v, how = root.Permute(inv...), fmt.Sprintf("root %v permuted %v", rext, inv)
	}
	h, _ := root.Host()
	for i := range h.Data() {
		h.Data()[i] = int32(i + 1)
	}
	for k := 0; k < 3; k++ {
		switch r.IntN(6) {
		case 0: // crop
			dim := r.IntN(v.Rank())
			dd := v.Dim(dim)
			if dd.Extent > 1 {
				lo := r.IntN(dd.Extent)
				e := 1 + r.IntN(dd.Extent-lo)
				v = v.Crop(dim, dd.Min+lo, e)
				how += fmt.Sprintf(", crop(%d, %d, %d)", dim, dd.Min+lo, e)
			}
		case 1: // slice
			dim := r.IntN(v.Rank())
			if dd := v.Dim(dim); v.Rank() > 1 && dd.Extent > 0 {
				v = v.Slice(dim, dd.Min+r.IntN(dd.Extent))
				how += fmt.Sprintf(", slice(%d)", dim)
			}
		case 2: // mins
			dim := r.IntN(v.Rank())
			delta := r.IntN(7) - 3
			v = v.Translate(dim, delta)
			how += fmt.Sprintf(", translate(%d, %d)", dim, delta)
		case 3: // broadcast: a new outer axis, or an extent-1 axis repeated
			if v.Rank() < 5 && v.Len() > 0 {
				s := v.Shape()
				if i := slices.Index(s, 1); i >= 0 && r.IntN(2) == 0 {
					s[i] = 2 + r.IntN(2)
				} else {
					s = append([]int{2 + r.IntN(2)}, s...)
				}
				b, err := v.BroadcastTo(s...)
				if err == nil {
					v = b
					how += fmt.Sprintf(", broadcast_to%v", s)
				}
			}
		case 4: // transpose
			if v.Rank() > 1 {
				a, b := r.IntN(v.Rank()), r.IntN(v.Rank())
				v = v.Transpose(a, b)
				how += fmt.Sprintf(", transpose(%d, %d)", a, b)
			}
		}
	}
	return root, v, how
}

// reshapes are NumPy shapes to try on shape: every merge of adjacent
// axes, each with one axis split by one of its divisors or a 1 inserted.
func reshapes(shape []int) [][]int {
	var out [][]int
	for mask := 0; mask < 1<<max(len(shape)-1, 0); mask++ {
		g := []int{}
		if len(shape) > 0 {
			g = append(g, shape[0])
		}
		for i := 1; i < len(shape); i++ {
			if mask>>(i-1)&1 == 1 {
				g[len(g)-1] *= shape[i]
			} else {
				g = append(g, shape[i])
			}
		}
		out = append(out, g)
		for i, e := range g {
			for f := 2; f < e; f++ {
				if e%f == 0 {
					out = append(out, slices.Concat(g[:i], []int{f, e / f}, g[i+1:]))
				}
			}
			out = append(out, slices.Concat(g[:i], []int{1}, g[i:]))
		}
	}
	return out
}

func checkCopyOrder(t *testing.T, r *rand.Rand, d device.Device, i int) {
	root, src, how := drawLayout(r)
	defer root.Close()
	if d != nil {
		onDev(t, d, root)
		if r.IntN(2) == 0 { // device-dirty: a copy must fetch it
			must(t, ops.BinaryScalar(root, root, 0, ops.OpAdd))
			how += ", device-dirty"
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("case %d (%s; source dims %v): %s", i, how, src.Dims(), fmt.Sprintf(format, args...))
	}
	want := vals(t, src)
	type copier struct {
		name string
		make func(o ...array.Order) (*array.Array[int32], error)
	}
	copiers := []copier{
		{"Like", func(o ...array.Order) (*array.Array[int32], error) { return array.Like(src, o...), nil }},
		{"Compact", src.Compact},
	}
	if d != nil {
		copiers = append(copiers, copier{"Clone", func(o ...array.Order) (*array.Array[int32], error) { return ops.Clone(d, src, o...) }})
	}
	for _, cp := range copiers {
		for _, o := range []array.Order{array.KeepOrder, array.COrder} {
			c, err := cp.make(o)
			if err != nil {
				fail("%s(%v): %v", cp.name, o, err)
			}
			name := fmt.Sprintf("%s(%v)", cp.name, o)
			got := c.Dims()
			if len(got) != src.Rank() || !c.Dense() || !c.Raw().Writable() {
				fail("%s: dims %v, dense %v, writable %v", name, got, c.Dense(), c.Raw().Writable())
			}
			for k, dd := range got {
				if s := src.Dim(k); dd.Min != s.Min || dd.Extent != s.Extent {
					fail("%s: dims %v, want the source's mins and extents", name, got)
				}
			}
			if o == array.COrder {
				if !slices.Equal(got, array.New[int32](src.Extents()...).SetMin(mins(src)...).Dims()) {
					fail("%s: dims %v, want New's planar layout", name, got)
				}
			} else if mo, ms := memOrder(got), memOrder(src.Dims()); !slices.Equal(mo, ms) {
				fail("%s: memory order %v (dims %v), want the source's %v", name, mo, got, ms)
			}
			if cp.name != "Like" {
				if g := vals(t, c); !slices.Equal(g, want) {
					fail("%s: elements %v, want %v", name, g, want)
				}
				for _, s := range reshapes(src.Shape()) {
					sv, err := src.Reshape(s...)
					if err != nil {
						continue
					}
					cv, err := c.Reshape(s...)
					if err != nil {
						fail("%s: Reshape%v is a view of the source but not of the copy (dims %v): %v", name, s, got, err)
					}
					if g, w := vals(t, cv), vals(t, sv); !slices.Equal(g, w) {
						fail("%s: Reshape%v holds %v, the source's %v", name, s, g, w)
					}
				}
			}
			if d != nil && cp.name == "Clone" && c.Len() > 0 && c.Device() != d {
				fail("%s: on %v, want %s", name, c.Device(), d.Name())
			}
			c.Close()
		}
	}
}

func mins(a *array.Array[int32]) []int {
	m := make([]int, a.Rank())
	for i := range m {
		m[i] = a.Dim(i).Min
	}
	return m
}
