// The math ops of the elementwise program: appended to kernels.go's
// clElementwise, whose definitions it uses (TS storage type, TC compute
// type, TW wrapping type, LD/ST, TISF/TISS, the BIN_ND kernel template,
// nd_t and ND). Results follow the host's definitions in mod.go and
// classify.go; the unary ops are generated (cl/unary_gen.cl).

#if TISF
// NumPy's npy_divmod: fmod, then the divisor's sign; x mod 0 is NaN
inline TC mod_f(TC a, TC b) {
	TC m = fmod(a, b);
	if (b == 0) return m;
	if (m != 0) { if ((b < 0) != (m < 0)) m += b; }
	else m = copysign((TC)0, b);
	return m;
}
#define OP_mod(a, b) mod_f(a, b)
#define CLS_nan(x) isnan(x)
#define CLS_inf(x) isinf(x)
#define CLS_finite(x) isfinite(x)
#else
#if TISS
// floored: the remainder takes b's sign; x mod 0 and x mod −1 are 0 (the
// latter would overflow as MIN % −1)
inline TS mod_i(TS a, TS b) {
	if (b == 0 || b == -1) return (TS)0;
	TS r = a % b;
	return r != 0 && ((r < 0) != (b < 0)) ? (TS)(r + b) : r;
}
#else
inline TS mod_i(TS a, TS b) { return b == 0 ? (TS)0 : (TS)(a % b); }
#endif
#define OP_mod(a, b) mod_i(a, b)
#define CLS_nan(x) 0
#define CLS_inf(x) 0
#define CLS_finite(x) 1
#endif
BIN_ND(mod)

// isnan, isinf, isfinite: a uint8 mask, as Compare writes
#define CLS_ND(name) \
__kernel void cls_##name##_nd(__global uchar *d, __global const TS *a, nd_t s) { \
	for (long i = get_global_id(0); i < s.n; i += get_global_size(0)) { \
		long o0, o1, o2; ND(i, s, o0, o1, o2); \
		TC x = LD(a[o1]); \
		d[o0] = CLS_##name(x) ? 1 : 0; \
	} \
}
CLS_ND(nan) CLS_ND(inf) CLS_ND(finite)
