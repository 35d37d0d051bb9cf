package ops

import (
	"fmt"
	"log"
	"strings"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops/tune"
)

// gemmConfig is the tiling of the device matrix product: a work-group
// computes a TM×TN tile of dst in TK-deep steps. V picks the kernel:
//
//	gemmPortable  gemm.cl: each work-item an RM×RN register block (RM and
//	              RN multiples of 4; TM/RM·TN/RN work-items per group)
//	gemmVec       the same with aligned vector reads of the local slabs and
//	              the prefetching kernel on edge tiles too
//	gemmMMA8      gemm_mma.cl, float64 on NVIDIA's tensor cores (inline PTX
//	gemmMMA16     mma.sync m8n8k4 or sm_90's m16n8k4): each warp an RM×RN
//	              block; 32·TM/RM·TN/RN work-items per group
type gemmConfig struct{ TM, TN, TK, RM, RN, V int }

const (
	gemmPortable = iota
	gemmVec
	gemmMMA8
	gemmMMA16
)

func (c gemmConfig) String() string {
	s := fmt.Sprintf("TM=%d TN=%d TK=%d RM=%d RN=%d", c.TM, c.TN, c.TK, c.RM, c.RN)
	if c.V != 0 {
		s += fmt.Sprintf(" V=%d", c.V)
	}
	return s
}

func (c gemmConfig) mma() bool { return c.V == gemmMMA8 || c.V == gemmMMA16 }

// ms is the tensor-core tile's rows (the m of mma.mMSn8k4).
func (c gemmConfig) ms() int {
	if c.V == gemmMMA16 {
		return 16
	}
	return 8
}

// threads is a work-group's size.
func (c gemmConfig) threads() int {
	if c.mma() {
		return 32 * (c.TM / c.RM) * (c.TN / c.RN)
	}
	return (c.TM / c.RM) * (c.TN / c.RN)
}

// local is the local memory a work-group uses, in bytes, for the
// prefetching kernels (gemm_full, gemm_mma: two slabs).
func (c gemmConfig) local(elemBytes int) int64 {
	if c.mma() {
		return int64(2 * c.TK * (c.TM + 4 + c.TN + 4) * 8)
	}
	return int64(2 * c.TK * (c.TM + gemmPadA + c.TN) * elemBytes)
}

// fullOK reports whether every work-item loads whole float4s of both
// slabs, which gemm_full assumes.
func (c gemmConfig) fullOK() bool {
	nt := c.threads()
	return (c.TM*c.TK/4)%nt == 0 && (c.TN*c.TK/4)%nt == 0 && c.TM*c.TK/4 >= nt && c.TN*c.TK/4 >= nt
}

func (c gemmConfig) valid() bool {
	if c.TM <= 0 || c.TN <= 0 || c.TK <= 0 || c.RM <= 0 || c.RN <= 0 || c.TM%c.RM != 0 || c.TN%c.RN != 0 || c.TK%4 != 0 {
		return false
	}
	switch c.V {
	case gemmPortable, gemmVec:
		return c.RM%4 == 0 && c.RN%4 == 0 && c.TM%4 == 0 && c.TN%4 == 0
	case gemmMMA8, gemmMMA16:
		nt := c.threads()
		return c.RM%c.ms() == 0 && c.RN%8 == 0 && nt <= 1024 && (c.TM*c.TK)%nt == 0 && (c.TN*c.TK)%nt == 0
	}
	return false
}

// Tuned tilings (bench/cmd/opsbench -tune measures the candidates and
// prints the best; the figures are in bench/results/h200-ops-device.md).
var (
	gemmNVIDIA32  = gemmConfig{128, 256, 8, 8, 16, gemmVec}    // H200: 46.4 TFLOP/s at 4096³
	gemmNVIDIA64  = gemmConfig{128, 128, 8, 8, 8, gemmVec}     // H200: 15.4 TFLOP/s, without tensor cores
	gemmNVIDIAMMA = gemmConfig{128, 128, 8, 32, 64, gemmMMA16} // H200: 30.0 TFLOP/s at 4096³
	gemmOther     = gemmConfig{32, 32, 8, 4, 4, 0}
)

// Smaller tilings for products whose default tiling leaves compute units
// idle (1024² with 128×256 tiles is 32 work-groups on the H200's 132
// units): the best opsbench found at 1000³ and at 64×4096×4096.
var (
	gemmNVIDIA32Small = []gemmConfig{{128, 64, 16, 8, 4, gemmVec}, {64, 64, 16, 4, 4, gemmVec}}
	gemmNVIDIA64Small = []gemmConfig{{128, 64, 8, 8, 8, gemmVec}, {64, 64, 16, 4, 4, gemmVec}}
	gemmMMASmall      = []gemmConfig{{128, 64, 8, 64, 16, gemmMMA16}, {64, 64, 16, 32, 16, gemmMMA16}}
)

// gemmFit returns cfg, or when cfg gives fewer work-groups than ¾ of the
// compute units for an m×n product of batch matrices, the first of smaller
// whose count reaches that (else the last of them).
func gemmFit(cfg gemmConfig, smaller []gemmConfig, m, n, batch, units int) gemmConfig {
	groups := func(c gemmConfig) int { return (m + c.TM - 1) / c.TM * ((n + c.TN - 1) / c.TN) * batch }
	need := (3*units + 3) / 4
	if len(smaller) == 0 || groups(cfg) >= need {
		return cfg
	}
	for _, c := range smaller {
		if groups(c) >= need {
			return c
		}
	}
	return smaller[len(smaller)-1]
}

// gemmFamily lists the smaller tilings of a default one (none for a
// tiling without a smaller family).
func gemmFamily(cfg gemmConfig) []gemmConfig {
	switch cfg {
	case gemmNVIDIA32:
		return gemmNVIDIA32Small
	case gemmNVIDIA64:
		return gemmNVIDIA64Small
	case gemmNVIDIAMMA:
		return gemmMMASmall
	}
	return nil
}

// gemmPadA pads each row of the kernels' A slab (PADA): a multiple of 4
// keeps its float4 reads aligned.
const gemmPadA = 4

func isNVIDIA(d device.Kernels) bool { return strings.Contains(d.Caps().Vendor, "NVIDIA") }

// mmaVendor says whether a device may run the inline-PTX kernels, and
// mmaInject is put before their source: tests set them to take the
// fallback path on devices that are not NVIDIA's.
var (
	mmaVendor = isNVIDIA
	mmaInject = ""
)

// gemmConfigOf returns the tiling set on d for elements of elemBytes
// bytes (4 or 8), else the device's default (MatMul then picks per shape:
// gemmChoose).
func gemmConfigOf(d device.Kernels, elemBytes int) gemmConfig {
	c, _ := gemmForced(stateOf(d), elemBytes)
	return c
}

// gemmForced is gemmConfigOf, and whether that tiling was set.
func gemmForced(s devRef, elemBytes int) (gemmConfig, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.gemm[elemBytes]; ok {
		return c, true
	}
	return gemmDefault(s.d, elemBytes, true), false
}

// gemmDefault is d's default tiling; mma false: the portable one.
func gemmDefault(d device.Kernels, elemBytes int, mma bool) gemmConfig {
	if !isNVIDIA(d) {
		return gemmOther
	}
	if elemBytes == 8 {
		if mma {
			return gemmNVIDIAMMA
		}
		return gemmNVIDIA64
	}
	return gemmNVIDIA32
}

// setGemmConfig sets the tiling MatMul uses on d for elements of elemBytes
// bytes, at every shape (no split-K unless setGemmSplit forces one); an
// invalid one panics with array.ErrShape.
func setGemmConfig(d device.Kernels, elemBytes int, c gemmConfig) {
	if !c.valid() {
		panic(fmt.Errorf("%w: ops.setGemmConfig: %v: RM, RN, TK multiples of 4, TM a multiple of RM, TN of RN", array.ErrShape, c))
	}
	s := stateOf(d)
	s.mu.Lock()
	s.gemm[elemBytes] = c
	s.mu.Unlock()
}

// unsetGemmConfig drops the tiling set for elemBytes: MatMul picks per
// shape again.
func unsetGemmConfig(d device.Kernels, elemBytes int) {
	s := stateOf(d)
	s.mu.Lock()
	delete(s.gemm, elemBytes)
	s.mu.Unlock()
}

// setGemmSplit forces split-K into parts slices (at most; fewer when K is
// short) for elements of elemBytes bytes on d, with the tiling set or the
// model's; 1 forces no split, 0 drops the forcing.
func setGemmSplit(d device.Kernels, elemBytes, parts int) {
	s := stateOf(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if parts <= 0 {
		delete(s.gemmSplit, elemBytes)
		return
	}
	s.gemmSplit[elemBytes] = parts
}

// mmaUsable reports whether the inline-PTX kernel of variant v may run on
// s's device: NVIDIA's OpenCL with fp64, not turned off, not failed to
// build before.
func (s devRef) mmaUsable(v int) bool {
	if !mmaVendor(s.d) || !s.fp64 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.mmaOff && s.mmaErr[v-gemmMMA8] == nil
}

// gemmSource is the program of tiling cfg for elements of type ct.
func gemmSource(cfg gemmConfig, ct clType) string {
	if cfg.mma() {
		return fmt.Sprintf("#define TM %d\n#define TN %d\n#define TK %d\n#define RM %d\n#define RN %d\n#define MS %d\n",
			cfg.TM, cfg.TN, cfg.TK, cfg.RM, cfg.RN, cfg.ms()) + mmaInject + clGemmMMA
	}
	return fmt.Sprintf("#define TS %s\n#define TVT4 %s4\n#define TM %d\n#define TN %d\n#define TK %d\n#define RM %d\n#define RN %d\n#define PADA %d\n#define VAR %d\n",
		ct.s, ct.s, cfg.TM, cfg.TN, cfg.TK, cfg.RM, cfg.RN, gemmPadA, cfg.V) + clCommon + clGemm
}

// gemmRun is one device product, ready to launch: its shape and
// strides, operands' buffers and offsets (dst, a, b), element type.
type gemmRun struct {
	s    devRef
	mm   mmJob
	mems [3]device.Buffer
	offs [3]int
	t    array.Type
	es   int
}

// program returns the program of tiling c: an inline-PTX one runs only
// for float64 on a device where mmaUsable and where it fits (else the
// default portable tiling), and one whose build fails is logged,
// remembered (s.mmaErr) and replaced by the portable tiling: never an
// error to the caller. It returns the tiling it built.
func (g *gemmRun) program(c gemmConfig) (gemmConfig, *clProgram, error) {
	s := g.s
	if c.mma() && !s.mmaFits(g.es, c) {
		c = gemmDefault(s.d, g.es, false)
	}
	ct, _ := clTypeOf(g.t)
	build := func(c gemmConfig) (*clProgram, error) {
		return s.program(progKey{kind: "gemm", t: g.t, gemm: c}, func() string { return gemmSource(c, ct) })
	}
	p, err := build(c)
	if err != nil && c.mma() {
		s.mu.Lock()
		s.mmaErr[c.V-gemmMMA8] = err
		s.mu.Unlock()
		log.Printf("ops: the inline-PTX float64 GEMM (%v) did not build on %s; MatMul uses the portable kernel: %v", c, s.d.Name(), err)
		c = gemmDefault(s.d, g.es, false)
		p, err = build(c)
	}
	return c, p, err
}

// mmaFits says whether inline-PTX tiling c may run for elements of es
// bytes on s's device.
func (s devRef) mmaFits(es int, c gemmConfig) bool {
	return es == 8 && s.mmaUsable(c.V) && c.local(es) <= s.localMem && c.threads() <= s.d.Caps().MaxGroup
}

// sumProgram is split-K's reduction program for g's element type.
func (g *gemmRun) sumProgram() (*clProgram, error) {
	ct, _ := clTypeOf(g.t)
	return g.s.program(progKey{kind: "gemmsum", t: g.t}, func() string {
		return "#define T " + ct.s + "\n" + clCommon + clGemmSum
	})
}

// run computes dst = a·b with choice ch: the tiled kernel of ch.cfg over
// the whole product, or over ch.split slices of K then gemm_sum (split).
func (g *gemmRun) run(ch gemmChoice) error {
	cfg, p, err := g.program(ch.cfg)
	if err != nil {
		return err
	}
	if ch.split > 1 && g.mm.batch == 1 {
		if done, err := g.split(cfg, p, ch.split); done {
			return err
		}
	}
	return g.tiled(cfg, p, &g.mm, g.mems[0], g.offs[0], g.offs[1], g.offs[2])
}

// gemmScratchMax bounds split-K's partials (bytes): past it the product
// runs unsplit.
const gemmScratchMax = 1 << 28

// split runs the product as up to parts slices of K, each slice's product
// packed into scratch by the tiled kernel (the whole slices in one
// launch, their index as its batch; a shorter last slice in a second),
// then gemm_sum adds the slices into dst. done false: K is too short to
// split in two (or the partials too large); nothing was launched.
func (g *gemmRun) split(cfg gemmConfig, p *clProgram, parts int) (done bool, err error) {
	mm := &g.mm
	kc := (mm.k + parts - 1) / parts
	kc = (kc + cfg.TK - 1) / cfg.TK * cfg.TK // whole slabs, and float4-aligned slices
	full := mm.k / kc
	rem := mm.k - full*kc
	slices := full
	if rem > 0 {
		slices++
	}
	mn := mm.m * mm.n
	if slices < 2 || slices*mn*g.es > gemmScratchMax {
		return false, nil
	}
	sp, err := g.sumProgram()
	if err != nil {
		return true, err
	}
	s := g.s
	s.gemmMu.Lock()
	defer s.gemmMu.Unlock()
	buf, err := s.gemmScratchFor(slices * mn * g.es)
	if err != nil {
		return true, fmt.Errorf("ops.MatMul: split-K partials on %s: %w", s.d.Name(), err)
	}
	sub := *mm
	sub.k, sub.batch = kc, full
	sub.sab, sub.sbb = kc*mm.sak, kc*mm.sbk
	sub.sdi, sub.sdj, sub.sdb = mm.n, 1, mn
	if err := g.tiled(cfg, p, &sub, buf, 0, g.offs[1], g.offs[2]); err != nil {
		return true, err
	}
	if rem > 0 {
		sub.k, sub.batch = rem, 1
		if err := g.tiled(cfg, p, &sub, buf, full*mn, g.offs[1]+full*kc*mm.sak, g.offs[2]+full*kc*mm.sbk); err != nil {
			return true, err
		}
	}
	i64 := func(x int) int64 { return int64(x) }
	return true, s.launch(sp, "gemm_sum", []int{(mn + s.wg - 1) / s.wg * s.wg}, s.local,
		g.mems[0], buf, i64(mm.m), i64(mm.n), i64(slices), i64(g.offs[0]), i64(mm.sdi), i64(mm.sdj))
}

// gemmScratchFor returns split-K's scratch grown to at least n bytes;
// the caller holds s.gemmMu.
func (s devRef) gemmScratchFor(n int) (device.Buffer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return 0, fmt.Errorf("ops: %s is closed: %w", s.d.Name(), device.ErrClosed)
	}
	if s.gemmScratchN < n {
		if s.gemmScratch != nil {
			s.d.Free(s.gemmScratch)
			s.gemmScratch, s.gemmScratchN = nil, 0
		}
		a, err := s.d.Malloc(max(n, 1<<20))
		if err != nil {
			return 0, err
		}
		s.gemmScratch, s.gemmScratchN = a, max(n, 1<<20)
	}
	return device.Buffer(s.gemmScratch.Native()), nil
}

// tiled launches tiling cfg's kernel for the product mm into c (at oc),
// from a and b at oa and ob.
func (g *gemmRun) tiled(cfg gemmConfig, p *clProgram, mm *mmJob, c device.Buffer, oc, oa, ob int) error {
	s, es := g.s, g.es
	fl := int32(0)
	if mm.sak == 1 && mm.sai%4 == 0 && oa%4 == 0 && mm.sab%4 == 0 {
		fl |= 1
	}
	if mm.sbj == 1 && mm.sbk%4 == 0 && ob%4 == 0 && mm.sbb%4 == 0 {
		fl |= 2
	}
	if mm.sdj == 1 && mm.sdi%4 == 0 && oc%4 == 0 && mm.sdb%4 == 0 {
		fl |= 4 // gemm_full (V 1) stores whole float4s
	}
	i64 := func(x int) int64 { return int64(x) }
	gn, gm := (mm.n+cfg.TN-1)/cfg.TN, (mm.m+cfg.TM-1)/cfg.TM
	kname, local := "gemm", []int{cfg.TN / cfg.RN, cfg.TM / cfg.RM, 1}
	global := []int{gn * local[0], gm * local[1], mm.batch}
	switch {
	case cfg.mma():
		kname, local = "gemm_mma", []int{cfg.threads(), 1, 1}
		global = []int{gn * cfg.threads(), gm, mm.batch}
	case fl&3 == 3 && (cfg.V == gemmVec || mm.m%cfg.TM == 0 && mm.n%cfg.TN == 0 && mm.k%cfg.TK == 0) &&
		cfg.fullOK() && cfg.local(es) <= s.localMem: // gemm_full's two slabs fit
		kname = "gemm_full"
	}
	return s.launch(p, kname, global, local,
		c, g.mems[1], g.mems[2], i64(mm.m), i64(mm.n), i64(mm.k),
		i64(oa), i64(mm.sai), i64(mm.sak), i64(mm.sab),
		i64(ob), i64(mm.sbk), i64(mm.sbj), i64(mm.sbb),
		i64(oc), i64(mm.sdi), i64(mm.sdj), i64(mm.sdb), fl)
}

func matmulDevice[T Float](d device.Kernels, dst, a, b *array.Array[T]) (bool, error) {
	g := gemmRun{s: stateOf(d), t: array.TypeOf[T](), es: sizeOf[T]()}
	g.mm.check(dst, a, b)
	ch, tuning := g.s.gemmChoose(g.es, &g.mm)
	if _, _, err := g.program(ch.cfg); err != nil { // a build error before anything moves
		return true, err
	}
	var err error
	g.mems, g.offs, err = ready(g.s, "MatMul", dst, a, b)
	if err != nil {
		return true, err
	}
	if g.mm.m == 0 || g.mm.n == 0 || g.mm.batch == 0 {
		return true, res().WroteDevice(dst.Raw(), nil)
	}
	if tuning {
		return wroteOnDevice(dst.Raw(), g.autotune(ch))
	}
	return wroteOnDevice(dst.Raw(), g.run(ch))
}

// Tuners (the bench module's opsbench -tune) set tilings through package
// ops/tune.
func init() {
	tune.Gemm.Get = func(d device.Kernels, elemBytes int) [6]int {
		c := gemmConfigOf(d, elemBytes)
		return [6]int{c.TM, c.TN, c.TK, c.RM, c.RN, c.V}
	}
	tune.Gemm.Set = func(d device.Kernels, elemBytes int, c [6]int) error {
		g := gemmConfig{c[0], c[1], c[2], c[3], c[4], c[5]}
		if !g.valid() {
			return fmt.Errorf("%w: GEMM tiling %v: RM, RN, TK multiples of 4, TM a multiple of RM, TN of RN", array.ErrShape, g)
		}
		setGemmConfig(d, elemBytes, g)
		return nil
	}
	tune.Gemm.Unset = unsetGemmConfig
	tune.Gemm.Split = setGemmSplit
	tune.Gemm.Choice = func(d device.Kernels, elemBytes, m, n, k int) string {
		mm := mmJob{m: m, n: n, k: k, batch: 1, sak: 1, sbj: 1}
		ch, tuning := stateOf(d).gemmChoose(elemBytes, &mm)
		if tuning {
			return ""
		}
		return fmt.Sprintf("%v split %d", ch.cfg, max(ch.split, 1))
	}
	tune.Gemm.Source = func(d device.Kernels, elemBytes int, c [6]int) (string, string) {
		t := array.TypeOf[float32]()
		if elemBytes == 8 {
			t = array.TypeOf[float64]()
		}
		ct, _ := clTypeOf(t)
		opt := ""
		if stateOf(d).fp64 {
			opt = "-DFP64"
		}
		return gemmSource(gemmConfig{c[0], c[1], c[2], c[3], c[4], c[5]}, ct), opt
	}
	tune.Gemm.PTX = func(d device.Kernels, on bool) {
		s := stateOf(d)
		s.mu.Lock()
		s.mmaOff = !on
		s.mu.Unlock()
	}
	tune.Gemm.PTXState = func(d device.Kernels) (bool, error) {
		s := stateOf(d)
		v := gemmConfigOf(d, 8).V
		if v != gemmMMA16 {
			v = gemmMMA8
		}
		ok := s.mmaUsable(v)
		s.mu.Lock()
		defer s.mu.Unlock()
		return ok, s.mmaErr[v-gemmMMA8]
	}
}
