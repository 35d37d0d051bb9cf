// Kernels of the ops along a dimension (stats.go, scan.go, sort.go,
// softmax.go), included after the type prologue (clType.defines) and
// clCommon. A line is the elements of a along the dimension: so (nd_t)
// walks the lines, giving each operand's start (st[0] dst, st[1] a,
// st[2] a second dst); sr is the line itself (st[1]: a's strides; rank 1
// for an op along a dimension, the whole layout for an *All form).
// Work-group kernels take one group per line (get_local_size a power of
// two) and reduce in local memory; every item reaches every barrier.

#define LD(x) TLD(x)
#define ST(x) TST(x)
#define ACC TFACC

// element j of the line starting at oa
inline long at_sr(const nd_t *s, long oa, long j) {
	if (s->rank == 1) return oa + j * s->st[1][0];
	long r = j, o = oa;
	for (int k = 0; k < s->rank - 1; k++) { long c = r % s->ext[k]; r /= s->ext[k]; o += c * s->st[1][k]; }
	return o + r * s->st[1][s->rank - 1];
}

inline ACC nanmax_(ACC x, ACC y) { return isnan(x) || isnan(y) ? (ACC)NAN : fmax(x, y); }

// tree: lm[0] becomes the sum (mx 0) or NaN-winning maximum (mx 1) of v
// over the group; every item returns it.
inline ACC group_acc(__local ACC *lm, ACC v, int mx) {
	int lid = get_local_id(0), ls = get_local_size(0);
	lm[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int h = ls / 2; h > 0; h /= 2) {
		if (lid < h) lm[lid] = mx ? nanmax_(lm[lid], lm[lid + h]) : lm[lid] + lm[lid + h];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	ACC r = lm[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

inline long group_count(__local long *lm, long v) {
	int lid = get_local_id(0), ls = get_local_size(0);
	lm[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int h = ls / 2; h > 0; h /= 2) {
		if (lid < h) lm[lid] += lm[lid + h];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	long r = lm[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

// stat: op is stats.go's statOp (0 Var, 1 Std, 2 L1, 3 L2, 4 max|x|,
// 5 LogSumExp). Pass 1 sums (or maximizes), pass 2 (Var, Std,
// LogSumExp) sums deviations from its result.
__kernel void stat(__global TS *d, __global const TS *a, nd_t so, nd_t sr, int op, long ddof, __local ACC *lm) {
	long o = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);
	long od, oa, oz; ND(o, so, od, oa, oz);
	long L = sr.n;
	int mx = op == 4 || op == 5;
	ACC s = op == 5 ? (ACC)(-INFINITY) : (ACC)0;
	for (long j = lid; j < L; j += ls) {
		ACC x = (ACC)LD(a[at_sr(&sr, oa, j)]);
		switch (op) {
		case 2: s += fabs(x); break;
		case 3: s += x * x; break;
		case 4: s = nanmax_(s, fabs(x)); break;
		case 5: s = nanmax_(s, x); break;
		default: s += x;
		}
	}
	s = group_acc(lm, s, mx);
	ACC c = op <= 1 ? s / (ACC)L : s;
	long n2 = (op <= 1 || op == 5) && isfinite(c) ? L : 0;
	ACC t = 0;
	for (long j = lid; j < n2; j += ls) {
		ACC x = (ACC)LD(a[at_sr(&sr, oa, j)]);
		t += op == 5 ? exp(x - c) : (x - c) * (x - c);
	}
	t = group_acc(lm, t, 0);
	if (lid == 0) {
		ACC v = s;
		switch (op) {
		case 0: case 1:
			v = isfinite(c) ? t / (ACC)max(L - ddof, 0L) : (ACC)NAN;
			if (op == 1) v = sqrt(v);
			break;
		case 3: v = sqrt(s); break;
		case 5: v = isfinite(s) ? s + log(t) : s; break;
		}
		d[od] = ST((TC)v);
	}
}

// count: the nonzero elements of the line; what 0 CountNonzero (dc),
// 1 Any, 2 All (db).
__kernel void count(__global long *dc, __global uchar *db, __global const TS *a, nd_t so, nd_t sr, int what, __local long *lm) {
	long o = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);
	long od, oa, oz; ND(o, so, od, oa, oz);
	long L = sr.n, c = 0;
	for (long j = lid; j < L; j += ls) {
		TC x = LD(a[at_sr(&sr, oa, j)]);
		c += x != (TC)0;
	}
	c = group_count(lm, c);
	if (lid == 0) {
		if (what == 0) dc[od] = c;
		else db[od] = what == 1 ? c > 0 : c == L;
	}
}

// softmax: exp(x − m) / Σ exp(x − m), m the line's maximum.
__kernel void softmax(__global TS *d, __global const TS *a, nd_t so, long L, long sa, long sd, __local ACC *lm) {
	long o = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);
	long od, oa, oz; ND(o, so, od, oa, oz);
	ACC m = (ACC)(-INFINITY);
	for (long j = lid; j < L; j += ls) m = nanmax_(m, (ACC)LD(a[oa + j * sa]));
	m = group_acc(lm, m, 1);
	ACC s = 0;
	for (long j = lid; j < L; j += ls) s += exp((ACC)LD(a[oa + j * sa]) - m);
	s = group_acc(lm, s, 0);
	ACC r = (ACC)1 / s;
	for (long j = lid; j < L; j += ls) d[od + j * sd] = ST((TC)(exp((ACC)LD(a[oa + j * sa]) - m) * r));
}

// scan: running sums (prod 0) or products of each line, one work-item
// per line; floats accumulate in ACC, integers wrap.
__kernel void scan(__global TS *d, __global const TS *a, nd_t so, long L, long sa, long sd, int prod) {
	for (long o = get_global_id(0); o < so.n; o += get_global_size(0)) {
		long od, oa, oz; ND(o, so, od, oa, oz);
#if TISF
		ACC r = prod ? (ACC)1 : (ACC)0;
		for (long j = 0; j < L; j++) {
			ACC x = (ACC)LD(a[oa + j * sa]);
			r = prod ? r * x : r + x;
			d[od + j * sd] = ST((TC)r);
		}
#else
		ulong r = prod ? 1 : 0;
		for (long j = 0; j < L; j++) {
#if TISS
			ulong x = (ulong)(long)a[oa + j * sa];
#else
			ulong x = (ulong)a[oa + j * sa];
#endif
			r = prod ? r * x : r + x;
			d[od + j * sd] = (TS)r;
		}
#endif
	}
}

// Sorting: each line's keys padded to P (a power of two) in key, their indices after
// the keys (from slot lines·P), a
// bitonic network over (key, index) pairs (sort_step, once per stage),
// then the first K of each line stored. Keys order like the values (−0
// before +0); NaNs get one key above (below, descending) every number,
// pads the largest with index LONG_MAX. raw holds the values, so that an
// in-place Sort reads none of a after the load.
#define TBITS (8 * (int)sizeof(TS))
#if TISF && !THALF && TVW == 4
#define RAW(x) ((ulong)as_uint(x))
#elif TISF && !THALF && TVW == 2
#define RAW(x) as_ulong(x)
#else
#define RAW(x) ((ulong)(x))
#endif
inline ulong okey(TS x) {
	ulong sign = 1UL << (TBITS - 1), mask = sign | (sign - 1), u = RAW(x) & mask;
#if TISF
	return (u & sign) ? (~u & mask) : (u | sign);
#elif TISS
	return u ^ sign;
#else
	return u;
#endif
}

__kernel void sort_load(__global ulong *key, __global TS *raw, __global const TS *a, nd_t so, long L, long sa, long P, int desc) {
	long lines = so.n;
	__global long *ix = (__global long *)(key + lines * P);
	ulong sign = 1UL << (TBITS - 1), mask = sign | (sign - 1);
	for (long g = get_global_id(0); g < lines * P; g += get_global_size(0)) {
		long line = g / P, i = g % P;
		if (i >= L) { key[g] = ULONG_MAX; ix[g] = LONG_MAX; continue; }
		long od, oa, oz; ND(line, so, od, oa, oz);
		TS x = a[oa + i * sa];
		raw[g] = x;
#if TISF
		int nan = isnan(LD(x));
#else
		int nan = 0;
#endif
		ulong k = okey(x);
		key[g] = desc ? (nan ? 0 : ~k & mask) : (nan ? ULONG_MAX - 1 : k);
		ix[g] = i;
	}
}

__kernel void sort_step(__global ulong *key, long lines, long P, long j, long k) {
	__global long *ix = (__global long *)(key + lines * P);
	for (long g = get_global_id(0); g < lines * P; g += get_global_size(0)) {
		long i = g % P, l = i ^ j;
		if (l <= i) continue;
		long p = g, q = g - i + l;
		ulong kp = key[p], kq = key[q];
		long ip = ix[p], iq = ix[q];
		int gt = kp > kq || (kp == kq && ip > iq);
		if (gt == ((i & k) == 0)) { key[p] = kq; key[q] = kp; ix[p] = iq; ix[q] = ip; }
	}
}

// sort_store: fl bit 0 values to d (stride sd, operand 0), bit 1 indices
// + base to di (stride s2, operand 2).
__kernel void sort_store(__global TS *d, __global long *di, __global const ulong *key, __global const TS *raw, nd_t so, long P, long K, long sd, long s2, long base, int fl) {
	long lines = so.n;
	__global const long *ix = (__global const long *)(key + lines * P);
	for (long g = get_global_id(0); g < lines * K; g += get_global_size(0)) {
		long line = g / K, r = g % K;
		long od, oa, o2; ND(line, so, od, oa, o2);
		long i = ix[line * P + r];
		if (fl & 1) d[od + r * sd] = raw[line * P + i];
		if (fl & 2) di[o2 + r * s2] = i + base;
	}
}
