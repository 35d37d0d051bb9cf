// reduce.cl: embedded by ops/kernels.go (clReduce); see the comment there.
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

// the dense loop's steps of RED_UNROLL (a define from ops: 1, 2, 4 or 8)
// vectors, all loaded before any is added, so that a work-item has that
// many loads in flight; the adds keep the one-vector loop's order, so the
// result does not depend on the unroll
#ifndef RED_UNROLL
#define RED_UNROLL 1
#endif
#if HASVEC && RED_UNROLL >= 8
#define VSTEPS(ADD, acc, av, j, st, nv) for (; j + 7 * st < nv; j += 8 * st) { \
	TVT v0 = av[j], v1 = av[j + st], v2 = av[j + 2 * st], v3 = av[j + 3 * st]; \
	TVT v4 = av[j + 4 * st], v5 = av[j + 5 * st], v6 = av[j + 6 * st], v7 = av[j + 7 * st]; \
	VACC(ADD, acc, v0); VACC(ADD, acc, v1); VACC(ADD, acc, v2); VACC(ADD, acc, v3); \
	VACC(ADD, acc, v4); VACC(ADD, acc, v5); VACC(ADD, acc, v6); VACC(ADD, acc, v7); }
#elif HASVEC && RED_UNROLL >= 4
#define VSTEPS(ADD, acc, av, j, st, nv) for (; j + 3 * st < nv; j += 4 * st) { \
	TVT v0 = av[j], v1 = av[j + st], v2 = av[j + 2 * st], v3 = av[j + 3 * st]; \
	VACC(ADD, acc, v0); VACC(ADD, acc, v1); VACC(ADD, acc, v2); VACC(ADD, acc, v3); }
#elif HASVEC && RED_UNROLL >= 2
#define VSTEPS(ADD, acc, av, j, st, nv) for (; j + st < nv; j += 2 * st) { \
	TVT v0 = av[j], v1 = av[j + st]; \
	VACC(ADD, acc, v0); VACC(ADD, acc, v1); }
#else
#define VSTEPS(ADD, acc, av, j, st, nv)
#endif

// reduced element j of the output whose input starts at base
#define RED_AT(j, sr, base, oa) { if (sr.rank == 1) oa = (base) + (j) * sr.st[1][0]; \
	else { long z0, z2; ND(j, sr, z0, oa, z2); oa += (base); } }

// work-group g (of G) of output o reduces its share of the output's
// elements into lm[0]; od is the output's offset in d (RED passes the
// op's macros pasted, as for JOIN_GROUP)
#define RED_GROUP(ACC, INIT, ADD, JOIN) \
	long grp = get_group_id(0), o = grp / G, g = grp % G; \
	long ls = get_local_size(0), lid = get_local_id(0); \
	long od, oa, oz; ND(o, so, od, oa, oz); \
	ACC acc = INIT; \
	if (HASVEC && sr.rank == 1 && sr.st[1][0] == 1 && oa % TVW == 0) { \
		__global const TVT *av = (__global const TVT *)(a + oa); \
		long nv = sr.n / TVW, st = G * ls, j = g * ls + lid; \
		VSTEPS(ADD, acc, av, j, st, nv) \
		for (; j < nv; j += st) { TVT v = av[j]; VACC(ADD, acc, v); } \
		for (long k = nv * TVW + g * ls + lid; k < sr.n; k += st) { TC x = LD(a[oa + k]); acc = ADD(acc, x); } \
	} else if (sr.rank == 1 && sr.st[1][0] == 1) { \
		for (long j = g * ls + lid; j < sr.n; j += G * ls) { TC x = LD(a[oa + j]); acc = ADD(acc, x); } \
	} else { \
		for (long j = g * ls + lid; j < sr.n; j += G * ls) { long q; RED_AT(j, sr, oa, q); TC x = LD(a[q]); acc = ADD(acc, x); } \
	} \
	JOIN_GROUP(JOIN, lm, lid, ls, acc);

// part: each work-group's partial to part; fin (one work-item per output,
// in order) or fing (a work-group per output) joins them in a second
// launch. one does both in one launch: the last of an output's G
// work-groups to finish (its counter cnt[o] reaches G) joins the
// output's partials, as fing does, and sets the counter back to 0 for the
// next launch, so ops zeroes the counters only when it allocates them.
#define RED(name) \
__kernel void red_##name##_part(__global const TS *a, nd_t so, nd_t sr, long G, __global name##_ACC *part, __local name##_ACC *lm) { \
	RED_GROUP(name##_ACC, name##_INIT, name##_ADD, name##_JOIN) \
	if (lid == 0) part[o * G + g] = lm[0]; \
} \
__kernel void red_##name##_one(__global TS *d, __global const TS *a, nd_t so, nd_t sr, long G, long L, \
		__global name##_ACC *part, __global int *cnt, __local name##_ACC *lm) { \
	__local int last; \
	RED_GROUP(name##_ACC, name##_INIT, name##_ADD, name##_JOIN) \
	LAST_GROUP(name##_ACC, name##_INIT, name##_JOIN, part, cnt, o, g, G, lm, lid, ls, acc, last, d[od] = name##_FIN(lm[0], L)) \
} \
__kernel void red_##name##_fin(__global TS *d, nd_t so, __global const name##_ACC *part, long G, long L) { \
	for (long o = get_global_id(0); o < so.n; o += get_global_size(0)) { \
		long od, oa, oz; ND(o, so, od, oa, oz); \
		name##_ACC acc = part[o * G]; \
		for (long g = 1; g < G; g++) acc = name##_JOIN(acc, part[o * G + g]); \
		d[od] = name##_FIN(acc, L); \
	} \
} \
__kernel void red_##name##_fing(__global TS *d, nd_t so, __global const name##_ACC *part, long G, long L, __local name##_ACC *lm) { \
	long o = get_group_id(0), ls = get_local_size(0), lid = get_local_id(0); \
	long od, oa, oz; ND(o, so, od, oa, oz); \
	name##_ACC acc = name##_INIT; \
	for (long g = lid; g < G; g += ls) acc = name##_JOIN(acc, part[o * G + g]); \
	JOIN_GROUP(name##_JOIN, lm, lid, ls, acc); \
	if (lid == 0) d[od] = name##_FIN(lm[0], L); \
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
