package ops

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/tune"
)

// gemmRef checks dst = a·b against the product summed in float64 on the
// host from the operands' own values, within the rounding error bound of
// any summation order in T (gemmBound).
func gemmRef[T Float](t *testing.T, what string, dst, a, b *array.Array[T]) {
	t.Helper()
	dv, err := dst.HostReadOnly()
	must(t, err)
	ref, bound := gemmBound(t, a, b)
	M, N := a.Dim(1).Extent, b.Dim(0).Extent
	bad := 0
	for i := range M {
		for j := range N {
			got, e := float64(dv.At(coordsOf(dst, []int{j, i})...)), i*N+j
			if !(math.Abs(got-ref[e]) <= bound[e]) {
				if bad++; bad <= 3 {
					t.Errorf("%s: dst(%d, %d) = %v, float64 reference %v (tolerance %.3g)", what, j, i, got, ref[e], bound[e])
				}
			}
		}
	}
}

// freeGemm is the test device with no float32 tiling or split-K forced
// (MatMul chooses), all put back after the test.
func freeGemm(t *testing.T) (*opencl.Device, devRef) {
	d := testDev(t)
	restoreGemm(t, d)
	unsetGemmConfig(d, 4)
	setGemmSplit(d, 4, 0)
	return d, stateOf(d)
}

// gemmDrawn are products cut through every tile edge, thin ones (few
// tiles of dst, long K: split-K's), odd sizes and a K shorter than a slab.
func gemmDrawn(seed uint64) [][3]int {
	r := rand.New(rand.NewPCG(seed, 9))
	return [][3]int{{8, 64, 1024}, {64, 8, 515}, {33, 17, 301}, {1, 5, 97}, {70, 40, 6},
		{1 + r.IntN(48), 1 + r.IntN(80), 64 + r.IntN(700)}}
}

// TestGemmChoices forces each tiling autotune may pick on the test device
// and each split-K factor (1: none; 3 leaves a shorter last slice),
// float32 and float64, on drawn shapes and on transposed, cropped and
// offset operands, and checks every product against the float64
// reference.
func TestGemmChoices(t *testing.T) {
	d := testDev(t)
	restoreGemm(t, d)
	s := stateOf(d)
	t.Run("float32", func(t *testing.T) { testGemmChoices[float32](t, d, s.gemmCandidates(4)) })
	if !s.fp64 {
		t.Skip("no fp64 on the test device")
	}
	t.Run("float64", func(t *testing.T) { testGemmChoices[float64](t, d, s.gemmCandidates(8)) })
}

func testGemmChoices[T Float](t *testing.T, d *opencl.Device, cands []gemmConfig) {
	es := sizeOf[T]()
	if len(cands) == 0 {
		t.Fatal("no candidate tiling fits the test device")
	}
	layouts := [][3]string{{"dense", "dense", "dense"}, {"transposed", "dense", "crop"}, {"dense", "transposed", "dense"}, {"crop", "mins", "transposed"}}
	for ci, c := range cands {
		setGemmConfig(d, es, c)
		for _, split := range []int{1, 2, 3, 8} {
			setGemmSplit(d, es, split)
			for si, sh := range gemmDrawn(uint64(ci*10 + split)) {
				l := layouts[(si+split)%len(layouts)]
				M, N, K := sh[0], sh[1], sh[2]
				_, a := twin[T](t, d, uint64(si), l[0], []int{K, M}, false)
				_, b := twin[T](t, d, uint64(si+50), l[1], []int{N, K}, false)
				_, dst := twin[T](t, d, 3, l[2], []int{N, M}, false)
				must(t, MatMul(dst, a, b))
				if !dst.DeviceDirty() {
					t.Fatalf("%v split %d %v: the product did not run on the device", c, split, sh)
				}
				gemmRef(t, fmt.Sprintf("%v split %d %v a %s b %s dst %s", c, split, sh, l[0], l[1], l[2]), dst, a, b)
			}
		}
	}
	setGemmSplit(d, es, 0)
	unsetGemmConfig(d, es)
}

// TestGemmSplitChosen: the model splits a thin product (few tiles of dst,
// long K) where compute units would idle — one launch of the tiled kernel
// over the slices and one of gemm_sum — and does not split a product
// whose tiles fill them. The test device's compute units are set to an
// H200's 132 for the test.
func TestGemmSplitChosen(t *testing.T) {
	d, s := freeGemm(t)
	setGemm(d, gemmTuning{ModelOnly: true})
	saved := s.cus
	s.cus = 132
	defer func() { s.cus = saved }()
	for _, tc := range []struct {
		m, n, k  int
		launches int64
		split    bool
	}{
		{32, 32, 2048, 2, true},
		{16, 40, 1000, 3, true},  // K is not a whole number of slices: a second launch for the last
		{512, 512, 64, 1, false}, // 32×32 tiles: 256 groups
	} {
		var mm mmJob
		mm.m, mm.n, mm.k, mm.batch = tc.m, tc.n, tc.k, 1
		ch := s.gemmModel(4, &mm)
		if (ch.split > 1) != tc.split {
			t.Errorf("%d×%d×%d: the model's choice %v split %d, want split %v", tc.m, tc.n, tc.k, ch.cfg, ch.split, tc.split)
		}
		_, a := twin[float32](t, d, 1, "dense", []int{tc.k, tc.m}, false)
		_, b := twin[float32](t, d, 2, "dense", []int{tc.n, tc.k}, false)
		dst := array.New[float32](tc.n, tc.m)
		must(t, On(d, dst))
		must(t, d.Sync())
		before := d.Stats()
		must(t, MatMul(dst, a, b))
		if got := d.Stats().Sub(before).Launches; got != tc.launches {
			t.Errorf("%d×%d×%d (%v split %d): %d launches, want %d", tc.m, tc.n, tc.k, ch.cfg, ch.split, got, tc.launches)
		}
		gemmRef(t, fmt.Sprintf("%d×%d×%d", tc.m, tc.n, tc.k), dst, a, b)
	}
	if got := tune.Gemm.Choice(d, 4, 32, 32, 2048); !strings.HasSuffix(got, "split 8") {
		t.Errorf("tune.Gemm.Choice 32×32×2048 = %q, want split 8", got)
	}
	// a batch never splits
	if r := gemmSplitRule(gemmOther, 32, 32, 4096, 2, 132); r != 1 {
		t.Errorf("batched: split %d, want 1", r)
	}
	// H200 figures: 64×4096×4096 fp32 with 64×64 tiles is 64 groups: 8
	// slices of 512; 1000³ with 128×64 tiles fills the units unsplit.
	if r := gemmSplitRule(gemmNVIDIA32Small[1], 64, 4096, 4096, 1, 132); r != 8 {
		t.Errorf("64×4096×4096: split %d, want 8", r)
	}
	if r := gemmSplitRule(gemmNVIDIA32Small[0], 1000, 1000, 1000, 1, 132); r != 1 {
		t.Errorf("1000³: split %d, want 1", r)
	}
}

// TestGemmAutotune: the first product of a class large enough is timed
// over the candidates and its choice kept for the class (the result still
// the product); ModelOnly and products under MinFlops keep none; setting
// the tuning forgets the choices.
func TestGemmAutotune(t *testing.T) {
	d, s := freeGemm(t)
	chosen := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.gemmChosen)
	}
	mul := func(m, n, k int) {
		t.Helper()
		_, a := twin[float32](t, d, 5, "dense", []int{k, m}, false)
		_, b := twin[float32](t, d, 6, "transposed", []int{n, k}, false)
		dst := array.New[float32](n, m)
		must(t, On(d, dst))
		must(t, MatMul(dst, a, b))
		gemmRef(t, fmt.Sprintf("tuned %d×%d×%d", m, n, k), dst, a, b)
	}
	setGemm(d, gemmTuning{ModelOnly: true, MinFlops: 1})
	mul(24, 40, 600)
	if n := chosen(); n != 0 {
		t.Fatalf("ModelOnly: %d classes chosen, want 0", n)
	}
	setGemm(d, gemmTuning{MinFlops: 1e9})
	mul(24, 40, 600)
	if n := chosen(); n != 0 {
		t.Fatalf("under MinFlops: %d classes chosen, want 0", n)
	}
	setGemm(d, gemmTuning{MinFlops: 1, Budget: 200 * time.Millisecond})
	start := time.Now()
	mul(24, 40, 600)
	if n := chosen(); n != 1 {
		t.Fatalf("autotuned: %d classes chosen, want 1", n)
	}
	var mm mmJob
	mm.m, mm.n, mm.k, mm.batch = 30, 33, 513, 1 // the same class
	if _, tune := s.gemmChoose(4, &mm); tune {
		t.Error("a tuned class is tuned again")
	}
	t.Logf("autotune of one class, builds included: %v; chose %v", time.Since(start), s.gemmChosen)
	mul(30, 33, 513)
	if n := chosen(); n != 1 {
		t.Fatalf("same class: %d classes chosen, want 1", n)
	}
	setGemm(d, gemmTuning{MinFlops: 1})
	if n := chosen(); n != 0 {
		t.Fatalf("after SetGemmTuning: %d classes chosen, want 0", n)
	}
}

// BenchmarkGemmShapes times MatMul on the default OpenCL device at the
// issue's shapes, float32 and float64, with the library's own choice
// (autotuned at the first call, outside the timing): TFLOP/s, and the
// chosen split-K factor. On a GPU machine:
//
//	go test -c -o ops.test ./ops
//	HL_OCL_PLATFORM_NAME=NVIDIA ./ops.test -test.run '^$' -test.bench GemmShapes -test.benchtime 20x
//
// On PoCL, shapes over 1e10 flops are skipped.
func BenchmarkGemmShapes(b *testing.B) {
	for _, es := range []int{4, 8} {
		for _, sh := range [][3]int{{1000, 1000, 1000}, {4096, 4096, 64}, {64, 4096, 4096}, {1024, 784, 1024}, {4096, 4096, 4096}} {
			name := fmt.Sprintf("fp%d/%dx%dx%d", 8*es, sh[0], sh[1], sh[2])
			b.Run(name, func(b *testing.B) {
				if es == 4 {
					benchGemm[float32](b, sh)
				} else {
					benchGemm[float64](b, sh)
				}
			})
		}
	}
}

func benchGemm[T Float](b *testing.B, sh [3]int) {
	d := testDev(b)
	s := stateOf(d)
	if sizeOf[T]() == 8 && !s.fp64 {
		b.Skip("no fp64")
	}
	M, N, K := sh[0], sh[1], sh[2]
	flops := 2 * float64(M) * float64(N) * float64(K)
	if strings.Contains(d.Caps().Vendor, "Portable") && flops > 1e10 {
		b.Skipf("%.3g flops on PoCL", flops)
	}
	a, x, c := array.New[T](K, M), array.New[T](N, K), array.New[T](N, M)
	defer func() { a.Close(); x.Close(); c.Close() }()
	for _, v := range []*array.Array[T]{a, x} {
		h, err := v.Host()
		if err != nil {
			b.Fatal(err)
		}
		data := h.Data()
		for i := range data {
			data[i] = T(i%7) * 0.25
		}
	}
	if err := On(d, a, x, c); err != nil {
		b.Fatal(err)
	}
	if err := MatMul(c, a, x); err != nil { // the class's autotune
		b.Fatal(err)
	}
	var mm mmJob
	mm.check(c, a, x)
	ch, _ := s.gemmChoose(sizeOf[T](), &mm)
	if err := d.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := MatMul(c, a, x); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Sync(); err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	b.ReportMetric(flops*float64(b.N)/el.Seconds()/1e12, "TFLOP/s")
	b.ReportMetric(float64(max(ch.split, 1)), "splitK")
	b.Logf("%v split %d", ch.cfg, ch.split)
}

var gemmRepeat = flag.Int("gemm.repeat", 2, "TestGemmChoicesExact: runs of each choice (a rare race needs many)")

// TestGemmChoicesExact runs every choice autotune may keep for a class of
// products (each candidate tiling, unsplit and split-K by the factors it
// tries for any of the shapes: a class's choice, tuned on its first
// product, serves every product of the class) on each of the stock MLP's
// products at batch 64, forward and backward (transposed operands), where
// NVIDIA OpenCL's autotuned training drifted from the standard engine's:
// each within float32's error bound of the float64 product, and
// -gemm.repeat runs bit for bit the same (a race shows as one that
// differs).
func TestGemmChoicesExact(t *testing.T) {
	d, s := freeGemm(t)
	type shape struct {
		m, n, k int
		la, lb  string
	}
	shapes := []shape{
		{64, 1024, 784, "dense", "dense"}, {64, 1024, 1024, "dense", "dense"}, {64, 10, 1024, "dense", "dense"},
		{784, 1024, 64, "transposed", "dense"}, {1024, 1024, 64, "transposed", "dense"}, {1024, 10, 64, "transposed", "dense"},
		{64, 1024, 10, "dense", "transposed"}, {64, 1024, 1024, "dense", "transposed"}, {64, 784, 1024, "dense", "transposed"},
	}
	if strings.Contains(d.Caps().Vendor, "Portable") || raceEnabled || testing.Short() {
		// each candidate is a PoCL build: two shapes, smaller; the GPU runs them all
		shapes = []shape{{64, 128, 200, "dense", "dense"}, {96, 128, 64, "transposed", "dense"}}
	}
	type run struct {
		g          gemmRun
		dst, a, b  *array.Array[float32]
		ref, bound []float64
	}
	runs := make([]run, len(shapes))
	var choices []gemmChoice
	seen := map[gemmChoice]bool{}
	for i, sh := range shapes {
		r := &runs[i]
		_, r.a = twin[float32](t, d, uint64(11+i), sh.la, []int{sh.k, sh.m}, false)
		_, r.b = twin[float32](t, d, uint64(31+i), sh.lb, []int{sh.n, sh.k}, false)
		r.dst = array.New[float32](sh.n, sh.m)
		must(t, On(d, r.dst))
		r.ref, r.bound = gemmBound(t, r.a, r.b)
		r.g = gemmRun{s: s, t: array.TypeOf[float32](), es: 4}
		r.g.mm.check(r.dst, r.a, r.b)
		var err error
		r.g.mems, r.g.offs, err = ready(s, "MatMul", r.dst, r.a, r.b)
		must(t, err)
		for _, ch := range r.g.tuneChoices(s.gemmModel(4, &r.g.mm)) {
			if !seen[ch] {
				seen[ch] = true
				choices = append(choices, ch)
			}
		}
	}
	t.Logf("%d choices × %d shapes", len(choices), len(shapes))
	for i, sh := range shapes {
		r := &runs[i]
		for _, ch := range choices {
			what := fmt.Sprintf("%d×%d×%d (a %s, b %s) %v split %d", sh.m, sh.n, sh.k, sh.la, sh.lb, ch.cfg, ch.split)
			var first []float32
			for rep := range max(1, *gemmRepeat) {
				_, err := wroteOnDevice(r.dst.Raw(), r.g.run(ch))
				must(t, err)
				h, err := r.dst.HostReadOnly()
				must(t, err)
				got := h.Data() // dense, row-major: element i·n + j
				if rep == 0 {
					bad := 0
					for e, v := range got {
						if diff := math.Abs(float64(v) - r.ref[e]); !(diff <= r.bound[e]) {
							if bad++; bad <= 2 {
								t.Errorf("%s: element %d = %v, float64 product %v (bound %.3g)", what, e, v, r.ref[e], r.bound[e])
							}
						}
					}
					first = slices.Clone(got)
					continue
				}
				if !slices.Equal(got, first) {
					t.Errorf("%s: run %d differs from the first", what, rep+1)
				}
			}
		}
	}
}

// gemmBound is a·b summed in float64 from the operands' own values
// (row-major: element i·N + j) and, per element, the rounding error bound
// of T's products in any summation order: 2·K·u·Σ|a·b| + u·|a·b| (u the
// unit roundoff).
func gemmBound[T Float](t *testing.T, a, b *array.Array[T]) (ref, bound []float64) {
	t.Helper()
	K, M, N := a.Dim(0).Extent, a.Dim(1).Extent, b.Dim(0).Extent
	av, err := a.HostReadOnly()
	must(t, err)
	bv, err := b.HostReadOnly()
	must(t, err)
	u := 0x1p-53
	if sizeOf[T]() == 4 {
		u = 0x1p-24
	}
	// operands read once into float64 (a by rows, b by columns)
	af, bf := make([]float64, M*K), make([]float64, N*K)
	for p := range K {
		for i := range M {
			af[i*K+p] = float64(av.At(coordsOf(a, []int{p, i})...))
		}
		for j := range N {
			bf[j*K+p] = float64(bv.At(coordsOf(b, []int{j, p})...))
		}
	}
	ref, bound = make([]float64, M*N), make([]float64, M*N)
	for i := range M {
		for j := range N {
			var sum, mag float64
			for p, x := range af[i*K : i*K+K] {
				x *= bf[j*K+p]
				sum += x
				mag += math.Abs(x)
			}
			ref[i*N+j], bound[i*N+j] = sum, 2*float64(K)*u*mag+u*math.Abs(sum)
		}
	}
	return ref, bound
}
