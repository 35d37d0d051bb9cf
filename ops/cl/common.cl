// common.cl: embedded by ops/kernels.go (clCommon); see the comment there.
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
