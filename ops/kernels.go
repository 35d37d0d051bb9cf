package ops

import (
	_ "embed" // the OpenCL sources, in cl/*.cl
	"fmt"
	"strings"

	"github.com/resident-go/resident/array"
)

// OpenCL C sources of the device ops, templated per element type with
// preprocessor definitions that clType writes: S is the storage type, C the
// type arithmetic runs in (float for Float16 and BFloat16, converted with
// integer bit operations so no cl_khr_fp16 is needed), W the unsigned type
// integer arithmetic wraps in. Layouts come in as arguments: the root
// cl_mem, an element offset per operand and an nd_t of extents and strides,
// so any view works without a sub-buffer or a dense copy.

// clMaxDims is the most dimensions an nd_t carries after simplification;
// an op over more runs on the host.
const clMaxDims = 8

// clType describes one element type to the OpenCL compiler.
type clType struct {
	s, c, w  string // storage, compute, wrapping types
	half     int    // 0, 1 Float16, 2 BFloat16
	float    bool   // float, double or half
	signed   bool
	min, max string // integer limits, for min/max reductions
	size     int
}

func clTypeOf(t array.Type) (clType, bool) {
	switch {
	case t.Lanes != 1:
		return clType{}, false
	case t.Code == array.Float && t.Bits == 32:
		return clType{s: "float", c: "float", w: "float", float: true, signed: true, size: 4}, true
	case t.Code == array.Float && t.Bits == 64:
		return clType{s: "double", c: "double", w: "double", float: true, signed: true, size: 8}, true
	case t.Code == array.Float && t.Bits == 16:
		return clType{s: "ushort", c: "float", w: "float", half: 1, float: true, signed: true, size: 2}, true
	case t.Code == array.BFloat && t.Bits == 16:
		return clType{s: "ushort", c: "float", w: "float", half: 2, float: true, signed: true, size: 2}, true
	}
	names := map[uint8][2]string{8: {"char", "uchar"}, 16: {"short", "ushort"}, 32: {"int", "uint"}, 64: {"long", "ulong"}}
	lim := map[uint8][4]string{8: {"CHAR_MIN", "CHAR_MAX", "0", "UCHAR_MAX"}, 16: {"SHRT_MIN", "SHRT_MAX", "0", "USHRT_MAX"},
		32: {"INT_MIN", "INT_MAX", "0", "UINT_MAX"}, 64: {"LONG_MIN", "LONG_MAX", "0", "ULONG_MAX"}}
	n, ok := names[t.Bits]
	if !ok {
		return clType{}, false
	}
	w := "uint"
	if t.Bits == 64 {
		w = "ulong"
	}
	l := lim[t.Bits]
	switch t.Code {
	case array.Int:
		return clType{s: n[0], c: n[0], w: w, signed: true, min: l[0], max: l[1], size: int(t.Bits / 8)}, true
	case array.UInt:
		return clType{s: n[1], c: n[1], w: w, min: l[2], max: l[3], size: int(t.Bits / 8)}, true
	}
	return clType{}, false
}

// defines is the preprocessor prologue for element type ct with prefix p
// (T for the main type, D and S for a cast's destination and source).
func (ct clType) defines(p string, fp64 bool) string {
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	acc := "double"
	if !fp64 {
		acc = "float"
	}
	ld, st := "(x)", "(x)"
	switch ct.half {
	case 1:
		ld, st = "h2f(x)", "f2h(x)"
	case 2:
		ld, st = "bf2f(x)", "f2bf(x)"
	}
	vw := 16 / ct.size
	var s strings.Builder
	fmt.Fprintf(&s, "#define %sS %s\n#define %sC %s\n#define %sW %s\n#define %sHALF %d\n#define %sISF %d\n#define %sISS %d\n",
		p, ct.s, p, ct.c, p, ct.w, p, ct.half, p, b(ct.float), p, b(ct.signed))
	fmt.Fprintf(&s, "#define %sLD(x) %s\n#define %sST(x) %s\n#define %sVW %d\n#define %sVT %s%d\n#define %sFACC %s\n",
		p, ld, p, st, p, vw, p, ct.s, vw, p, acc)
	if !ct.float {
		fmt.Fprintf(&s, "#define %sMINV %s\n#define %sMAXV %s\n", p, ct.min, p, ct.max)
	}
	return s.String()
}

// clCommon is included by every program: fp64, half conversions, the
// layout struct and its addressing.
//
//go:embed cl/common.cl
var clCommon string

// clElementwise is the per-type program: binary, unary, copy and iota
// kernels, each in a general strided form (_nd) and, where the op
// vectorizes, a dense form over 16-byte vectors (_vec). The _vec forms
// take no strides: an input is contiguous unless its flag says it is one
// element repeated, a Go scalar (fl bit 0 for a, 1 for b) or an Array
// element broadcast with stride 0 (bit 2 for a, 3 for b), read once.
//
//go:embed cl/elementwise.cl
var clElementwise string

// clReduce is the per-type reduction program. Outputs are described by an
// nd_t so (dst at st[0], the input's start at st[1]); the reduced
// elements of one output by an nd_t sr (input strides at st[1]). Pass 1
// (part) gives each output G work-groups that reduce in local memory to
// a partial; pass 2 (fin, or fing: a work-group) joins an output's G
// partials. one does both in one launch, the last work-group of an output
// to finish joining (a global counter per output). When there are many
// outputs, rows reduces one output per work-item.
//
//go:embed cl/reduce.cl
var clReduce string

// clLastGroup is the one-pass ending of reductions, shared by clReduce
// (red_*_one) and fused reductions (fuse_one): GLOBAL_FENCE, JOIN_GROUP,
// LAST_GROUP (the last work-group of an output to finish joins its
// partials and sets its counter back to 0) and red_clear, which zeroes
// the counters. It goes after clCommon and before the kernels using it.
//
//go:embed cl/lastgroup.cl
var clLastGroup string

// clCast converts between two element types (prefix D and S) with
// cast.go's rules. DMAXF is D's largest finite value where a saturating
// cast clamps finite values (a narrower float type), else INFINITY;
// Float16 and BFloat16 go through float, as on the host (a float64 is
// rounded to float32 first).
//
//go:embed cl/cast.cl
var clCast string

// clGemm is the tiled matrix product: a work-group computes a TM×TN tile
// of C from TK-deep slabs of A and B staged in local memory (A stored
// k-major so that both are read along rows), each work-item an RM×RN
// block of registers; slabs are loaded with 4-wide vector loads when the
// operand's rows are contiguous and aligned (VA, VB flags), else
// element by element with any strides. Out-of-range elements load as zero.
//
// A work-item's rows and columns are float4 chunks interleaved with its
// neighbours' (ROW, COL): chunk q of its columns starts at q·CN + tx·4, so
// neighbouring work-items read neighbouring float4s of a slab (no
// local-memory bank conflicts) and write neighbouring columns of C. As
// rows are padded by PADA elements (a multiple of 4, keeping float4
// alignment) to spread the transposing stores over the banks.
//
//go:embed cl/gemm.cl
var clGemmTemplate string

// clGemm is clGemmTemplate with its @ lines expanded (OpenCL C has no
// portable pragma inside a macro, and these loops must unroll).
var clGemm = strings.NewReplacer(
	"@MAC(As, Bs)\n", gemmMAC("As", "Bs"),
	"@MAC(As[h], Bs[h])\n", gemmMAC("As[h]", "Bs[h]"),
	"@LOAD(0)\n", gemmLoad("0"),
	"@LOAD(k0 + TK)\n", gemmLoad("k0 + TK"),
	"@STORE(0)\n", gemmStore("0"),
	"@STORE(h ^ 1)\n", gemmStore("h ^ 1"),
).Replace(clGemmTemplate)

// clGemmSum is split-K's reduction: dst = the sum of S packed partial
// products (gemm_device.go, gemmRun.split); T is the element type.
//
//go:embed cl/gemm_sum.cl
var clGemmSum string

// clGemmMMA is the float64 product on NVIDIA's tensor cores (inline PTX);
// see the file's header.
//
//go:embed cl/gemm_mma.cl
var clGemmMMA string

// gemmMAC multiplies the slab in as, bs into acc.
func gemmMAC(as, bs string) string {
	return strings.NewReplacer("$A", as, "$B", bs).Replace(`#pragma unroll
	for (int p = 0; p < TK; p++) {
		T ra[RM], rb[RN];
#pragma unroll
		for (int m = 0; m < RM; m += 4) { T4 v = LDS4(&$A[p][(m / 4) * CM + ty * 4]); ra[m] = v.x; ra[m + 1] = v.y; ra[m + 2] = v.z; ra[m + 3] = v.w; }
#pragma unroll
		for (int n = 0; n < RN; n += 4) { T4 v = LDS4(&$B[p][(n / 4) * CN + tx * 4]); rb[n] = v.x; rb[n + 1] = v.y; rb[n + 2] = v.z; rb[n + 3] = v.w; }
#pragma unroll
		for (int m = 0; m < RM; m++)
#pragma unroll
			for (int n = 0; n < RN; n++) acc[m][n] = fma(ra[m], rb[n], acc[m][n]);
	}
`)
}

// gemmLoad loads the slab at depth k into the registers ra4, rb4; under
// VAR & 1 an edge tile or the last, partial slab loads element by element
// with bounds checks (zeros outside), the others with whole float4s.
func gemmLoad(k string) string {
	return strings.ReplaceAll(`#if VAR & 1
	if (edge || ($K) + TK > K) {
#pragma unroll
		for (int r = 0; r < NA; r++) {
			int l = tid + r * nt;
			long gi = i0 + l / (TK / 4), p = ($K) + (l % (TK / 4)) * 4;
			__global const T *s = a + (l / (TK / 4)) * sai + p;
			bool in = gi < M;
			ra4[r] = (T4)(in && p < K ? s[0] : (T)0, in && p + 1 < K ? s[1] : (T)0, in && p + 2 < K ? s[2] : (T)0, in && p + 3 < K ? s[3] : (T)0);
		}
#pragma unroll
		for (int r = 0; r < NB; r++) {
			int l = tid + r * nt, j = (l % (TN / 4)) * 4;
			long p = ($K) + l / (TN / 4), gj = j0 + j;
			__global const T *s = b + p * sbk + j;
			bool in = p < K;
			rb4[r] = (T4)(in && gj < N ? s[0] : (T)0, in && gj + 1 < N ? s[1] : (T)0, in && gj + 2 < N ? s[2] : (T)0, in && gj + 3 < N ? s[3] : (T)0);
		}
	} else
#endif
	{
#pragma unroll
	for (int r = 0; r < NA; r++) { int l = tid + r * nt; ra4[r] = *(__global const T4 *)(a + (l / (TK / 4)) * sai + ($K) + (l % (TK / 4)) * 4); }
#pragma unroll
	for (int r = 0; r < NB; r++) { int l = tid + r * nt; rb4[r] = *(__global const T4 *)(b + (($K) + l / (TN / 4)) * sbk + (l % (TN / 4)) * 4); }
	}
`, "$K", k)
}

// gemmStore stores ra4, rb4 into half h of the local slabs (A transposed).
func gemmStore(h string) string {
	return strings.ReplaceAll(`#pragma unroll
	for (int r = 0; r < NA; r++) {
		int l = tid + r * nt, p = (l % (TK / 4)) * 4, i = l / (TK / 4);
		As[$H][p][i] = ra4[r].x; As[$H][p + 1][i] = ra4[r].y; As[$H][p + 2][i] = ra4[r].z; As[$H][p + 3][i] = ra4[r].w;
	}
#pragma unroll
	for (int r = 0; r < NB; r++) { int l = tid + r * nt; vstore4(rb4[r], 0, &Bs[$H][l / (TN / 4)][(l % (TN / 4)) * 4]); }
`, "$H", h)
}
