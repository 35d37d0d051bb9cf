// The reduction and fit that exp32 and sinhCosh32 share (exp32_amd64.s,
// sinhcosh_amd64.s): n = rint(x·log2e), r = x − n·ln2hi (exact), r_lo's
// share n·(−ln2lo), and Q(r) by Horner, from a table tab whose first
// nine floats are log2e, ln2 high, −ln2 low and Q0…Q5.

// EXPQ16 is that in sixteen lanes on AVX-512: x in, n, r, rl and q out.
#define EXPQ16(tab, x, n, r, rl, q) \
	VMULPS.BCST tab+0(SB), x, n; \
	VRNDSCALEPS $0, n, n; \
	VMOVAPS x, r; \
	VFNMADD231PS.BCST tab+4(SB), n, r; \
	VMULPS.BCST tab+8(SB), n, rl; \
	VBROADCASTSS tab+32(SB), q; \
	VFMADD213PS.BCST tab+28(SB), r, q; \
	VFMADD213PS.BCST tab+24(SB), r, q; \
	VFMADD213PS.BCST tab+20(SB), r, q; \
	VFMADD213PS.BCST tab+16(SB), r, q; \
	VFMADD213PS.BCST tab+12(SB), r, q

// EXPQ8 is EXPQ16 in eight lanes on AVX2/FMA, c taking each constant.
#define EXPQ8(tab, x, n, r, rl, q, c) \
	VBROADCASTSS tab+0(SB), c; \
	VMULPS c, x, n; \
	VROUNDPS $0, n, n; \
	VMOVAPS x, r; \
	VBROADCASTSS tab+4(SB), c; \
	VFNMADD231PS c, n, r; \
	VBROADCASTSS tab+8(SB), c; \
	VMULPS c, n, rl; \
	VBROADCASTSS tab+32(SB), q; \
	VBROADCASTSS tab+28(SB), c; \
	VFMADD213PS c, r, q; \
	VBROADCASTSS tab+24(SB), c; \
	VFMADD213PS c, r, q; \
	VBROADCASTSS tab+20(SB), c; \
	VFMADD213PS c, r, q; \
	VBROADCASTSS tab+16(SB), c; \
	VFMADD213PS c, r, q; \
	VBROADCASTSS tab+12(SB), c; \
	VFMADD213PS c, r, q
