package ops

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/tune"
)

// gemmShapes are M, N, K that cut through tiles (edges in every
// dimension, a partial last slab) and whole tiles.
var gemmShapes = [][3]int{{130, 140, 136}, {130, 140, 132}, {256, 256, 64}, {70, 130, 20}, {1, 5, 3}}

// restoreGemm puts d's tilings (set or not), forced splits, tuning and
// PTX switch back after a test.
func restoreGemm(t testing.TB, d *opencl.Device) {
	s := stateOf(d)
	s.mu.Lock()
	tiles, splits, tuning := maps.Clone(s.gemm), maps.Clone(s.gemmSplit), s.tuning.Gemm
	s.mu.Unlock()
	t.Cleanup(func() {
		setGemm(d, tuning)
		s.mu.Lock()
		s.gemm, s.gemmSplit = tiles, splits
		s.mu.Unlock()
		tune.Gemm.PTX(d, true)
	})
}

// gemmTwins multiplies the same operands (layout of a and b as named) on
// the host and on d and compares.
func gemmTwins[T Float](t *testing.T, d *opencl.Device, what string, seed uint64, sh [3]int, la, lb string, tol float64) {
	t.Helper()
	gemmTwinsInto[T](t, d, what, seed, sh, la, lb, "dense", tol)
}

// gemmTwinsInto is gemmTwins with dst's layout named too.
func gemmTwinsInto[T Float](t *testing.T, d *opencl.Device, what string, seed uint64, sh [3]int, la, lb, ld string, tol float64) {
	t.Helper()
	M, N, K := sh[0], sh[1], sh[2]
	ha, da := twin[T](t, d, seed, la, []int{K, M}, false)
	hb, db := twin[T](t, d, seed+50, lb, []int{N, K}, false)
	hd, dd := twin[T](t, d, 3, ld, []int{N, M}, false)
	must(t, MatMul(hd, ha, hb))
	must(t, MatMul(dd, da, db))
	checkSame(t, fmt.Sprintf("%s %v a %s b %s", what, sh, la, lb), dd, hd, tol*float64(K))
}

// TestDeviceGemmConfigs runs every tiling opsbench tunes over, both
// portable variants, on shapes that cut through tiles and whole ones.
var gemmAll = flag.Bool("gemm.all", false, "TestDeviceGemmConfigs: every tiling on PoCL too")

func TestDeviceGemmConfigs(t *testing.T) {
	d := testDev(t)
	restoreGemm(t, d)
	tiles := []gemmConfig{{128, 128, 16, 8, 8, 0}, {128, 128, 8, 8, 8, 0}, {128, 64, 16, 8, 4, 0}, {64, 128, 16, 4, 8, 0},
		{64, 64, 16, 4, 4, 0}, {128, 128, 32, 8, 8, 0}, {64, 64, 32, 8, 8, 0}, {64, 64, 8, 4, 4, 0}, {128, 64, 8, 8, 4, 0}, {64, 128, 8, 4, 8, 0}, {32, 32, 16, 4, 4, 0},
		{128, 128, 8, 16, 8, 0}, {128, 256, 8, 8, 16, 0}, {128, 128, 16, 16, 8, 0}, {256, 128, 8, 16, 8, 0}}
	f64 := []gemmConfig{{64, 64, 16, 4, 4, 0}, {64, 64, 8, 4, 4, 0}, {128, 64, 8, 8, 4, 0}, {64, 128, 8, 4, 8, 0}, {128, 128, 8, 8, 8, 0}, {32, 32, 16, 4, 4, 0},
		{128, 128, 8, 8, 8, 1}, {64, 64, 8, 4, 4, 1}}
	if strings.Contains(d.Caps().Vendor, "Portable") && !*gemmAll {
		// PoCL compiles each tiling for a second or more: the defaults, the
		// small-shape tilings and an edge of each kind (-gemm.all: every one).
		tiles = []gemmConfig{gemmNVIDIA32, gemmNVIDIA32Small[0], gemmNVIDIA32Small[1], {128, 128, 8, 16, 8, 0}, {32, 32, 16, 4, 4, 0}, {64, 128, 8, 4, 8, 0}}
		f64 = []gemmConfig{{64, 64, 16, 4, 4, 0}, {32, 32, 16, 4, 4, 0}, {128, 128, 8, 8, 8, 1}, {64, 64, 8, 4, 4, 1}}
	}
	if raceEnabled { // the defaults and one small-shape tiling (see raceTypes)
		tiles, f64 = tiles[:2], f64[:2]
	}
	for i, c := range tiles {
		for _, v := range []int{gemmPortable, gemmVec} {
			c.V = v
			setGemmConfig(d, 4, c)
			for j, sh := range gemmShapes[:3] {
				gemmTwins[float32](t, d, c.String(), uint64(i*7+j), sh, "dense", "dense", 1e-4)
			}
		}
	}
	// transposed and cropped operands (the generic kernel), a dst whose
	// rows are not float4-aligned (gemm_full's element stores)
	setGemmConfig(d, 4, gemmConfig{64, 64, 8, 4, 4, gemmVec})
	for i, l := range [][3]string{{"transposed", "dense", "dense"}, {"dense", "transposed", "dense"}, {"crop", "mins", "dense"},
		{"dense", "dense", "crop"}, {"dense", "dense", "transposed"}} {
		gemmTwinsInto[float32](t, d, "views", uint64(i), gemmShapes[0], l[0], l[1], l[2], 1e-4)
	}
	for i, c := range f64 {
		setGemmConfig(d, 8, c)
		for j, sh := range [][3]int{{128, 128, 32}, {70, 130, 20}, {130, 140, 132}} {
			gemmTwins[float64](t, d, c.String()+" float64", uint64(i*5+j), sh, "dense", "dense", 1e-12)
		}
	}
}

func TestGemmConfigValid(t *testing.T) {
	for _, c := range []struct {
		c  gemmConfig
		ok bool
	}{
		{gemmConfig{128, 128, 8, 16, 8, 0}, true},
		{gemmConfig{128, 128, 8, 16, 8, 1}, true},
		{gemmConfig{128, 128, 6, 16, 8, 1}, false}, // TK not a multiple of 4
		{gemmConfig{128, 128, 8, 6, 8, 0}, false},  // RM not a multiple of 4
		{gemmConfig{128, 128, 8, 64, 32, 2}, true}, // 8 warps
		{gemmConfig{128, 128, 8, 64, 32, 3}, true},
		{gemmConfig{128, 128, 8, 8, 8, 3}, false},   // RM not a multiple of 16 for m16n8k4
		{gemmConfig{128, 128, 8, 8, 4, 2}, false},   // RN not a multiple of 8
		{gemmConfig{128, 128, 4, 8, 8, 2}, false},   // 256 warps: too many work-items
		{gemmConfig{64, 64, 4, 32, 32, 2}, true},    // 128 work-items, 2 slab elements each
		{gemmConfig{64, 32, 4, 32, 8, 2}, false},    // 256 work-items, a 128-element B slab
		{gemmConfig{128, 128, 8, 64, 32, 4}, false}, // no such variant
		{gemmConfig{0, 128, 8, 64, 32, 2}, false},
	} {
		if got := c.c.valid(); got != c.ok {
			t.Errorf("%v valid = %v, want %v", c.c, got, c.ok)
		}
	}
	if err := tune.Gemm.Set(nil, 8, [6]int{128, 128, 8, 8, 4, 2}); !errors.Is(err, array.ErrShape) {
		t.Fatalf("tune.Gemm.Set of an invalid tiling: %v, want ErrShape", err)
	}
}

// hasMMAProgram reports whether s holds a built inline-PTX program of
// tiling c (any, for a zero c).
func hasMMAProgram(s devRef, c gemmConfig) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.progs {
		if k.kind == "gemm" && k.gemm.mma() && (c == gemmConfig{} || k.gemm == c) {
			return true
		}
	}
	return false
}

// TestGemmMMAGating: an inline-PTX tiling on a device that is not NVIDIA's,
// or for float32, or turned off, runs the portable kernel: correct, no
// PTX program built, no error recorded.
func TestGemmMMAGating(t *testing.T) {
	d := testDev(t)
	if isNVIDIA(d) {
		t.Skip("the test device is NVIDIA's: TestGemmMMANVIDIA covers it")
	}
	restoreGemm(t, d)
	s := stateOf(d)
	for _, v := range []int{gemmMMA8, gemmMMA16} {
		c := gemmConfig{64, 64, 8, 32, 32, v}
		setGemmConfig(d, 8, c)
		setGemmConfig(d, 4, c)
		gemmTwins[float64](t, d, c.String(), 1, gemmShapes[0], "dense", "dense", 1e-12)
		gemmTwins[float32](t, d, c.String(), 2, gemmShapes[0], "dense", "dense", 1e-4)
		if hasMMAProgram(s, gemmConfig{}) {
			t.Fatalf("%v: an inline-PTX program was built on %s", c, d.Name())
		}
		if ok, err := tune.Gemm.PTXState(d); ok || err != nil {
			t.Fatalf("PTXState on %s = %v, %v; want false, nil", d.Name(), ok, err)
		}
	}
	// Turned off where it would otherwise run: the portable kernel too.
	saved := mmaVendor
	mmaVendor = func(device.Kernels) bool { return true }
	defer func() { mmaVendor = saved }()
	tune.Gemm.PTX(d, false)
	setGemmConfig(d, 8, gemmConfig{64, 64, 8, 32, 32, gemmMMA8})
	gemmTwins[float64](t, d, "PTX off", 4, gemmShapes[3], "dense", "dense", 1e-12)
	if hasMMAProgram(s, gemmConfig{}) {
		t.Fatal("PTX off: an inline-PTX program was built")
	}
}

// TestGemmMMAFallback: where the inline-PTX program fails to build, MatMul
// logs it, runs the portable kernel (no error to the caller), keeps the
// error for PTXState and does not build it again.
func TestGemmMMAFallback(t *testing.T) {
	d := testDev(t)
	if !stateOf(d).fp64 {
		t.Skip("no fp64 on the test device")
	}
	restoreGemm(t, d)
	s := stateOf(d)
	savedV, savedI := mmaVendor, mmaInject
	mmaVendor, mmaInject = func(device.Kernels) bool { return true }, "#error injected PTX failure\n"
	defer func() {
		mmaVendor, mmaInject = savedV, savedI
		s.mu.Lock()
		s.mmaErr = [2]error{}
		s.mu.Unlock()
	}()
	// a tiling no other test uses, so that no program of it is built yet
	// (on NVIDIA's OpenCL it would build without the injection)
	c := gemmConfig{32, 32, 8, 32, 32, gemmMMA8}
	setGemmConfig(d, 8, c)
	gemmTwins[float64](t, d, "fallback", 7, gemmShapes[0], "dense", "dense", 1e-12)
	ok, err := tune.Gemm.PTXState(d)
	var be *opencl.BuildError
	if ok || !errors.As(err, &be) || !strings.Contains(be.Log()+err.Error(), "injected") {
		t.Fatalf("PTXState after a failed build = %v, %v; want false and the build error with its log", ok, err)
	}
	if hasMMAProgram(s, c) {
		t.Fatal("a failed inline-PTX build left a program")
	}
	mmaInject = "" // would build now, but the first failure stands
	gemmTwins[float64](t, d, "fallback again", 8, gemmShapes[3], "dense", "dense", 1e-12)
	if hasMMAProgram(s, c) {
		t.Fatal("an inline-PTX program was built after a failure")
	}
}

// TestGemmMMANVIDIA checks the tensor-core float64 kernels against the
// host on NVIDIA devices: every candidate tiling, shapes with edges in
// every dimension and partial slabs, transposed, cropped and batched
// operands.
func TestGemmMMANVIDIA(t *testing.T) {
	d := testDev(t)
	if !isNVIDIA(d) || !stateOf(d).fp64 {
		t.Skipf("inline PTX runs on NVIDIA's OpenCL only; the test device is %s (%s)", d.Name(), d.Caps().Vendor)
	}
	restoreGemm(t, d)
	s := stateOf(d)
	r := rand.New(rand.NewPCG(3, 4))
	shapes := append([][3]int{{128, 128, 8}, {512, 256, 96}, {1000, 1000, 1000}, {64, 4096, 256}, {333, 77, 1}}, gemmShapes...)
	for range 6 {
		shapes = append(shapes, [3]int{1 + r.IntN(300), 1 + r.IntN(300), 1 + r.IntN(300)})
	}
	for i, c := range []gemmConfig{gemmNVIDIAMMA, {128, 128, 8, 64, 32, gemmMMA16}, {128, 128, 8, 32, 64, gemmMMA8},
		{64, 64, 8, 32, 32, gemmMMA8}, {64, 64, 16, 32, 16, gemmMMA16}, {128, 64, 8, 32, 32, gemmMMA8}} {
		setGemmConfig(d, 8, c)
		for j, sh := range shapes {
			gemmTwins[float64](t, d, c.String(), uint64(i*31+j), sh, "dense", "dense", 1e-12)
		}
		if ok, err := tune.Gemm.PTXState(d); !ok || err != nil {
			t.Fatalf("%v: the inline-PTX kernel did not build on %s: %v", c, d.Name(), err)
		}
		if !hasMMAProgram(s, c) {
			t.Fatalf("%v: MatMul did not run the inline-PTX kernel", c)
		}
		for j, l := range [][2]string{{"transposed", "dense"}, {"dense", "transposed"}, {"crop", "mins"}, {"transposed", "transposed"}} {
			gemmTwins[float64](t, d, c.String(), uint64(j), [3]int{150, 190, 70}, l[0], l[1], 1e-12)
		}
		// batched: dst (N, M, B), a shared
		M, N, K, B := 70, 90, 50, 3
		ha, da := twin[float64](t, d, 9, "dense", []int{K, M}, false)
		hb, db := twin[float64](t, d, 10, "dense", []int{N, K, B}, false)
		hd, dd := twin[float64](t, d, 11, "dense", []int{N, M, B}, false)
		must(t, MatMul(hd, ha, hb))
		must(t, MatMul(dd, da, db))
		checkSame(t, c.String()+" batched", dd, hd, 1e-12*float64(K))
	}
}

// TestGemmFit: a default tiling that leaves compute units idle gives way to
// the first smaller one that fills ¾ of them, else the smallest.
func TestGemmFit(t *testing.T) {
	for _, tc := range []struct {
		m, n, batch, units int
		want               gemmConfig
	}{
		{4096, 4096, 1, 132, gemmNVIDIA32},         // 512 groups
		{1024, 1024, 1, 132, gemmNVIDIA32Small[0]}, // 32 groups; 128 with 128×64 (≥ 99)
		{1024, 1024, 1, 256, gemmNVIDIA32Small[1]}, // 128 < 192: 256 with 64×64
		{64, 4096, 1, 132, gemmNVIDIA32Small[1]},   // 16, 64, 64 groups: the smallest
		{1024, 1024, 4, 132, gemmNVIDIA32},         // batches count: 32·4 = 128 ≥ 99
		{1 << 20, 8, 1, 132, gemmNVIDIA32},         // 8192 groups
		{0, 0, 1, 132, gemmNVIDIA32Small[1]},       // empty: nothing to fill
		{100, 100, 1, 1, gemmNVIDIA32},             // one unit
	} {
		got := gemmFit(gemmNVIDIA32, gemmNVIDIA32Small, tc.m, tc.n, tc.batch, tc.units)
		groups := func(c gemmConfig) int { return (tc.m + c.TM - 1) / c.TM * ((tc.n + c.TN - 1) / c.TN) * tc.batch }
		// The table's wants are checked against the rule itself, so a
		// wrong table entry fails too.
		want, need := gemmNVIDIA32, (3*tc.units+3)/4
		if groups(want) < need {
			want = gemmNVIDIA32Small[len(gemmNVIDIA32Small)-1]
			for _, c := range gemmNVIDIA32Small {
				if groups(c) >= need {
					want = c
					break
				}
			}
		}
		if got != want || got != tc.want {
			t.Errorf("m %d n %d batch %d units %d: %v, want %v (table %v)", tc.m, tc.n, tc.batch, tc.units, got, want, tc.want)
		}
		if !got.valid() {
			t.Errorf("%v is not a valid tiling", got)
		}
	}
	if got := gemmFit(gemmOther, nil, 8, 8, 1, 132); got != gemmOther {
		t.Errorf("no smaller family: %v", got)
	}
}
