// gemm_mma.cl: embedded by ops/kernels.go (clGemmMMA), the float64 GEMM on
// NVIDIA's FP64 tensor cores through inline PTX (mma.sync … .f64, sm_80 and
// later; MS 16 is sm_90's m16n8k4). Built only for NVIDIA devices; a build
// that fails falls back to gemm.cl. A work-group of NTH work-items (whole
// warps) computes a TM×TN tile of C in TK-deep slabs, each warp an RM×RN
// block of MS×8 tensor-core tiles. Fragment layouts (PTX ISA, "Matrix
// Fragments for mma.m8n8k4 with .f64" and "for mma.m16n8k4"), with
// g = lane / 4 and q = lane % 4:
//   A (MS×4, row):  a_r = A[g + 8r][q]
//   B (4×8, col):   b   = B[q][g]
//   C (MS×8):       c_e = C[g + 8(e / 2)][2q + e % 2]
// Slabs are staged k-major in local memory, rows padded to 4 mod 16
// doubles, so that a fragment's 16-lane half reads 16 different banks.
#define NWN (TN / RN)
#define NTH (32 * (TM / RM) * (TN / RN))
#define FM (RM / MS)
#define FN (RN / 8)
#define AR (MS / 8)
#define CR (2 * AR)
#define SA (TM + 4)
#define SB (TN + 4)
#define LA (TM * TK / NTH)
#define LB (TN * TK / NTH)

#if MS == 8
#define MMA(c, a, b) asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};" \
	: "=d"(c[0]), "=d"(c[1]) : "d"(a[0]), "d"(b), "d"(c[0]), "d"(c[1]))
#else
#define MMA(c, a, b) asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
	: "=d"(c[0]), "=d"(c[1]), "=d"(c[2]), "=d"(c[3]) : "d"(a[0]), "d"(a[1]), "d"(b), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]))
#endif

__kernel __attribute__((reqd_work_group_size(NTH, 1, 1)))
void gemm_mma(__global double *c, __global const double *a, __global const double *b,
	long M, long N, long K,
	long oa, long sai, long sak, long sab,
	long ob, long sbk, long sbj, long sbb,
	long oc, long sci, long scj, long scb, int fl) {
	__local double As[2][TK][SA];
	__local double Bs[2][TK][SB];
	const int tid = get_local_id(0), lane = tid & 31, w = tid >> 5;
	const int g = lane >> 2, q = lane & 3;
	const int wm = (w / NWN) * RM, wn = (w % NWN) * RN;
	const long i0 = (long)get_group_id(1) * TM, j0 = (long)get_group_id(0) * TN, z = get_group_id(2);
	a += oa + z * sab; b += ob + z * sbb; c += oc + z * scb;
	// Slab loads: neighbouring work-items read neighbouring elements of
	// the operand's contiguous direction (along k for row-major A, along
	// i for column-major; B likewise).
	const int amode = sai == 1 && sak != 1, bmode = sbk == 1 && sbj != 1;
	double ra[LA], rb[LB];
	double acc[FM][FN][CR];
#pragma unroll
	for (int i = 0; i < FM; i++)
#pragma unroll
		for (int j = 0; j < FN; j++)
#pragma unroll
			for (int e = 0; e < CR; e++) acc[i][j][e] = 0;
#pragma unroll
	for (int r = 0; r < LA; r++) {
		int l = tid + r * NTH, i = amode ? l % TM : l / TK, p = amode ? l / TM : l % TK;
		long gi = i0 + i;
		ra[r] = gi < M && p < K ? a[gi * sai + p * sak] : 0.0;
	}
#pragma unroll
	for (int r = 0; r < LB; r++) {
		int l = tid + r * NTH, p = bmode ? l % TK : l / TN, j = bmode ? l / TK : l % TN;
		long gj = j0 + j;
		rb[r] = p < K && gj < N ? b[p * sbk + gj * sbj] : 0.0;
	}
#pragma unroll
	for (int r = 0; r < LA; r++) {
		int l = tid + r * NTH;
		As[0][amode ? l / TM : l % TK][amode ? l % TM : l / TK] = ra[r];
	}
#pragma unroll
	for (int r = 0; r < LB; r++) {
		int l = tid + r * NTH;
		Bs[0][bmode ? l % TK : l / TN][bmode ? l / TK : l % TN] = rb[r];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	int h = 0;
	for (long k0 = 0; k0 < K; k0 += TK) {
		const bool more = k0 + TK < K;
		if (more) {
#pragma unroll
			for (int r = 0; r < LA; r++) {
				int l = tid + r * NTH, i = amode ? l % TM : l / TK, p = amode ? l / TM : l % TK;
				long gi = i0 + i, gp = k0 + TK + p;
				ra[r] = gi < M && gp < K ? a[gi * sai + gp * sak] : 0.0;
			}
#pragma unroll
			for (int r = 0; r < LB; r++) {
				int l = tid + r * NTH, p = bmode ? l % TK : l / TN, j = bmode ? l / TK : l % TN;
				long gj = j0 + j, gp = k0 + TK + p;
				rb[r] = gp < K && gj < N ? b[gp * sbk + gj * sbj] : 0.0;
			}
		}
#pragma unroll
		for (int kk = 0; kk < TK; kk += 4) {
			double fa[FM][AR], fb[FN];
#pragma unroll
			for (int i = 0; i < FM; i++)
#pragma unroll
				for (int r = 0; r < AR; r++) fa[i][r] = As[h][kk + q][wm + i * MS + r * 8 + g];
#pragma unroll
			for (int j = 0; j < FN; j++) fb[j] = Bs[h][kk + q][wn + j * 8 + g];
#pragma unroll
			for (int i = 0; i < FM; i++)
#pragma unroll
				for (int j = 0; j < FN; j++) MMA(acc[i][j], fa[i], fb[j]);
		}
		if (more) {
#pragma unroll
			for (int r = 0; r < LA; r++) {
				int l = tid + r * NTH;
				As[h ^ 1][amode ? l / TM : l % TK][amode ? l % TM : l / TK] = ra[r];
			}
#pragma unroll
			for (int r = 0; r < LB; r++) {
				int l = tid + r * NTH;
				Bs[h ^ 1][bmode ? l % TK : l / TN][bmode ? l / TK : l % TN] = rb[r];
			}
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		h ^= 1;
	}
#pragma unroll
	for (int i = 0; i < FM; i++)
#pragma unroll
		for (int j = 0; j < FN; j++)
#pragma unroll
			for (int e = 0; e < CR; e++) {
				long gi = i0 + wm + i * MS + (e / 2) * 8 + g, gj = j0 + wn + j * 8 + 2 * q + e % 2;
				if (gi < M && gj < N) c[gi * sci + gj * scj] = acc[i][j][e];
			}
}
