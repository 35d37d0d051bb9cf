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

// gemmSmaller lists the smaller tilings for a default one (none for a
// tiling set through the tuner, or one without a smaller family).
func gemmSmaller(s devRef, elemBytes int, cfg gemmConfig) []gemmConfig {
	s.mu.Lock()
	_, set := s.gemm[elemBytes]
	s.mu.Unlock()
	if set {
		return nil
	}
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

// gemmConfigOf returns the tiling MatMul uses on d for elements of
// elemBytes bytes (4 or 8): the one set, else the device's default.
func gemmConfigOf(d device.Kernels, elemBytes int) gemmConfig {
	s := stateOf(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.gemm[elemBytes]; ok {
		return c
	}
	return gemmDefault(d, elemBytes, true)
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
// bytes; an invalid one panics with array.ErrShape.
func setGemmConfig(d device.Kernels, elemBytes int, c gemmConfig) {
	if !c.valid() {
		panic(fmt.Errorf("%w: ops.setGemmConfig: %v: RM, RN, TK multiples of 4, TM a multiple of RM, TN of RN", array.ErrShape, c))
	}
	s := stateOf(d)
	s.mu.Lock()
	s.gemm[elemBytes] = c
	s.mu.Unlock()
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

// gemmPlan picks the tiling and program for a product on s's device: the
// configured tiling, except that an inline-PTX one runs only for float64
// on a device where mmaUsable (else the default portable tiling), and
// one whose build fails is logged, remembered (s.mmaErr) and replaced by
// the portable tiling: never an error to the caller.
func gemmPlan[T Float](s devRef, m, n, batch int) (gemmConfig, *clProgram, error) {
	es := sizeOf[T]()
	cfg := gemmConfigOf(s.d, es)
	if cfg.mma() && (es != 8 || !s.mmaUsable(cfg.V) || cfg.local(es) > s.localMem || cfg.threads() > s.d.Caps().MaxGroup) {
		cfg = gemmDefault(s.d, es, false)
	}
	if small := gemmFit(cfg, gemmSmaller(s, es, cfg), m, n, batch, s.cus); small != cfg && small.local(es) <= s.localMem && small.threads() <= s.d.Caps().MaxGroup {
		cfg = small
	}
	ct, _ := clTypeOf(array.TypeOf[T]())
	build := func(c gemmConfig) (*clProgram, error) {
		return s.program(progKey{kind: "gemm", t: array.TypeOf[T](), gemm: c}, func() string { return gemmSource(c, ct) })
	}
	p, err := build(cfg)
	if err != nil && cfg.mma() {
		s.mu.Lock()
		s.mmaErr[cfg.V-gemmMMA8] = err
		s.mu.Unlock()
		log.Printf("ops: the inline-PTX float64 GEMM (%v) did not build on %s; MatMul uses the portable kernel: %v", cfg, s.d.Name(), err)
		cfg = gemmDefault(s.d, es, false)
		p, err = build(cfg)
	}
	return cfg, p, err
}

func matmulDevice[T Float](d device.Kernels, dst, a, b *array.Array[T]) (bool, error) {
	var mm mmJob
	mm.check(dst, a, b)
	s := stateOf(d)
	es := sizeOf[T]()
	cfg, p, err := gemmPlan[T](s, mm.m, mm.n, mm.batch)
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, "MatMul", dst, a, b)
	if err != nil {
		return true, err
	}
	if mm.m == 0 || mm.n == 0 || mm.batch == 0 {
		return true, res().WroteDevice(dst.Raw(), nil)
	}
	fl := int32(0)
	if mm.sak == 1 && mm.sai%4 == 0 && offs[1]%4 == 0 && mm.sab%4 == 0 {
		fl |= 1
	}
	if mm.sbj == 1 && mm.sbk%4 == 0 && offs[2]%4 == 0 && mm.sbb%4 == 0 {
		fl |= 2
	}
	if mm.sdj == 1 && mm.sdi%4 == 0 && offs[0]%4 == 0 && mm.sdb%4 == 0 {
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
	err = s.launch(p, kname, global, local,
		mems[0], mems[1], mems[2], i64(mm.m), i64(mm.n), i64(mm.k),
		i64(offs[1]), i64(mm.sai), i64(mm.sak), i64(mm.sab),
		i64(offs[2]), i64(mm.sbk), i64(mm.sbj), i64(mm.sbb),
		i64(offs[0]), i64(mm.sdi), i64(mm.sdj), i64(mm.sdb), fl)
	return wroteOnDevice(dst.Raw(), err)
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
