// The math ops of the elementwise program: appended to kernels.go's
// clElementwise, whose definitions it uses (TS storage type, TC compute
// type, TW wrapping type, LD/ST, TISF/TISS, nd_t and ND). Results follow
// the host's definitions in classify.go; the binary and unary ops are
// generated (cl/binary_gen.cl, cl/unary_gen.cl).

#if TISF
#define CLS_nan(x) isnan(x)
#define CLS_inf(x) isinf(x)
#define CLS_finite(x) isfinite(x)
#else
#define CLS_nan(x) 0
#define CLS_inf(x) 0
#define CLS_finite(x) 1
#endif

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
