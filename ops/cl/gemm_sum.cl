// gemm_sum.cl: embedded by ops/kernels.go (clGemmSum): split-K's
// reduction. The S partial products of an M×N dst lie one after another
// in p, each packed (element (i, j) of slice s at s·M·N + i·N + j); each
// work-item sums one element's S partials in slice order (the same sum,
// so the same rounding, for every launch) and stores it at
// oc + i·sci + j·scj.
__kernel void gemm_sum(__global T *c, __global const T *p, long M, long N, long S,
	long oc, long sci, long scj) {
	const long g = get_global_id(0), mn = M * N;
	if (g >= mn) return;
	const long i = g / N, j = g - i * N;
	T s = p[g];
	for (long t = 1; t < S; t++) s += p[t * mn + g];
	c[oc + i * sci + j * scj] = s;
}
