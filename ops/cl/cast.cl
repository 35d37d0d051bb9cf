// cast.cl: embedded by ops/kernels.go (clCast); see the comment there.
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
