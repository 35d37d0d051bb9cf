// elementwise.cl: embedded by ops/kernels.go (clElementwise); see the comment there.
#define LD(x) TLD(x)
#define ST(x) TST(x)
#define UN_copy(a) (a)

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

UN_ND(copy)
#if !THALF
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
