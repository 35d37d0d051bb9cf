package ops_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// TestGeneratorStream: a Generator's fills are consecutive parts of the
// Philox stream of its seed (modelled by RandUniform at offsets counted
// here in blocks of 4 words), across element types, and give the same
// bits on the host, a sim and PoCL; Integers stay in [lo, hi) and reach
// every value; Split gives distinct seeds without advancing the parent.
func TestGeneratorStream(t *testing.T) {
	type res struct {
		f32 []float32
		f64 []float64
		n64 []float64
		i32 []int32
		u8  []uint8
	}
	var results []res
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			g := ops.NewGenerator(99)
			f32, f64, n64 := array.New[float32](5), array.New[float64](3), array.New[float64](4)
			i32, u8 := array.New[int32](200), array.New[uint8](64)
			onDev(t, d, f32, f64, n64, i32, u8)
			var before device.Stats
			if d != nil {
				before = d.Stats()
			}
			must(t, g.Uniform(f32)) // 5 words: blocks 0 and 1
			must(t, g.Uniform(f64)) // 6 words from block 2: blocks 2, 3
			must(t, g.Normal(n64))  // float64 normals, 2 a block: blocks 4, 5
			must(t, g.Integers(i32, -5, 7))
			must(t, g.Integers(u8, 250, 256))
			if d != nil {
				for _, x := range []array.Buffer{f32, f64, n64, i32, u8} {
					if x.Raw().Device() != d || !x.Raw().DeviceDirty() {
						t.Fatalf("a fill on %s left %v", d.Name(), x.Raw())
					}
				}
				if s := d.Stats().Sub(before); s.H2DCalls != 0 || s.D2HCalls != 0 {
					t.Fatalf("fills on %s: %d uploads and %d downloads, want none", d.Name(), s.H2DCalls, s.D2HCalls)
				}
			}
			// The model: RandUniform/RandNormal on the host at the offsets
			// the stream's block counting gives.
			w32, w64, wn := array.New[float32](5), array.New[float64](3), array.New[float64](4)
			must(t, ops.RandUniform(w32, 99, 0))
			must(t, ops.RandUniform(w64, 99, 2*2))
			must(t, ops.RandNormal(wn, 99, 4*2))
			for name, p := range map[string][2][]float64{
				"Uniform float32": {f64s(vals(t, f32)), f64s(vals(t, w32))},
				"Uniform float64": {vals(t, f64), vals(t, w64)},
				"Normal float64":  {vals(t, n64), vals(t, wn)},
			} {
				if !slices.Equal(p[0], p[1]) {
					t.Fatalf("%s: %v, want the stream's %v", name, p[0], p[1])
				}
			}
			ri := vals(t, i32)
			seen := map[int32]bool{}
			for _, x := range ri {
				if x < -5 || x >= 7 {
					t.Fatalf("Integers(-5, 7) gave %d", x)
				}
				seen[x] = true
			}
			if len(seen) != 12 {
				t.Fatalf("200 Integers(-5, 7) reached %d of the 12 values", len(seen))
			}
			ru := vals(t, u8)
			for _, x := range ru {
				if x < 250 {
					t.Fatalf("Integers(250, 256) into uint8 gave %d", x)
				}
			}
			results = append(results, res{vals(t, f32), vals(t, f64), vals(t, n64), ri, ru})
		})
	}
	for i := 1; i < len(results); i++ {
		a, b := results[0], results[i]
		if !slices.Equal(a.f32, b.f32) || !slices.Equal(a.f64, b.f64) || !slices.Equal(a.n64, b.n64) || !slices.Equal(a.i32, b.i32) || !slices.Equal(a.u8, b.u8) {
			t.Fatalf("placement %d draws other bits than the host", i)
		}
	}
	g := ops.NewGenerator(5)
	s1, s2 := g.Split(), g.Split()
	if s1.Seed() == s2.Seed() || s1.Seed() == g.Seed() {
		t.Fatalf("Split seeds %d, %d of %d: want distinct", s1.Seed(), s2.Seed(), g.Seed())
	}
	x, y := array.New[float64](4), array.New[float64](4)
	must(t, g.Uniform(x))
	must(t, ops.RandUniform(y, 5, 0))
	if !slices.Equal(vals(t, x), vals(t, y)) {
		t.Fatalf("Split advanced the parent's stream")
	}
	if h := ops.NewGenerator(5); fmt.Sprint(h.Split().Seed()) != fmt.Sprint(s1.Seed()) {
		t.Fatalf("Split is not reproducible from the seed")
	}
}

func f64s(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// A Generator fills Arrays only: a host view of one, of every element
// type the converter knows, is refused with ErrUnsupported naming the fix,
// and its memory is left as it was.
func TestGeneratorRefusesViews(t *testing.T) {
	g := ops.NewGenerator(1)
	a := array.New[float32](4)
	defer a.Close()
	hv, err := a.Host()
	must(t, err)
	for _, fill := range []func() error{
		func() error { return g.Uniform(hv) },
		func() error { return g.Normal(hv) },
		func() error { return g.Integers(hv, 0, 3) },
	} {
		if err := fill(); !errors.Is(err, ops.ErrUnsupported) || !strings.Contains(err.Error(), "pass an *array.Array") {
			t.Fatalf("fill of a host view: %v, want ErrUnsupported naming *array.Array", err)
		}
	}
	if !slices.Equal(hv.Data(), []float32{0, 0, 0, 0}) {
		t.Fatalf("a refused fill wrote %v", hv.Data())
	}
}
