// Philox-4x32-10 fills (ops.RandUniform, ops.RandNormal); random.go's
// header comment defines the stream, and this file computes the same bits.
// Prepended by Go: the element type's defines (TS, THALF, ...), clCommon
// (nd_t, ND) and randCLDefines: RK (words per element), RKIND (0: an
// integer of at most 32 bits, 1: a 64-bit integer, 2: float, 3: double,
// 4: Float16 or BFloat16), RNORMAL and, for normals, the constants of
// rand_log and rand_sincos (float64, RK 2) or rand_log32, rand_sqrt32
// and rand_sincos32 (float32, RK 1) as hexadecimal literals.

// Products must round before they are added, as in the Go code.
#pragma OPENCL FP_CONTRACT OFF

#define EPB (4 / RK)

inline uint4 philox4x32(ulong b, uint k0, uint k1) {
	uint c0 = (uint)b, c1 = (uint)(b >> 32), c2 = 0, c3 = 0;
	for (int r = 0; r < 10; r++) {
		if (r > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		uint h0 = mul_hi(0xD2511F53u, c0), l0 = 0xD2511F53u * c0;
		uint h1 = mul_hi(0xCD9E8D57u, c2), l1 = 0xCD9E8D57u * c2;
		c0 = h1 ^ c1 ^ k0;
		c1 = l1;
		c2 = h0 ^ c3 ^ k1;
		c3 = l0;
	}
	return (uint4)(c0, c1, c2, c3);
}

#if RNORMAL && RK == 2
#define RZ double
#define RZ2 double2
inline double rand_log(double x) {
	const double logc[10] = RLOGC;
	ulong b = as_ulong(x);
	long e = (long)((b >> 52) & 0x7ff) - 1023;
	double m = as_double((b & 0xfffffffffffffUL) | (1023UL << 52));
	if (m > RSQRT2) {
		m *= 0.5;
		e++;
	}
	double f = m - 1.0;
	double s = f / (2.0 + f);
	double z = s * s;
	double p = logc[9];
	for (int k = 8; k >= 0; k--) p = logc[k] + z * p;
	double s2 = 2.0 * s;
	double fe = (double)e;
	return fe * RLN2HI + ((s2 * (z * p) + s2) + fe * RLN2LO);
}

inline double2 rand_sincos(ulong a) { // (sin, cos) of the turn a/2^64
	const double sinc[8] = RSINC;
	const double cosc[9] = RCOSC;
	ulong t = a + (1UL << 61);
	ulong q = t >> 62;
	long r = ((long)(t & ((1UL << 62) - 1)) - (1L << 61)) >> 9;
	double th = (double)r * RANGLE;
	double z = th * th;
	double ps = sinc[7];
	for (int k = 6; k >= 0; k--) ps = sinc[k] + z * ps;
	double pc = cosc[8];
	for (int k = 7; k >= 0; k--) pc = cosc[k] + z * pc;
	double s = th + th * (z * ps);
	double c = 1.0 + z * pc;
	if (q == 1) return (double2)(c, -s);
	if (q == 2) return (double2)(-s, -c);
	if (q == 3) return (double2)(-c, s);
	return (double2)(s, c);
}

// box_muller is a pair's two normals: (r·cos, r·sin), lanes 2p and 2p+1.
inline double2 box_muller(ulong x, ulong a) {
	double u1 = (double)((x >> 11) + 1) * 0x1p-53;
	double r = sqrt(-2.0 * rand_log(u1));
	double2 sc = rand_sincos(a);
	return (double2)(r * sc.y, r * sc.x);
}

// rand_pair is the normals of lanes 2p and 2p+1 of a block's words w:
// one log, square root and sine-cosine for both.
inline double2 rand_pair(uint w[4], int p) {
	return box_muller(((ulong)w[1] << 32) | w[0], ((ulong)w[3] << 32) | w[2]);
}
#elif RNORMAL
// Float32 normals in float32 operations: random_normal32.go's steps, its
// fma32 as fma (correctly rounded, as IEEE 754 and OpenCL define it).
#define RZ float
#define RZ2 float2
inline float rand_log32(uint u) { // ln((u+1)·2^-32)
	const float logc[9] = RLOGC32;
	ulong v = (ulong)u + 1;
	uint b = as_uint((float)v);
	int k = (int)(b >> 23) - 127;
	if ((b & 0x7fffff) >= RSQRT2M)
		k++;
	float f = (float)((long)v - (1L << k)) * as_float((uint)(127 - k) << 23);
	float p = logc[8];
	for (int i = 7; i >= 0; i--) p = fma(p, f, logc[i]);
	float l = fma(f * f, p, f);
	float fk = (float)(k - 32);
	return fma(fk, RLN2HI32, fma(fk, RLN2LO32, l));
}

inline float rand_sqrt32(float x) {
	float y = as_float(RMAGIC - (as_uint(x) >> 1));
	float h = 0.5f * x;
	for (int i = 0; i < 3; i++) y = fma(y, fma(-(h * y), y, 0.5f), y);
	return x * y;
}

inline float2 rand_sincos32(uint a) { // (sin, cos) of the turn a/2^32
	const float sinc[4] = RSINC32;
	const float cosc[5] = RCOSC32;
	uint t = a + (1u << 29); // the quarter turn q is t >> 30
	float th = (float)((int)(a << 2) >> 2) * RANGLE32; // the turn less q quarters
	float z = th * th;
	float ps = sinc[3];
	for (int k = 2; k >= 0; k--) ps = fma(ps, z, sinc[k]);
	float pc = cosc[4];
	for (int k = 3; k >= 0; k--) pc = fma(pc, z, cosc[k]);
	float s = fma(th, z * ps, th);
	float c = fma(z, pc, 1.0f);
	// quarterTurn without branches: odd quarters swap sine and cosine;
	// q's bit 1 (t's bit 31) negates the sine, q+1's the cosine
	bool odd = (t & (1u << 30)) != 0;
	float so = odd ? c : s, co = odd ? s : c;
	return (float2)(as_float(as_uint(so) ^ (t & 0x80000000u)), as_float(as_uint(co) ^ ((t + (1u << 30)) & 0x80000000u)));
}

inline float2 rand_pair(uint w[4], int p) {
	float r = rand_sqrt32(-2.0f * rand_log32(w[2 * p]));
	float2 sc = rand_sincos32(w[2 * p + 1]);
	return (float2)(r * sc.y, r * sc.x);
}
#endif

#if RNORMAL
inline TS rand_cvt(RZ z) {
#if RKIND == 4
	return TST((float)z);
#else
	return (TS)z;
#endif
}
#endif

// value is element lane of its block's words w (lane < EPB, a constant
// once rand_fill's loop unrolls: a computed index would put w in slow
// private memory on GPUs).
inline TS rand_value(uint w[4], int lane) {
#if RNORMAL
	RZ2 z = rand_pair(w, lane >> 1);
	return rand_cvt(lane & 1 ? z.y : z.x);
#else
	int l = lane * RK;
#if RKIND == 0
	return (TS)w[l];
#elif RKIND == 1
	return (TS)(((ulong)w[l + 1] << 32) | w[l]);
#elif RKIND == 2
	return (float)(w[l] >> 8) * 0x1p-24f;
#elif RKIND == 3
	return (double)((((ulong)w[l + 1] << 32) | w[l]) >> 11) * 0x1p-53;
#elif THALF == 1
	return TST((float)(w[l] >> 21) * 0x1p-11f);
#else
	return TST((float)(w[l] >> 24) * 0x1p-8f);
#endif
#endif
}

// rand_fill: one work item per block of the stream; element i of the
// fill (row order, s describes dst alone) is stream element first + i.
__kernel void rand_fill(__global TS *d, nd_t s, ulong seed, ulong first) {
	ulong base = first - first % EPB; // stream element of block 0's first word
	ulong nb = (first % EPB + (ulong)s.n + EPB - 1) / EPB;
	uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
	for (ulong t = get_global_id(0); t < nb; t += get_global_size(0)) {
		ulong e0 = base + t * EPB;
		uint4 v = philox4x32(e0 / EPB, k0, k1);
		uint w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
		for (int l = 0; l < EPB; l++) { // stream element e0 + l: lane l (e0 % EPB is 0)
			ulong i = e0 + l - first;
			if (i >= (ulong)s.n) continue;
			long o0, o1, o2;
			ND((long)i, s, o0, o1, o2);
			d[o0] = rand_value(w, l);
		}
	}
}

// rand_dense: rand_fill for a dense dst (one dimension of stride 1, from
// element off of d) of n < 2^31 elements: 32-bit index arithmetic, no
// ND, and each block whose EPB elements all lie in the fill stored as one
// RVT vector where dst's stream-aligned start is aligned for it.
__kernel void rand_dense(__global TS *d, long off, uint n, ulong seed, ulong first) {
	uint skip = (uint)(first % EPB); // fill elements before block 0's first: none; stream lanes skipped
	uint nb = (skip + n + EPB - 1) / EPB;
	ulong b0 = first / EPB;
	uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
	__global TS *p = d + off;
	bool vec = ((ulong)p - (ulong)skip * sizeof(TS)) % sizeof(RVT) == 0;
	for (uint t = get_global_id(0); t < nb; t += get_global_size(0)) {
		uint4 v = philox4x32((b0 + t) & (ULONG_MAX / EPB), k0, k1); // stream elements wrap mod 2^64
		uint w[4] = {v.x, v.y, v.z, v.w};
		uint j0 = t * EPB; // lane l is fill element j0 + l − skip
		if (vec && j0 >= skip && j0 - skip + EPB <= n) {
#if RNORMAL && EPB == 4
			RZ2 z0 = rand_pair(w, 0), z1 = rand_pair(w, 1);
			*(__global RVT *)(p + (j0 - skip)) = (RVT)(rand_cvt(z0.x), rand_cvt(z0.y), rand_cvt(z1.x), rand_cvt(z1.y));
#elif RNORMAL
			RZ2 z0 = rand_pair(w, 0);
			*(__global RVT *)(p + (j0 - skip)) = (RVT)(rand_cvt(z0.x), rand_cvt(z0.y));
#elif EPB == 4
			*(__global RVT *)(p + (j0 - skip)) = (RVT)(rand_value(w, 0), rand_value(w, 1), rand_value(w, 2), rand_value(w, 3));
#else
			*(__global RVT *)(p + (j0 - skip)) = (RVT)(rand_value(w, 0), rand_value(w, 1));
#endif
			continue;
		}
#pragma unroll
		for (int l = 0; l < EPB; l++) {
			uint j = j0 + l;
			if (j >= skip && j - skip < n)
				p[j - skip] = rand_value(w, l);
		}
	}
}
