package ops

import (
	"flag"
	"math"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

var hypStep = flag.Int("hyp.step", 61, "TestSinhCoshAccuracy: check every this many float32s (1: all of them, 77 s here for Sinh and Cosh; default 244 under the race detector)")

// TestSinhCoshAccuracy: Sinh and Cosh (through unVec32, so the kernels
// this CPU picks) are within one ulp of package math's rounded to float32
// at every 61st float32 below 90.5 in magnitude, both signs, with the
// sign of zero and ±Inf past 89.42 exact, and correctly rounded at 99.5%
// of them at least; NaN stays NaN. With -hyp.step 1 (every float32 below
// 90.5) it found 99.76% of Cosh's and 99.87% of Sinh's correctly rounded.
// Tan likewise below 2^20 (its kernels' range; past it math.Tan), at
// every 61st float32 there too: 99.56% correctly rounded at every tenth;
// Atan over every 61st finite float32. The first float32 of each scan is
// drawn below the step (package draw), so each day's run checks others.
// Under the race detector, which has nothing to watch in these loops,
// the default step is 244 (the scans took 24 s there, 2.6 s without it).
func TestSinhCoshAccuracy(t *testing.T) {
	step := uint32(max(1, *hypStep))
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "hyp.step" })
	if raceEnabled && !set {
		step *= 4
	}
	start := uint64(draw.Seed(t) % uint64(step))
	xs := make([]float32, 0, 1<<16)
	got := make([]float32, 1<<16)
	for _, c := range []struct {
		op    UnaryOp
		ref   func(float64) float64
		limit float32
	}{{OpSinh, math.Sinh, 90.5}, {OpCosh, math.Cosh, 90.5}, {OpTan, math.Tan, 1 << 20}, {OpAtan, math.Atan, math.MaxFloat32}} {
		exact, all := 0, 0
		check := func() {
			unVec32(c.op, got[:len(xs)], xs)
			for i, x := range xs {
				want := float32(c.ref(float64(x)))
				u := ulps32(got[i], want)
				if got[i] == want {
					u = 0 // ±Inf
				}
				if u > 1 || math.Signbit(float64(got[i])) != math.Signbit(float64(want)) {
					t.Fatalf("%v(%v) = %v, want %v (%v ulps)", c.op, x, got[i], want, u)
				}
				if u == 0 {
					exact++
				}
			}
			all += len(xs)
			xs = xs[:0]
		}
		xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), 1e30, -3e38, float32(math.Copysign(0, -1)))
		for u := start; u <= uint64(math.Float32bits(c.limit)); u += uint64(step) {
			x := math.Float32frombits(uint32(u))
			if xs = append(xs, x, -x); len(xs)+2 > cap(xs) {
				check()
			}
		}
		check()
		if frac := float64(exact) / float64(all); frac < 0.995 {
			t.Errorf("%.4f of %v's results correctly rounded, want at least 0.995", frac, c.op)
		} else {
			t.Logf("%v: %d of %d (%.4f) correctly rounded, the rest one ulp off", c.op, exact, all, frac)
		}
		nan := []float32{float32(math.NaN())}
		unVec32(c.op, nan, nan)
		if nan[0] == nan[0] {
			t.Errorf("%v(NaN) = %v", c.op, nan[0])
		}
	}
}
