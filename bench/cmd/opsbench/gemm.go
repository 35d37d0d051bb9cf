package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
	opstune "github.com/resident-go/resident/ops/tune"
)

// A tiling is ops' {TM, TN, TK, RM, RN, V} (package ops/tune): V 0 the
// portable kernel, 1 it with aligned local vector reads and prefetching
// on edge tiles, 2 and 3 float64 on NVIDIA's tensor cores through inline
// PTX (mma m8n8k4, m16n8k4; RM×RN a warp's block).
func isPTX(c [6]int) bool { return c[5] == 2 || c[5] == 3 }

// gemmCandidates are the tilings -tune measures for elements of elem
// bytes; ptx "on" keeps only the inline-PTX ones, "off" drops them.
func gemmCandidates(elem int, ptx string) [][6]int {
	var cs [][6]int
	if elem == 8 {
		cs = [][6]int{{64, 64, 16, 4, 4, 0}, {64, 64, 8, 4, 4, 0}, {128, 64, 8, 8, 4, 0}, {64, 128, 8, 4, 8, 0}, {128, 128, 8, 8, 8, 0}, {32, 32, 16, 4, 4, 0},
			{128, 128, 8, 8, 8, 1}, {64, 64, 16, 4, 4, 1},
			{128, 128, 8, 64, 32, 2}, {128, 128, 8, 32, 64, 2}, {128, 128, 4, 64, 32, 2}, {128, 64, 8, 32, 32, 2}, {64, 64, 8, 32, 32, 2},
			{128, 128, 8, 64, 32, 3}, {128, 128, 8, 32, 64, 3}, {128, 64, 8, 64, 16, 3}, {64, 64, 16, 32, 16, 3}}
	} else {
		cs = [][6]int{{128, 128, 16, 8, 8, 0}, {128, 128, 8, 8, 8, 0}, {128, 64, 16, 8, 4, 0},
			{64, 128, 16, 4, 8, 0}, {128, 64, 8, 8, 4, 0}, {64, 64, 16, 4, 4, 0},
			{64, 64, 32, 8, 8, 0}, {128, 128, 8, 16, 8, 0}, {128, 128, 8, 8, 16, 0},
			{256, 128, 8, 16, 8, 0}, {128, 256, 8, 8, 16, 0},
			// V=1: the same kernels with aligned float4 reads of the slabs
			{128, 128, 8, 16, 8, 1}, {128, 128, 8, 8, 16, 1}, {128, 128, 8, 8, 8, 1}, {128, 128, 16, 8, 8, 1},
			{128, 128, 16, 16, 8, 1}, {128, 128, 16, 8, 16, 1}, {128, 64, 16, 8, 4, 1}, {64, 128, 8, 8, 8, 1},
			{128, 64, 8, 8, 8, 1}, {64, 64, 16, 4, 4, 1}, {64, 64, 8, 8, 8, 1}, {64, 64, 32, 8, 8, 1},
			{256, 128, 8, 16, 8, 1}, {128, 256, 8, 8, 16, 1}}
	}
	var out [][6]int
	for _, c := range cs {
		if elem == 8 && ((ptx == "on" && !isPTX(c)) || (ptx == "off" && isPTX(c))) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// gemmCase is one product: dst (N, M) = a (K, M) · b (N, K), a(p, i) =
// p/K and b = 1, so that every dst element is (K−1)/2.
type gemmCase struct {
	M, N, K int
	key     string // result key (torch_ops.py writes the same)
	name    string
	target  float64
}

func (g gemmCase) flops() float64 { return 2 * float64(g.M) * float64(g.N) * float64(g.K) }

func (b *bench) gemm32(n int, tune bool) {
	runGemm[float32](b, gemmCase{n, n, n, "sgemm_tflops", fmt.Sprintf("SGEMM %d fp32", n), 0.8}, tune, true)
}

func (b *bench) gemm64(n int, tune bool) {
	runGemm[float64](b, gemmCase{n, n, n, "dgemm_tflops", fmt.Sprintf("DGEMM %d fp64", n), 0.4}, tune, true)
}

// gemmShapes measures the other shapes with MatMul's own choice for each
// (ops.Tuning.Gemm: autotuned per shape class at its first call, split-K
// for thin ones; the tiling tuned at -gemm is dropped) and, with tune,
// says which unsplit tiling would be best for each shape.
func (b *bench) gemmShapes(tune bool) {
	for _, s := range []struct {
		m, n, k int
		tag     string
	}{{1000, 1000, 1000, "1000"}, {4096, 4096, 64, "k64"}, {64, 4096, 4096, "m64"}, {1024, 784, 1024, "mlp"}} {
		shape := fmt.Sprintf("%d×%d×%d", s.m, s.n, s.k)
		b.try("sgemm "+shape, func() {
			runGemm[float32](b, gemmCase{s.m, s.n, s.k, "sgemm_" + s.tag + "_tflops", "SGEMM " + shape + " fp32", 0}, tune, false)
		})
		b.try("dgemm "+shape, func() {
			runGemm[float64](b, gemmCase{s.m, s.n, s.k, "dgemm_" + s.tag + "_tflops", "DGEMM " + shape + " fp64", 0}, tune, false)
		})
	}
}

// runGemm measures g. keep: tune and leave the fastest tiling set (the
// main size); else time the tiling set, then (tune) every candidate for
// this shape, reported in the note, and put the tiling back.
func runGemm[T float32 | float64](b *bench, g gemmCase, tune, keep bool) {
	var z T
	elem := int(8 - 4*btoi(any(z) == any(float32(0))))
	a, x, c := array.New[T](g.K, g.M), array.New[T](g.N, g.K), array.New[T](g.N, g.M)
	defer func() { a.Close(); x.Close(); c.Close() }()
	check(ops.On(b.d, a, x, c))
	check(ops.Iota(a, -1))
	check(ops.BinaryScalar(a, a, 1/T(g.K), ops.OpMul))
	check(ops.Fill(x, 1))
	fn := func() error { return ops.MatMul(c, a, x) }
	opstune.Gemm.PTX(b.d, b.ptx != "off")
	if keep {
		best, cfg, byKind := b.gemmTune(elem, tune, g, fn)
		b.checkGemm(c, g)
		b.add(result{Key: g.key, Name: g.name, Unit: "TFLOP/s", Value: g.flops() / best / 1e12, Higher: true, Target: g.target, Note: "(" + tiling(cfg) + ")"})
		if elem == 8 && byKind[0].t > 0 && byKind[1].t > 0 {
			// both kinds measured: each one's best, so that the run shows the PTX gain
			for i, k := range []string{"portable", "ptx"} {
				b.add(result{Key: "dgemm_" + k + "_tflops", Name: g.name + " " + k, Unit: "TFLOP/s", Value: g.flops() / byKind[i].t / 1e12, Higher: true, Note: "(" + tiling(byKind[i].c) + ")"})
			}
		}
		return
	}
	// the library's own choice for this shape (autotuned at its first call)
	opstune.Gemm.Unset(b.d, elem)
	t := b.timeIt(fn)
	b.checkGemm(c, g)
	note := "(" + opstune.Gemm.Choice(b.d, elem, g.M, g.N, g.K) + ")"
	if tune {
		best, cfg, _ := b.gemmTune(elem, true, g, fn)
		note += fmt.Sprintf(" best unsplit tiling here %.4g TFLOP/s (%s)", g.flops()/best/1e12, tiling(cfg))
		opstune.Gemm.Unset(b.d, elem)
	}
	b.add(result{Key: g.key, Name: g.name, Unit: "TFLOP/s", Value: g.flops() / t / 1e12, Higher: true, Target: g.target, Note: note})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkGemm spot-checks dst: every element is (K−1)/2.
func (b *bench) checkGemm(c any, g gemmCase) {
	want := float64(g.K-1) / 2
	tol := 1e-9
	var at func(j, i int) float64
	switch c := c.(type) {
	case *array.Array[float32]:
		v, err := c.HostReadOnly()
		check(err)
		at, tol = func(j, i int) float64 { return float64(v.At(j, i)) }, 1e-3
	case *array.Array[float64]:
		v, err := c.HostReadOnly()
		check(err)
		at = func(j, i int) float64 { return v.At(j, i) }
	}
	for _, p := range [][2]int{{0, 0}, {g.N / 3, g.M / 2}, {g.N - 1, g.M - 1}, {g.N - 1, 0}, {0, g.M - 1}} {
		if got := at(p[0], p[1]); math.Abs(got-want) > tol*max(want, 1) {
			check(fmt.Errorf("%s check at (%d, %d): got %v, want %v", g.name, p[0], p[1], got, want))
		}
	}
}

type timed struct {
	t float64
	c [6]int
}

// gemmTune times fn under each candidate tiling (or only the one set) and
// leaves the fastest set; it returns its seconds per call and the best of
// each kind (portable, inline PTX).
func (b *bench) gemmTune(elem int, tune bool, g gemmCase, fn func() error) (float64, [6]int, [2]timed) {
	cands := [][6]int{opstune.Gemm.Get(b.d, elem)}
	if tune {
		cands = gemmCandidates(elem, b.ptx)
	}
	best, bestCfg := math.Inf(1), cands[0]
	var byKind [2]timed
	saved := b.minTime
	b.minTime = saved / 3
	defer func() { b.minTime = saved }()
	ptxDead := map[int]bool{} // variants that fell back
	for _, c := range cands {
		if isPTX(c) && (elem != 8 || ptxDead[c[5]]) {
			continue
		}
		if err := opstune.Gemm.Set(b.d, elem, c); err != nil {
			fmt.Fprintf(b.out, "  gemm%d %v: %v\n", elem*8, tiling(c), err)
			continue
		}
		t, err := b.tryTime(fn)
		if err != nil {
			fmt.Fprintf(b.out, "  gemm%d %v: %v\n", elem*8, tiling(c), err)
			continue
		}
		kind := btoi(isPTX(c))
		if kind == 1 {
			if ok, perr := opstune.Gemm.PTXState(b.d); !ok {
				// MatMul fell back to the portable kernel: that time is not the PTX kernel's
				fmt.Fprintf(b.out, "  gemm%d %v: inline PTX unusable here, MatMul ran the portable kernel: %v\n", elem*8, tiling(c), perr)
				ptxDead[c[5]] = true
				continue
			}
		}
		fmt.Fprintf(b.out, "  gemm%d %-40s %8.3f ms %7.2f TFLOP/s\n", elem*8, tiling(c), t*1e3, g.flops()/t/1e12)
		b.ptxasInfo(elem, c)
		if t < best {
			best, bestCfg = t, c
		}
		if byKind[kind].t == 0 || t < byKind[kind].t {
			byKind[kind] = timed{t, c}
		}
	}
	b.minTime = saved
	check(opstune.Gemm.Set(b.d, elem, bestCfg))
	return b.timeIt(fn), bestCfg, byKind
}

// ptxasInfo prints, once per tiling, what NVIDIA's compiler says of the
// GEMM program's kernels with -cl-nv-verbose: registers, spills, local
// memory (the build log of a program like the one MatMul builds).
func (b *bench) ptxasInfo(elem int, c [6]int) {
	if !b.nvlog {
		return
	}
	if b.logged == nil {
		b.logged = map[[6]int]bool{}
	}
	key := c
	key[0] += elem << 20 // float32 and float64 programs differ
	if b.logged[key] {
		return
	}
	b.logged[key] = true
	src, opt := opstune.Gemm.Source(b.d, elem, c)
	log, err := b.d.BuildLog(src, opt+" -cl-nv-verbose")
	if err != nil {
		fmt.Fprintf(b.out, "    (verbose build failed: %v)\n", err)
		return
	}
	for _, l := range strings.Split(log, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			fmt.Fprintf(b.out, "    %s\n", l)
		}
	}
}

// ptxProbe checks, on NVIDIA's OpenCL, that kernels may hold inline PTX
// (asm): a %laneid read and one float64 mma of each shape MatMul uses,
// checked against the host. It prints each build log on failure.
func (b *bench) ptxProbe() {
	if !strings.Contains(b.d.Caps().Vendor, "NVIDIA") {
		fmt.Fprintf(b.out, "inline PTX probe: skipped (%s is not NVIDIA's)\n", b.d.Caps().Vendor)
		return
	}
	const pre = `#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// A[i][k] = i·4 + k + 1, B[k][n] = (k + 1)·(n + 2) − 7: small integers, exact products.
#define AV(i, k) ((double)((i) * 4 + (k) + 1))
#define BV(k, n) ((double)(((k) + 1) * ((n) + 2) - 7))
`
	probes := []struct {
		name, src string
		rows      int
	}{
		{"laneid", `__kernel void probe(__global double *o) { uint x; asm volatile("mov.u32 %0, %%laneid;" : "=r"(x)); o[get_global_id(0)] = x; }`, 0},
		{"mma.m8n8k4.f64", `__kernel void probe(__global double *o) {
	int lane = get_local_id(0), g = lane >> 2, q = lane & 3;
	double a = AV(g, q), b = BV(q, g), c0 = 0, c1 = 0, d0, d1;
	asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};" : "=d"(d0), "=d"(d1) : "d"(a), "d"(b), "d"(c0), "d"(c1));
	o[g * 8 + 2 * q] = d0; o[g * 8 + 2 * q + 1] = d1;
}`, 8},
		{"mma.m16n8k4.f64", `__kernel void probe(__global double *o) {
	int lane = get_local_id(0), g = lane >> 2, q = lane & 3;
	double a0 = AV(g, q), a1 = AV(g + 8, q), b = BV(q, g), z = 0, d0, d1, d2, d3;
	asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3) : "d"(a0), "d"(a1), "d"(b), "d"(z), "d"(z), "d"(z), "d"(z));
	o[g * 8 + 2 * q] = d0; o[g * 8 + 2 * q + 1] = d1; o[(g + 8) * 8 + 2 * q] = d2; o[(g + 8) * 8 + 2 * q + 1] = d3;
}`, 16},
	}
	mem, err := b.d.Malloc(16 * 8 * 8)
	check(err)
	defer b.d.Free(mem)
	okN := 0
	var verdicts []string
	for _, pr := range probes {
		v := b.probeOne(pre+pr.src, mem, pr.rows)
		fmt.Fprintf(b.out, "inline PTX probe %s: %s\n", pr.name, v)
		if v == "ok" {
			okN++
		}
		verdicts = append(verdicts, pr.name+" "+strings.SplitN(v, ":", 2)[0])
	}
	b.add(result{Key: "ptx_probe", Name: "inline PTX (asm) in NVIDIA OpenCL C: " + strings.Join(verdicts, ", "), Unit: "of 3 ok", Value: float64(okN)})
}

// probeOne builds and runs one probe kernel over a warp and checks its
// output: lane ids (rows 0) or the rows×8 product AV·BV.
func (b *bench) probeOne(src string, mem device.Allocation, rows int) string {
	p, err := b.d.Compile(src, "")
	if err != nil {
		return "FAILED to build: " + err.Error()
	}
	defer p.Release()
	k, err := p.Kernel("probe")
	if err != nil {
		return "FAILED: " + err.Error()
	}
	defer k.Release()
	buf := device.Buffer(mem.Native())
	if err := b.d.Enqueue(k, device.Grid{Dims: 1, Global: [3]int{32}, Local: [3]int{32}}, []any{buf}); err != nil {
		return "FAILED to run: " + err.Error()
	}
	raw := make([]byte, 16*8*8)
	if err := b.d.ReadBytes(raw, buf, 0); err != nil {
		return "FAILED to read: " + err.Error()
	}
	got := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])) }
	if rows == 0 {
		for i := range 32 {
			if got(i) != float64(i) {
				return fmt.Sprintf("WRONG: lane %d read %%laneid %v", i, got(i))
			}
		}
		return "ok"
	}
	for i := range rows {
		for n := range 8 {
			want := 0.0
			for kk := range 4 {
				want += float64(i*4+kk+1) * float64((kk+1)*(n+2)-7)
			}
			if got(i*8+n) != want {
				return fmt.Sprintf("WRONG: D[%d][%d] = %v, want %v (fragment layout)", i, n, got(i*8+n), want)
			}
		}
	}
	return "ok"
}

// tiling names a GEMM tiling {TM, TN, TK, RM, RN, V}.
func tiling(c [6]int) string {
	s := fmt.Sprintf("TM=%d TN=%d TK=%d RM=%d RN=%d", c[0], c[1], c[2], c[3], c[4])
	switch c[5] {
	case 1:
		s += " V=1"
	case 2:
		s += " V=2 PTX m8n8k4"
	case 3:
		s += " V=3 PTX m16n8k4"
	}
	return s
}
