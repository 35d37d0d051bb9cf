package ops

import (
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
const clCommon = `
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
inline float h2f(ushort h) {
	uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0) { float f = (float)m * 5.9604644775390625e-8f; return s ? -f : f; }
	if (e == 31) return as_float(s | 0x7f800000u | (m << 13));
	return as_float(s | ((e + 112) << 23) | (m << 13));
}
inline ushort f2h(float f) {
	uint x = as_uint(f), s = (x >> 16) & 0x8000, ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u) return (ushort)(s | 0x7e00 | ((ax >> 13) & 0x3ff)); // array.F16's NaN
	if (ax >= 0x477ff000u) return (ushort)(s | 0x7c00);
	if (ax < 0x38800000u) return (ushort)(s | (uint)rint(as_float(ax) * 16777216.0f));
	uint r = ax + 0xfffu + ((ax >> 13) & 1u) - 0x38000000u;
	return (ushort)(s | (r >> 13));
}
inline float bf2f(ushort h) { return as_float((uint)h << 16); }
inline ushort f2bf(float f) {
	uint x = as_uint(f);
	if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40);
	return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
// nd_t: n points over rank dimensions (dimension 0 fastest); operand k
// of the point with coordinates c lives at off[k] + Σ c_i·st[k][i].
typedef struct { long n, rank; long ext[8]; long st[3][8]; long off[3]; } nd_t;
#define ND(i, s, o0, o1, o2) { long r_ = (i); o0 = s.off[0]; o1 = s.off[1]; o2 = s.off[2]; \
	int l_ = (int)s.rank - 1; \
	for (int k_ = 0; k_ < l_; k_++) { long c_ = r_ % s.ext[k_]; r_ /= s.ext[k_]; \
		o0 += c_ * s.st[0][k_]; o1 += c_ * s.st[1][k_]; o2 += c_ * s.st[2][k_]; } \
	o0 += r_ * s.st[0][l_]; o1 += r_ * s.st[1][l_]; o2 += r_ * s.st[2][l_]; }
`

// clElementwise is the per-type program: binary, unary, copy and iota
// kernels, each in a general strided form (_nd) and, where the op
// vectorizes, a dense form over 16-byte vectors (_vec). The _vec forms
// take no strides: an input is contiguous unless its flag says it is one
// element repeated, a Go scalar (fl bit 0 for a, 1 for b) or an Array
// element broadcast with stride 0 (bit 2 for a, 3 for b), read once.
const clElementwise = `
#define LD(x) TLD(x)
#define ST(x) TST(x)
#if TISF
#define OP_add(a, b) ((a) + (b))
#define OP_sub(a, b) ((a) - (b))
#define OP_mul(a, b) ((a) * (b))
#define OP_div(a, b) ((a) / (b))
#define OP_min(a, b) (isnan(a) || isnan(b) ? (a) + (b) : ((a) < (b) ? (a) : (b)))
#define OP_max(a, b) (isnan(a) || isnan(b) ? (a) + (b) : ((a) > (b) ? (a) : (b)))
#define OP_pow(a, b) pow(a, b)
#define UN_abs(a) fabs(a)
#define UN_neg(a) (-(a))
#define UN_sqrt(a) sqrt(a)
#define UN_exp(a) exp(a)
#define UN_log(a) log(a)
#define UN_tanh(a) tanh(a)
#else
#define OP_add(a, b) ((TS)((TW)(a) + (TW)(b)))
#define OP_sub(a, b) ((TS)((TW)(a) - (TW)(b)))
#define OP_mul(a, b) ((TS)((TW)(a) * (TW)(b)))
#if TISS
#define OP_div(a, b) ((b) == 0 ? (TS)0 : (b) == -1 ? (TS)(0 - (TW)(a)) : (TS)((a) / (b)))
#define UN_abs(a) ((a) < 0 ? (TS)(0 - (TW)(a)) : (a))
#define UN_neg(a) ((TS)(0 - (TW)(a)))
#else
#define OP_div(a, b) ((b) == 0 ? (TS)0 : (TS)((a) / (b)))
#define UN_abs(a) (a)
#endif
#define OP_min(a, b) ((a) < (b) ? (a) : (b))
#define OP_max(a, b) ((a) > (b) ? (a) : (b))
#endif
#define UN_copy(a) (a)
#define VOP_add(a, b) ((a) + (b))
#define VOP_sub(a, b) ((a) - (b))
#define VOP_mul(a, b) ((a) * (b))
#define VOP_div(a, b) ((a) / (b))

#define BIN_ND(name) \
__kernel void bin_##name##_nd(__global TS *d, __global const TS *a, __global const TS *b, TS sa, TS sb, int fl, nd_t s) { \
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) { \
		long o0, o1, o2; ND(i, s, o0, o1, o2); \
		TC x = (fl & 1) ? LD(sa) : LD(a[o1]); \
		TC y = (fl & 2) ? LD(sb) : LD(b[o2]); \
		d[o0] = ST(OP_##name(x, y)); \
	} \
}
#define BIN_VEC(name) \
__kernel void bin_##name##_vec(__global TS *d, __global const TS *a, __global const TS *b, TS sa, TS sb, int fl, long n, long o0, long o1, long o2) { \
	__global TVT *dv = (__global TVT *)(d + o0); \
	__global const TVT *av = (__global const TVT *)(a + o1); \
	__global const TVT *bv = (__global const TVT *)(b + o2); \
	long nv = n / TVW, g = get_global_id(0), gs = get_global_size(0); \
	TS ea = (fl & 1) ? sa : (fl & 4) ? a[o1] : 0, eb = (fl & 2) ? sb : (fl & 8) ? b[o2] : 0; \
	TVT va = (TVT)(ea), vb = (TVT)(eb); \
	for (long i = g; i < nv; i += gs) { \
		TVT x = (fl & 5) ? va : av[i]; \
		TVT y = (fl & 10) ? vb : bv[i]; \
		dv[i] = VOP_##name(x, y); \
	} \
	long t = nv * TVW + g; \
	if (t < n) { \
		TS x = (fl & 5) ? ea : a[o1 + t]; \
		TS y = (fl & 10) ? eb : b[o2 + t]; \
		d[o0 + t] = OP_##name(x, y); \
	} \
}
#define UN_ND(name) \
__kernel void un_##name##_nd(__global TS *d, __global const TS *a, TS sa, int fl, nd_t s) { \
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) { \
		long o0, o1, o2; ND(i, s, o0, o1, o2); \
		TC x = (fl & 1) ? LD(sa) : LD(a[o1]); \
		d[o0] = ST(UN_##name(x)); \
	} \
}

#define CMP_eq(a, b) ((a) == (b))
#define CMP_ne(a, b) ((a) != (b))
#define CMP_lt(a, b) ((a) < (b))
#define CMP_le(a, b) ((a) <= (b))
#define CMP_gt(a, b) ((a) > (b))
#define CMP_ge(a, b) ((a) >= (b))
#define CMP_ND(name) \
__kernel void cmp_##name##_nd(__global uchar *d, __global const TS *a, __global const TS *b, TS sb, int fl, nd_t s) { \
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) { \
		long o0, o1, o2; ND(i, s, o0, o1, o2); \
		TC x = LD(a[o1]); \
		TC y = (fl & 2) ? LD(sb) : LD(b[o2]); \
		d[o0] = CMP_##name(x, y) ? 1 : 0; \
	} \
}
CMP_ND(eq) CMP_ND(ne) CMP_ND(lt) CMP_ND(le) CMP_ND(gt) CMP_ND(ge)

BIN_ND(add) BIN_ND(sub) BIN_ND(mul) BIN_ND(div) BIN_ND(min) BIN_ND(max)
UN_ND(abs) UN_ND(copy)
#if TISF
BIN_ND(pow) UN_ND(neg) UN_ND(sqrt) UN_ND(exp) UN_ND(log) UN_ND(tanh)
#elif TISS
UN_ND(neg)
#endif
#if !THALF
BIN_VEC(add) BIN_VEC(sub) BIN_VEC(mul)
#if TISF
BIN_VEC(div)
#endif
__kernel void un_copy_vec(__global TS *d, __global const TS *a, TS sa, int fl, long n, long o0, long o1) {
	__global TVT *dv = (__global TVT *)(d + o0);
	__global const TVT *av = (__global const TVT *)(a + o1);
	long nv = n / TVW, g = get_global_id(0), gs = get_global_size(0);
	TS ea = (fl & 1) ? sa : (fl & 4) ? a[o1] : 0;
	TVT va = (TVT)(ea);
	if (fl & 5) { for (long i = g; i < nv; i += gs) dv[i] = va; }
	else { for (long i = g; i < nv; i += gs) dv[i] = av[i]; }
	long t = nv * TVW + g;
	if (t < n) d[o0 + t] = (fl & 5) ? ea : a[o1 + t];
}
#endif

// where: d = c ? a : b, bit for bit; four operands, so its own layout.
typedef struct { long n, rank; long ext[8]; long st[4][8]; long off[4]; } nd4_t;
__kernel void where_nd(__global TS *d, __global const uchar *c, __global const TS *a, __global const TS *b, nd4_t s) {
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) {
		long r = i, o0 = s.off[0], o1 = s.off[1], o2 = s.off[2], o3 = s.off[3];
		for (int k = 0; k < (int)s.rank; k++) {
			long q = r % s.ext[k]; r /= s.ext[k];
			o0 += q * s.st[0][k]; o1 += q * s.st[1][k]; o2 += q * s.st[2][k]; o3 += q * s.st[3][k];
		}
		d[o0] = c[o1] ? a[o2] : b[o3];
	}
}

// iota: the coordinate along one dimension; st[1][k] is 1 for that
// dimension (0 elsewhere) and off[1] its Min.
__kernel void iota_nd(__global TS *d, nd_t s) {
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) {
		long o0, o1, o2; ND(i, s, o0, o1, o2);
#if THALF
		d[o0] = ST((float)o1);
#else
		d[o0] = (TS)o1;
#endif
	}
}
`

// clReduce is the per-type reduction program. Outputs are described by an
// nd_t so (dst at st[0], the input's start at st[1]); the reduced
// elements of one output by an nd_t sr (input strides at st[1]). Pass 1
// (part) gives each output G work-groups that reduce in local memory to
// a partial; pass 2 (fin) joins an output's G partials in order. When
// there are many outputs, rows reduces one output per work-item.
const clReduce = `
#define LD(x) TLD(x)
#define ST(x) TST(x)
#if TISF
#define SUMACC TFACC
#define SUMFIN(a, L) ST((TC)(a))
#define MEANFIN(a, L) ST((TC)((a) / (TFACC)(L)))
#define MININIT INFINITY
#define MAXINIT (-INFINITY)
#define BETTERMIN(x, acc) (isnan(acc) ? 0 : isnan(x) ? 1 : (x) < (acc))
#define BETTERMAX(x, acc) (isnan(acc) ? 0 : isnan(x) ? 1 : (x) > (acc))
#else
#define SUMACC ulong
#define SUMFIN(a, L) ((TS)(a))
#if TISS
#define MEANFIN(a, L) ((TS)trunc((double)(long)(a) / (double)(L)))
#else
#define MEANFIN(a, L) ((TS)trunc((double)(a) / (double)(L)))
#endif
#define MININIT TMAXV
#define MAXINIT TMINV
#define BETTERMIN(x, acc) ((x) < (acc))
#define BETTERMAX(x, acc) ((x) > (acc))
#endif
#if TISS && !TISF
#define WIDEN(x) ((ulong)(long)(x))
#else
#define WIDEN(x) ((SUMACC)(x))
#endif

#define sum_ACC SUMACC
#define sum_INIT ((SUMACC)0)
#define sum_ADD(acc, x) ((acc) + WIDEN(x))
#define sum_JOIN(p, q) ((p) + (q))
#define sum_FIN(a, L) SUMFIN(a, L)
#define mean_ACC SUMACC
#define mean_INIT ((SUMACC)0)
#define mean_ADD(acc, x) ((acc) + WIDEN(x))
#define mean_JOIN(p, q) ((p) + (q))
#define mean_FIN(a, L) MEANFIN(a, L)
#define prod_ACC SUMACC
#define prod_INIT ((SUMACC)1)
#define prod_ADD(acc, x) ((acc) * WIDEN(x))
#define prod_JOIN(p, q) ((p) * (q))
#define prod_FIN(a, L) SUMFIN(a, L)
#define min_ACC TC
#define min_INIT ((TC)MININIT)
#define min_ADD(acc, x) (BETTERMIN(x, acc) ? (x) : (acc))
#define min_JOIN(p, q) min_ADD(p, q)
#define min_FIN(a, L) ST(a)
#define max_ACC TC
#define max_INIT ((TC)MAXINIT)
#define max_ADD(acc, x) (BETTERMAX(x, acc) ? (x) : (acc))
#define max_JOIN(p, q) max_ADD(p, q)
#define max_FIN(a, L) ST(a)

// dense inputs of 4- and 8-byte types are read as vectors
#if !THALF && TVW == 4
#define HASVEC 1
#define VACC(ADD, acc, v) acc = ADD(ADD(ADD(ADD(acc, (TC)v.s0), (TC)v.s1), (TC)v.s2), (TC)v.s3)
#elif !THALF && TVW == 2
#define HASVEC 1
#define VACC(ADD, acc, v) acc = ADD(ADD(acc, (TC)v.s0), (TC)v.s1)
#else
#define HASVEC 0
#define VACC(ADD, acc, v)
#endif

// reduced element j of the output whose input starts at base
#define RED_AT(j, sr, base, oa) { if (sr.rank == 1) oa = (base) + (j) * sr.st[1][0]; \
	else { long z0, z2; ND(j, sr, z0, oa, z2); oa += (base); } }

#define RED(name) \
__kernel void red_##name##_part(__global const TS *a, nd_t so, nd_t sr, long G, __global name##_ACC *part, __local name##_ACC *lm) { \
	long grp = get_group_id(0), o = grp / G, g = grp % G; \
	long ls = get_local_size(0), lid = get_local_id(0); \
	long od, oa, oz; ND(o, so, od, oa, oz); \
	name##_ACC acc = name##_INIT; \
	if (HASVEC && sr.rank == 1 && sr.st[1][0] == 1 && oa % TVW == 0) { \
		__global const TVT *av = (__global const TVT *)(a + oa); \
		long nv = sr.n / TVW; \
		for (long j = g * ls + lid; j < nv; j += G * ls) { TVT v = av[j]; VACC(name##_ADD, acc, v); } \
		for (long j = nv * TVW + g * ls + lid; j < sr.n; j += G * ls) { TC x = LD(a[oa + j]); acc = name##_ADD(acc, x); } \
	} else if (sr.rank == 1 && sr.st[1][0] == 1) { \
		for (long j = g * ls + lid; j < sr.n; j += G * ls) { TC x = LD(a[oa + j]); acc = name##_ADD(acc, x); } \
	} else { \
		for (long j = g * ls + lid; j < sr.n; j += G * ls) { long q; RED_AT(j, sr, oa, q); TC x = LD(a[q]); acc = name##_ADD(acc, x); } \
	} \
	lm[lid] = acc; \
	barrier(CLK_LOCAL_MEM_FENCE); \
	for (long h = ls / 2; h > 0; h /= 2) { \
		if (lid < h) lm[lid] = name##_JOIN(lm[lid], lm[lid + h]); \
		barrier(CLK_LOCAL_MEM_FENCE); \
	} \
	if (lid == 0) part[o * G + g] = lm[0]; \
} \
__kernel void red_##name##_fin(__global TS *d, nd_t so, __global const name##_ACC *part, long G, long L) { \
	for (long o = get_global_id(0); o < so.n; o += get_global_size(0)) { \
		long od, oa, oz; ND(o, so, od, oa, oz); \
		name##_ACC acc = part[o * G]; \
		for (long g = 1; g < G; g++) acc = name##_JOIN(acc, part[o * G + g]); \
		d[od] = name##_FIN(acc, L); \
	} \
} \
__kernel void red_##name##_rows(__global TS *d, __global const TS *a, nd_t so, nd_t sr) { \
	for (long o = get_global_id(0); o < so.n; o += get_global_size(0)) { \
		long od, oa, oz; ND(o, so, od, oa, oz); \
		name##_ACC acc = name##_INIT; \
		for (long j = 0; j < sr.n; j++) { long q; RED_AT(j, sr, oa, q); TC x = LD(a[q]); acc = name##_ADD(acc, x); } \
		d[od] = name##_FIN(acc, sr.n); \
	} \
}
RED(sum) RED(mean) RED(prod) RED(min) RED(max)

// ArgMin/ArgMax: (value, index) pairs; ties and equal NaNs keep the lower
// index, so the result is the first extreme in index order. dst is long;
// base is the coordinate of index 0 (the dimension's Min).
#define ARG(name, BETTER) \
inline void name##_join(TC *v, long *i, TC w, long j) { \
	if (BETTER(w, *v) || (!BETTER(*v, w) && j < *i)) { *v = w; *i = j; } \
} \
__kernel void red_##name##_part(__global const TS *a, nd_t so, nd_t sr, long G, __global TC *pv, __global long *pi, __local TC *lv, __local long *li) { \
	long grp = get_group_id(0), o = grp / G, g = grp % G; \
	long ls = get_local_size(0), lid = get_local_id(0); \
	long od, oa, oz; ND(o, so, od, oa, oz); \
	TC bv = 0; long bi = LONG_MAX; \
	for (long j = g * ls + lid; j < sr.n; j += G * ls) { long q; RED_AT(j, sr, oa, q); TC x = LD(a[q]); \
		if (bi == LONG_MAX || BETTER(x, bv)) { bv = x; bi = j; } } \
	lv[lid] = bv; li[lid] = bi; \
	barrier(CLK_LOCAL_MEM_FENCE); \
	for (long h = ls / 2; h > 0; h /= 2) { \
		if (lid < h && li[lid + h] != LONG_MAX) { \
			TC v = lv[lid]; long i = li[lid]; \
			if (i == LONG_MAX) { v = lv[lid + h]; i = li[lid + h]; } else name##_join(&v, &i, lv[lid + h], li[lid + h]); \
			lv[lid] = v; li[lid] = i; } \
		barrier(CLK_LOCAL_MEM_FENCE); \
	} \
	if (lid == 0) { pv[o * G + g] = lv[0]; pi[o * G + g] = li[0]; } \
} \
__kernel void red_##name##_fin(__global long *d, nd_t so, __global const TC *pv, __global const long *pi, long G, long base) { \
	for (long o = get_global_id(0); o < so.n; o += get_global_size(0)) { \
		long od, oa, oz; ND(o, so, od, oa, oz); \
		TC v = pv[o * G]; long i = pi[o * G]; \
		for (long g = 1; g < G; g++) { if (pi[o * G + g] == LONG_MAX) continue; \
			if (i == LONG_MAX) { v = pv[o * G + g]; i = pi[o * G + g]; } else name##_join(&v, &i, pv[o * G + g], pi[o * G + g]); } \
		d[od] = i + base; \
	} \
} \
__kernel void red_##name##_rows(__global long *d, __global const TS *a, nd_t so, nd_t sr, long base) { \
	for (long o = get_global_id(0); o < so.n; o += get_global_size(0)) { \
		long od, oa, oz; ND(o, so, od, oa, oz); \
		TC bv = 0; long bi = -1; \
		for (long j = 0; j < sr.n; j++) { long q; RED_AT(j, sr, oa, q); TC x = LD(a[q]); \
			if (bi < 0 || BETTER(x, bv)) { bv = x; bi = j; } } \
		d[od] = bi + base; \
	} \
}
ARG(argmin, BETTERMIN) ARG(argmax, BETTERMAX)
`

// clCast converts between two element types (prefix D and S) with
// cast.go's rules. DMAXF is D's largest finite value where a saturating
// cast clamps finite values (a narrower float type), else INFINITY;
// Float16 and BFloat16 go through float, as on the host (a float64 is
// rounded to float32 first).
const clCast = `
#if SISF && !DISF
// float → integer wrapping: truncate, then keep the low bits of the value
// modulo 2^64 (cast.go); fmod is exact. ±Inf → 0; the caller handles NaN.
inline DS wrapf(SC x) {
	if (isinf(x)) return (DS)0;
	if (fabs(x) < (SC)0x1p63f) return (DS)(long)x;
	SC m = fmod(x, (SC)0x1p64f);
	return (DS)(ulong)(m < 0 ? m + (SC)0x1p64f : m);
}
#endif
__kernel void cast_nd(__global DS *d, __global const SS *a, int sat, nd_t s) {
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) {
		long o0, o1, o2; ND(i, s, o0, o1, o2);
		SC x = SLD(a[o1]);
#if DISF && SISF
		if (sat && !isinf(x) && !isnan(x)) x = clamp(x, (SC)-DMAXF, (SC)DMAXF);
		d[o0] = DST((DC)x);
#elif DISF
		// an integer rounds to D's compute type first, then clamps (cast.go)
		DC y = (DC)x;
		if (sat) y = clamp(y, (DC)-DMAXF, (DC)DMAXF);
		d[o0] = DST(y);
#elif SISF
		// NaN → 0 as the host does; NVIDIA's convert_*_sat gives INT_MIN.
		d[o0] = isnan(x) ? (DS)0 : sat ? CONVSAT(x) : wrapf(x);
#else
		d[o0] = sat ? CONVSAT(x) : (DS)x;
#endif
	}
}
`

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
const clGemmTemplate = `
#define T TS
#define T4 TVT4
#define CM (4 * (TM / RM))
#define CN (4 * (TN / RN))
#define ROW(m) (((m) / 4) * CM + ty * 4 + (m) % 4)
#define COL(n) (((n) / 4) * CN + tx * 4 + (n) % 4)

__kernel __attribute__((reqd_work_group_size(TN / RN, TM / RM, 1)))
void gemm(__global T *c, __global const T *a, __global const T *b,
	long M, long N, long K,
	long oa, long sai, long sak, long sab,
	long ob, long sbk, long sbj, long sbb,
	long oc, long sci, long scj, long scb, int fl) {
	__local T As[TK][TM + PADA];
	__local T Bs[TK][TN];
	const int tx = get_local_id(0), ty = get_local_id(1);
	const int tid = ty * (TN / RN) + tx, nt = (TN / RN) * (TM / RM);
	const long i0 = (long)get_group_id(1) * TM, j0 = (long)get_group_id(0) * TN, z = get_global_id(2);
	a += oa + z * sab; b += ob + z * sbb; c += oc + z * scb;
	T acc[RM][RN];
#pragma unroll
	for (int m = 0; m < RM; m++)
#pragma unroll
		for (int n = 0; n < RN; n++) acc[m][n] = 0;
	// Each slab loads in chunks of 4 elements, one loop per operand with
	// no branch around it: PoCL 5 aborts on a barrier followed by a branch
	// that skips a loop. The chunk order follows the operand's layout, so
	// neighbouring work-items read neighbouring memory: along k when A's
	// rows are contiguous (amode 0, float4 loads where aligned and in
	// range), along i when its columns are (amode 1); B likewise along j
	// (bmode 0) or k (bmode 1).
	const bool full = i0 + TM <= M && j0 + TN <= N;
	const int amode = sai == 1 && sak != 1, bmode = sbk == 1 && sbj != 1;
	for (long k0 = 0; k0 < K; k0 += TK) {
		const bool kfull = full && k0 + TK <= K;
		for (int l = tid; l < TM * TK / 4; l += nt) {
			const int i = amode ? l % TM : l / (TK / 4), p = 4 * (amode ? l / TM : l % (TK / 4));
			const long gi = i0 + i, gp = k0 + p;
			T4 v;
			if (kfull && (fl & 1)) {
				v = *(__global const T4 *)(a + gi * sai + gp);
			} else {
				v.x = gi < M && gp < K ? a[gi * sai + gp * sak] : (T)0;
				v.y = gi < M && gp + 1 < K ? a[gi * sai + (gp + 1) * sak] : (T)0;
				v.z = gi < M && gp + 2 < K ? a[gi * sai + (gp + 2) * sak] : (T)0;
				v.w = gi < M && gp + 3 < K ? a[gi * sai + (gp + 3) * sak] : (T)0;
			}
			As[p][i] = v.x; As[p + 1][i] = v.y; As[p + 2][i] = v.z; As[p + 3][i] = v.w;
		}
		for (int l = tid; l < TN * TK / 4; l += nt) {
			const int p = bmode ? l % TK : l / (TN / 4), j = 4 * (bmode ? l / TK : l % (TN / 4));
			const long gj = j0 + j, gp = k0 + p;
			T4 v;
			if (kfull && (fl & 2)) {
				v = *(__global const T4 *)(b + gp * sbk + gj);
			} else {
				v.x = gp < K && gj < N ? b[gp * sbk + gj * sbj] : (T)0;
				v.y = gp < K && gj + 1 < N ? b[gp * sbk + (gj + 1) * sbj] : (T)0;
				v.z = gp < K && gj + 2 < N ? b[gp * sbk + (gj + 2) * sbj] : (T)0;
				v.w = gp < K && gj + 3 < N ? b[gp * sbk + (gj + 3) * sbj] : (T)0;
			}
			vstore4(v, 0, &Bs[p][j]);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
@MAC(As, Bs)
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	// fully unrolled (no break), so that acc stays in registers
#pragma unroll
	for (int m = 0; m < RM; m++) {
		long i = i0 + ROW(m);
#pragma unroll
		for (int n = 0; n < RN; n++) {
			long j = j0 + COL(n);
			if (i < M && j < N) c[i * sci + j * scj] = acc[m][n];
		}
	}
}

// gemm_full: every tile full (M, N, K multiples of TM, TN, TK), A and B
// rows contiguous and 16-byte aligned. Local memory holds two slabs: the
// next slab, loaded into registers while the current one is multiplied,
// is stored into the other half, so global latency overlaps the
// arithmetic and one barrier per slab suffices.
#define NA (TM * TK / 4 / ((TN / RN) * (TM / RM)))
#define NB (TN * TK / 4 / ((TN / RN) * (TM / RM)))
__kernel __attribute__((reqd_work_group_size(TN / RN, TM / RM, 1)))
void gemm_full(__global T *c, __global const T *a, __global const T *b,
	long M, long N, long K,
	long oa, long sai, long sak, long sab,
	long ob, long sbk, long sbj, long sbb,
	long oc, long sci, long scj, long scb, int fl) {
	__local T As[2][TK][TM + PADA];
	__local T Bs[2][TK][TN];
	const int tx = get_local_id(0), ty = get_local_id(1);
	const int tid = ty * (TN / RN) + tx, nt = (TN / RN) * (TM / RM);
	const long i0 = (long)get_group_id(1) * TM, j0 = (long)get_group_id(0) * TN, z = get_global_id(2);
	a += oa + z * sab + i0 * sai; b += ob + z * sbb + j0; c += oc + z * scb;
	T acc[RM][RN];
#pragma unroll
	for (int m = 0; m < RM; m++)
#pragma unroll
		for (int n = 0; n < RN; n++) acc[m][n] = 0;
	T4 ra4[NA], rb4[NB];
@LOAD(0)
@STORE(0)
	barrier(CLK_LOCAL_MEM_FENCE);
	int h = 0;
	for (long k0 = 0; k0 < K; k0 += TK) {
		const bool more = k0 + TK < K;
		if (more) {
@LOAD(k0 + TK)
		}
@MAC(As[h], Bs[h])
		if (more) {
@STORE(h ^ 1)
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		h ^= 1;
	}
#pragma unroll
	for (int m = 0; m < RM; m++) {
		long i = i0 + ROW(m);
#pragma unroll
		for (int n = 0; n < RN; n++) c[i * sci + (j0 + COL(n)) * scj] = acc[m][n];
	}
}
`

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

// gemmMAC multiplies the slab in as, bs into acc.
func gemmMAC(as, bs string) string {
	return strings.NewReplacer("$A", as, "$B", bs).Replace(`#pragma unroll
	for (int p = 0; p < TK; p++) {
		T ra[RM], rb[RN];
#pragma unroll
		for (int m = 0; m < RM; m += 4) { T4 v = vload4(0, &$A[p][(m / 4) * CM + ty * 4]); ra[m] = v.x; ra[m + 1] = v.y; ra[m + 2] = v.z; ra[m + 3] = v.w; }
#pragma unroll
		for (int n = 0; n < RN; n += 4) { T4 v = vload4(0, &$B[p][(n / 4) * CN + tx * 4]); rb[n] = v.x; rb[n + 1] = v.y; rb[n + 2] = v.z; rb[n + 3] = v.w; }
#pragma unroll
		for (int m = 0; m < RM; m++)
#pragma unroll
			for (int n = 0; n < RN; n++) acc[m][n] = fma(ra[m], rb[n], acc[m][n]);
	}
`)
}

// gemmLoad loads the slab at depth k into the registers ra4, rb4.
func gemmLoad(k string) string {
	return strings.ReplaceAll(`#pragma unroll
	for (int r = 0; r < NA; r++) { int l = tid + r * nt; ra4[r] = *(__global const T4 *)(a + (l / (TK / 4)) * sai + ($K) + (l % (TK / 4)) * 4); }
#pragma unroll
	for (int r = 0; r < NB; r++) { int l = tid + r * nt; rb4[r] = *(__global const T4 *)(b + (($K) + l / (TN / 4)) * sbk + (l % (TN / 4)) * 4); }
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
