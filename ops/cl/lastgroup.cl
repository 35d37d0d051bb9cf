// lastgroup.cl: embedded by ops/kernels.go (clLastGroup): the one-pass
// ending shared by the reduction program (reduce.cl) and fused
// reductions (fuse_cl.go): the last work-group of an output to finish
// joins the output's partials.

// a fence that orders this work-item's global stores before its later
// ones for every work-group of the device: OpenCL 1.2's mem_fence promises
// that only within the work-group, and NVIDIA's OpenCL is reported to keep
// to just that (Futhark's issue 734), so ops defines RED_PTX_FENCE there
// (PTX's membar.gl; a build that refuses it turns the one-pass kernels
// off); device/cuda's translation makes mem_fence __threadfence
#ifdef RED_PTX_FENCE
#define GLOBAL_FENCE() { mem_fence(CLK_GLOBAL_MEM_FENCE); asm volatile("membar.gl;"); }
#else
#define GLOBAL_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

// the work-group's accumulators joined into lm[0] by join (a tree over
// local memory); callers pass name##_JOIN, pasted so that a macro name
// such as max is not expanded first
#define JOIN_GROUP(join, lm, lid, ls, acc) \
	lm[lid] = acc; \
	barrier(CLK_LOCAL_MEM_FENCE); \
	for (long h = ls / 2; h > 0; h /= 2) { \
		if (lid < h) lm[lid] = join(lm[lid], lm[lid + h]); \
		barrier(CLK_LOCAL_MEM_FENCE); \
	}

// LAST_GROUP: after JOIN_GROUP left work-group g's partial of output o in
// lm[0], work-item 0 stores it to part[o·G + g], fences, and counts the
// group done on cnt[o]; the group that counts G (last, a __local int the
// kernel declares) joins the output's G partials into lm[0] as a
// work-group and sets cnt[o] back to 0 for the next launch, so ops zeroes
// the counters only when it allocates them (red_clear); its work-item 0
// then runs store (the output from lm[0]) inside the same conditional
// block (PoCL hung with the store in a block of its own after it).
#define LAST_GROUP(ACC, INIT, JOIN, part, cnt, o, g, G, lm, lid, ls, acc, last, store) \
	if (lid == 0) { \
		((volatile __global ACC *)part)[(o) * (G) + (g)] = lm[0]; \
		GLOBAL_FENCE(); \
		last = atomic_inc(cnt + (o)) == (G) - 1; \
		if (last) GLOBAL_FENCE(); \
	} \
	barrier(CLK_LOCAL_MEM_FENCE); \
	if (last) { \
		volatile __global const ACC *pv = part + (o) * (G); \
		acc = INIT; \
		for (long k = lid; k < (G); k += ls) acc = JOIN(acc, pv[k]); \
		JOIN_GROUP(JOIN, lm, lid, ls, acc); \
		if (lid == 0) { cnt[o] = 0; store; } \
	}

// the one-pass reductions' counters, zeroed once when allocated
__kernel void red_clear(__global int *cnt, long n) {
	for (long i = get_global_id(0); i < n; i += get_global_size(0)) cnt[i] = 0;
}
