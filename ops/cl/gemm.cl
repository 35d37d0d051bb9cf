// gemm.cl: embedded by ops/kernels.go (clGemmTemplate), the tiled GEMM. Lines starting with @ are expanded by Go (gemmMAC, gemmLoad, gemmStore: OpenCL C has no portable pragma inside a macro, and those loops must unroll).
#define T TS
#define T4 TVT4
#define CM (4 * (TM / RM))
#define CN (4 * (TN / RN))
#define ROW(m) (((m) / 4) * CM + ty * 4 + (m) % 4)
#define COL(n) (((n) / 4) * CN + tx * 4 + (n) % 4)
// VAR (gemmConfig.V) 1: slab reads as aligned vector loads from local
// memory (vload4 only promises element alignment, so a compiler may split
// it into four scalar loads), and gemm_full also on edge tiles (guarded
// loads and stores). 0: the original kernels.
#if VAR & 1
#define LDS4(p) (*(__local const T4 *)(p))
#define LALIGN __attribute__((aligned(32)))
#else
#define LDS4(p) vload4(0, p)
#define LALIGN
#endif

__kernel __attribute__((reqd_work_group_size(TN / RN, TM / RM, 1)))
void gemm(__global T *c, __global const T *a, __global const T *b,
	long M, long N, long K,
	long oa, long sai, long sak, long sab,
	long ob, long sbk, long sbj, long sbb,
	long oc, long sci, long scj, long scb, int fl) {
	__local T As[TK][TM + PADA] LALIGN;
	__local T Bs[TK][TN] LALIGN;
	const int tx = get_local_id(0), ty = get_local_id(1);
	const int tid = ty * (TN / RN) + tx, nt = (TN / RN) * (TM / RM);
	const long i0 = (long)get_group_id(1) * TM, j0 = (long)get_group_id(0) * TN, z = get_global_id(2);
	a += oa + z * sab; b += ob + z * sbb; c += oc + z * scb;
	T acc[RM][RN];
#pragma unroll
	for (int m = 0; m < RM; m++)
#pragma unroll
		for (int n = 0; n < RN; n++) acc[m][n] = 0;
	// Each slab loads in chunks of 4 elements, one loop per operand with
	// no branch around it: PoCL 5 aborts on a barrier followed by a branch
	// that skips a loop. The chunk order follows the operand's layout, so
	// neighbouring work-items read neighbouring memory: along k when A's
	// rows are contiguous (amode 0, float4 loads where aligned and in
	// range), along i when its columns are (amode 1); B likewise along j
	// (bmode 0) or k (bmode 1).
	const bool full = i0 + TM <= M && j0 + TN <= N;
	const int amode = sai == 1 && sak != 1, bmode = sbk == 1 && sbj != 1;
	for (long k0 = 0; k0 < K; k0 += TK) {
		const bool kfull = full && k0 + TK <= K;
		for (int l = tid; l < TM * TK / 4; l += nt) {
			const int i = amode ? l % TM : l / (TK / 4), p = 4 * (amode ? l / TM : l % (TK / 4));
			const long gi = i0 + i, gp = k0 + p;
			T4 v;
			if (kfull && (fl & 1)) {
				v = *(__global const T4 *)(a + gi * sai + gp);
			} else {
				v.x = gi < M && gp < K ? a[gi * sai + gp * sak] : (T)0;
				v.y = gi < M && gp + 1 < K ? a[gi * sai + (gp + 1) * sak] : (T)0;
				v.z = gi < M && gp + 2 < K ? a[gi * sai + (gp + 2) * sak] : (T)0;
				v.w = gi < M && gp + 3 < K ? a[gi * sai + (gp + 3) * sak] : (T)0;
			}
			As[p][i] = v.x; As[p + 1][i] = v.y; As[p + 2][i] = v.z; As[p + 3][i] = v.w;
		}
		for (int l = tid; l < TN * TK / 4; l += nt) {
			const int p = bmode ? l % TK : l / (TN / 4), j = 4 * (bmode ? l / TK : l % (TN / 4));
			const long gj = j0 + j, gp = k0 + p;
			T4 v;
			if (kfull && (fl & 2)) {
				v = *(__global const T4 *)(b + gp * sbk + gj);
			} else {
				v.x = gp < K && gj < N ? b[gp * sbk + gj * sbj] : (T)0;
				v.y = gp < K && gj + 1 < N ? b[gp * sbk + (gj + 1) * sbj] : (T)0;
				v.z = gp < K && gj + 2 < N ? b[gp * sbk + (gj + 2) * sbj] : (T)0;
				v.w = gp < K && gj + 3 < N ? b[gp * sbk + (gj + 3) * sbj] : (T)0;
			}
			vstore4(v, 0, &Bs[p][j]);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
@MAC(As, Bs)
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	// fully unrolled (no break), so that acc stays in registers
#pragma unroll
	for (int m = 0; m < RM; m++) {
		long i = i0 + ROW(m);
#pragma unroll
		for (int n = 0; n < RN; n++) {
			long j = j0 + COL(n);
			if (i < M && j < N) c[i * sci + j * scj] = acc[m][n];
		}
	}
}

// gemm_full: A and B rows contiguous and 16-byte aligned; every tile full
// (M, N, K multiples of TM, TN, TK) unless VAR & 1, where edge tiles take
// guarded loads (a uniform branch per work-group and slab). Local memory holds two slabs: the
// next slab, loaded into registers while the current one is multiplied,
// is stored into the other half, so global latency overlaps the
// arithmetic and one barrier per slab suffices.
#define NA (TM * TK / 4 / ((TN / RN) * (TM / RM)))
#define NB (TN * TK / 4 / ((TN / RN) * (TM / RM)))
__kernel __attribute__((reqd_work_group_size(TN / RN, TM / RM, 1)))
void gemm_full(__global T *c, __global const T *a, __global const T *b,
	long M, long N, long K,
	long oa, long sai, long sak, long sab,
	long ob, long sbk, long sbj, long sbb,
	long oc, long sci, long scj, long scb, int fl) {
	__local T As[2][TK][TM + PADA] LALIGN;
	__local T Bs[2][TK][TN] LALIGN;
	const int tx = get_local_id(0), ty = get_local_id(1);
	const int tid = ty * (TN / RN) + tx, nt = (TN / RN) * (TM / RM);
	const long i0 = (long)get_group_id(1) * TM, j0 = (long)get_group_id(0) * TN, z = get_global_id(2);
	a += oa + z * sab + i0 * sai; b += ob + z * sbb + j0; c += oc + z * scb;
#if VAR & 1
	const bool edge = i0 + TM > M || j0 + TN > N;
#endif
	T acc[RM][RN];
#pragma unroll
	for (int m = 0; m < RM; m++)
#pragma unroll
		for (int n = 0; n < RN; n++) acc[m][n] = 0;
	T4 ra4[NA], rb4[NB];
@LOAD(0)
@STORE(0)
	barrier(CLK_LOCAL_MEM_FENCE);
	int h = 0;
	for (long k0 = 0; k0 < K; k0 += TK) {
		const bool more = k0 + TK < K;
		if (more) {
@LOAD(k0 + TK)
		}
@MAC(As[h], Bs[h])
		if (more) {
@STORE(h ^ 1)
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		h ^= 1;
	}
#if VAR & 1
	if ((fl & 4) && !edge) { // dst rows contiguous and 16-byte aligned: whole float4s
#pragma unroll
		for (int m = 0; m < RM; m++) {
			long i = i0 + ROW(m);
#pragma unroll
			for (int n = 0; n < RN; n += 4)
				*(__global T4 *)(c + i * sci + j0 + COL(n)) = (T4)(acc[m][n], acc[m][n + 1], acc[m][n + 2], acc[m][n + 3]);
		}
		return;
	}
#endif
#pragma unroll
	for (int m = 0; m < RM; m++) {
		long i = i0 + ROW(m);
#pragma unroll
		for (int n = 0; n < RN; n++) {
#if VAR & 1
			if (i < M && j0 + COL(n) < N)
#endif
			c[i * sci + (j0 + COL(n)) * scj] = acc[m][n];
		}
	}
}
