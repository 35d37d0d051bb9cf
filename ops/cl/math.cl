// The math ops of the elementwise program: appended to kernels.go's
// clElementwise, whose definitions it uses (TS storage type, TC compute
// type, TW wrapping type, LD/ST, TISF/TISS, the UN_ND and BIN_ND kernel
// templates, nd_t and ND). Results follow the host's definitions in
// unary.go, mod.go and classify.go.

#if TISF
#define UN_sin(a) sin(a)
#define UN_cos(a) cos(a)
#define UN_tan(a) tan(a)
#define UN_asin(a) asin(a)
#define UN_acos(a) acos(a)
#define UN_atan(a) atan(a)
#define UN_sinh(a) sinh(a)
#define UN_cosh(a) cosh(a)
#define UN_sigmoid(a) ((TC)1 / ((TC)1 + exp(-(a))))
// max(x,0) + log1p(e^−|x|) never overflows; fmax drops a NaN, the log1p
// term keeps it
#define UN_softplus(a) (fmax((a), (TC)0) + log1p(exp(-fabs(a))))
#define UN_relu(a) ((a) > 0 || isnan(a) ? (a) : (TC)0)
#define UN_floor(a) floor(a)
#define UN_ceil(a) ceil(a)
#define UN_round(a) rint(a) // the default rounding mode: halves to even
#define UN_trunc(a) trunc(a)
// NumPy's sign: 0 for ±0, NaN for NaN (OpenCL's sign gives 0 for NaN)
#define UN_sign(a) ((a) > 0 ? (TC)1 : (a) < 0 ? (TC)-1 : (a) == 0 ? (TC)0 : (a))
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
UN_ND(sin) UN_ND(cos) UN_ND(tan) UN_ND(asin) UN_ND(acos) UN_ND(atan)
UN_ND(sinh) UN_ND(cosh) UN_ND(sigmoid) UN_ND(softplus)
#else
#if TISS
#define UN_relu(a) ((a) < 0 ? (TS)0 : (a))
#define UN_sign(a) ((TS)(((a) > 0) - ((a) < 0)))
// floored: the remainder takes b's sign; x mod 0 and x mod −1 are 0 (the
// latter would overflow as MIN % −1)
inline TS mod_i(TS a, TS b) {
	if (b == 0 || b == -1) return (TS)0;
	TS r = a % b;
	return r != 0 && ((r < 0) != (b < 0)) ? (TS)(r + b) : r;
}
#else
#define UN_relu(a) (a)
#define UN_sign(a) ((TS)((a) != 0))
inline TS mod_i(TS a, TS b) { return b == 0 ? (TS)0 : (TS)(a % b); }
#endif
#define UN_floor(a) (a)
#define UN_ceil(a) (a)
#define UN_round(a) (a)
#define UN_trunc(a) (a)
#define OP_mod(a, b) mod_i(a, b)
#define CLS_nan(x) 0
#define CLS_inf(x) 0
#define CLS_finite(x) 1
#endif
UN_ND(relu) UN_ND(floor) UN_ND(ceil) UN_ND(round) UN_ND(trunc) UN_ND(sign)
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
