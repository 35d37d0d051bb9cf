// Code in this file: float32 Pow in float64 lanes, pow32Go's operations
// (pow32.go) with its tables and constants (powConsts), fused where it
// takes math.FMA. Lanes where a is not a positive normal float32 or b is
// not finite are marked for the caller to redo (pow32).

//go:build amd64 && !purego

#include "textflag.h"

// powTable's fields: the tables, then 32-byte constants (J)
#define T_INVC 0
#define T_LOGC 128
#define T_EXP2 256
#define T_EXP2S 384
#define J(i) (512+(i)*32)(R11)

#define D_127 0
#define Q_15 1
#define Q_FRAC 2
#define Q_8 3
#define D_BIAS 4
#define D_LIM 5
#define D_ABS 6
#define D_INFM 7
#define F_ONE 8
#define F_L 9
#define F_E 16
#define F_SHIFT 20
#define F_TMIN 21
#define F_TMAX 22
#define F_32TH 23
#define F_16 24
#define F_M16TH 25
#define F_SHIFT52 26

// The AVX2 loop body in stages for four lanes, two sets a step so the
// second's gathers start before the first's 2^t: Y0-Y7 are scratch,
// xs (the slow lanes) and lg persist.

// ALOAD: xs = the slow lanes of the four at off (a+0x7f800000 >
// −0x1000001 signed: a not a positive normal; |b| past MaxFloat32's
// bits), their bits to moff(R8) and into R9.
#define ALOAD(off, moff, xs) \
	VMOVDQU  off(SI), X0; \
	VPADDD   J(D_BIAS), X0, xs; \
	VPCMPGTD J(D_LIM), xs, xs; \
	VMOVDQU  off(DX), X1; \
	VPAND    J(D_ABS), X1, X1; \
	VPCMPGTD J(D_INFM), X1, X1; \
	VPOR     X1, xs, xs; \
	VMOVMSKPS xs, AX; \
	MOVB AX, moff(R8); \
	ORQ  AX, R9

// ALOG: lg = log2 a = e + logc[i] + r·Q(r), a = 2^e·m, i m's top four
// fraction bits, r = z·invc[i] − 1, z m or m/2 (i ≥ 8, where logc has
// the 1).
#define ALOG(off, lg) \
	VMOVDQU   off(SI), X0; \
	VCVTPS2PD X0, Y1; \
	VPSRLQ    $48, Y1, Y2; \
	VPAND     J(Q_15), Y2, Y2; \
	VPAND     J(Q_8), Y2, Y3; \
	VPSLLQ    $49, Y3, Y3; \
	VPAND     J(Q_FRAC), Y1, Y4; \
	VPOR      J(F_ONE), Y4, Y4; \
	VPSUBQ    Y3, Y4, Y4; \
	VPSRLD    $23, X0, X0; \
	VPSUBD    J(D_127), X0, X0; \
	VCVTDQ2PD X0, Y0; \
	VPCMPEQD  Y5, Y5, Y5; \
	VGATHERQPD Y5, T_INVC(R11)(Y2*8), Y6; \
	VPCMPEQD  Y5, Y5, Y5; \
	VGATHERQPD Y5, T_LOGC(R11)(Y2*8), Y7; \
	VFMSUB213PD J(F_ONE), Y6, Y4; \
	VADDPD    Y7, Y0, Y0; \
	VMOVUPD   J(F_L+6), lg; \
	VFMADD213PD J(F_L+5), Y4, lg; \
	VFMADD213PD J(F_L+4), Y4, lg; \
	VFMADD213PD J(F_L+3), Y4, lg; \
	VFMADD213PD J(F_L+2), Y4, lg; \
	VFMADD213PD J(F_L+1), Y4, lg; \
	VFMADD213PD J(F_L+0), Y4, lg; \
	VFMADD213PD Y0, Y4, lg

// AEXP: 2^(t−1/32), t = b·log2 a + 1/32 clamped, = 2^(n>>4) ·
// 2^((n&15)/16 − 1/32) · 2^r, n = ⌊16t⌋, r = t − n/16 (exactly), to
// off(DI), slow lanes (xs) from off(R10).
#define AEXP(off, xs, lg) \
	VCVTPS2PD off(DX), Y0; \
	VFMADD213PD J(F_32TH), lg, Y0; \
	VMAXPD    J(F_TMIN), Y0, Y0; \
	VMINPD    J(F_TMAX), Y0, Y0; \
	VMULPD    J(F_16), Y0, Y1; \
	VROUNDPD  $1, Y1, Y1; \
	VFMADD231PD J(F_M16TH), Y1, Y0; \
	VADDPD    J(F_SHIFT52), Y1, Y1; \
	VPAND     J(Q_15), Y1, Y3; \
	VPSLLQ    $48, Y1, Y1; \
	VPCMPEQD  Y5, Y5, Y5; \
	VGATHERQPD Y5, T_EXP2S(R11)(Y3*8), Y6; \
	VPADDQ    Y6, Y1, Y1; \
	VMOVUPD   J(F_E+3), Y7; \
	VFMADD213PD J(F_E+2), Y0, Y7; \
	VFMADD213PD J(F_E+1), Y0, Y7; \
	VFMADD213PD J(F_E+0), Y0, Y7; \
	VMULPD    Y0, Y1, Y0; \
	VFMADD213PD Y1, Y0, Y7; \
	VCVTPD2PSY Y7, X7; \
	VBLENDVPS xs, off(R10), X7, X7; \
	VMOVUPS   X7, off(DI)

// func powF32(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int, c *powTable) (slow int)
// n is a multiple of 4. A lane off the fast path keeps a's value in d
// (b's with keepb 1, so d may be a or b) and sets its bit in masks[i/4]
// (one byte per four lanes); slow is the OR of those bytes. The tables
// are read with gathers.
TEXT ·powF32(SB), NOSPLIT, $0-64
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ masks+32(FP), R8
	MOVQ c+48(FP), R11
	MOVQ SI, R10
	CMPQ keepb+40(FP), $0
	CMOVQNE DX, R10 // what slow lanes keep
	XORQ R9, R9

loop:
	CMPQ CX, $8
	JB   tail
	ALOAD(0, 0, X14)
	ALOAD(16, 1, X15)
	ALOG(0, Y8)
	ALOG(16, Y9)
	AEXP(0, X14, Y8)
	AEXP(16, X15, Y9)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	ADDQ $32, R10
	ADDQ $2, R8
	SUBQ $8, CX
	JMP  loop

tail:
	CMPQ CX, $4
	JB   done
	ALOAD(0, 0, X14)
	ALOG(0, Y8)
	AEXP(0, X14, Y8)

done:
	MOVQ R9, slow+56(FP)
	VZEROUPPER
	RET

// The AVX-512 loop body in stages, each for eight lanes, run for two
// sets of registers in turn so the two chains interleave. Z24-Z29 hold
// the tables, looked up with VPERMI2PD, Z30 powShift. VSCALEFPD
// multiplies by 2^⌊t⌋, which with 2^t ≥ 2^-1022 is exact (as pow32Go's
// add to the exponent field), and past ±powTMax, where pow32Go clamps t,
// gives Inf or 0 in float32 as well, so no clamp is needed here.

// PLOAD loads eight a and b at off(SI) and off(DX); ks gets the slow
// lanes (a not a positive normal, b Inf or NaN), their bits go to the
// bytes at moff(R8) and moff+1(R8), four lanes a byte, and into R9.
#define PLOAD(off, moff, ya, yb, ks, kt) \
	VMOVUPS off(SI), ya; \
	VMOVUPS off(DX), yb; \
	VFPCLASSPSY $0xff, ya, ks; \
	VFPCLASSPSY $0x99, yb, kt; \
	KORB kt, ks, ks; \
	KMOVB ks, AX; \
	ORQ AX, R9; \
	MOVQ AX, BX; \
	ANDQ $15, BX; \
	MOVB BX, moff(R8); \
	SHRQ $4, AX; \
	MOVB AX, moff+1(R8)

// PLOG: e + logc[i] and r = z·invc[i] − 1 of a = 2^e·m, with
// z in [3/4, 3/2) from VGETMANTPD (m or m/2) and i m's top four
// fraction bits.
#define PLOG(ya, x, e, z, i1, i2) \
	VCVTPS2PD ya, x; \
	VGETEXPPD x, e; \
	VGETMANTPD $3, x, z; \
	VPSRLQ $48, x, i1; \
	VMOVDQA64 i1, i2; \
	VPERMI2PD Z25, Z24, i1; \
	VPERMI2PD Z27, Z26, i2; \
	VFMSUB213PD.BCST J(F_ONE), i1, z; \
	VADDPD i2, e, e

// PLOGQ: q = log2 a = e + r·Q(r), r in z.
#define PLOGQ(e, z, q) \
	VBROADCASTSD J(F_L+6), q; \
	VFMADD213PD.BCST J(F_L+5), z, q; \
	VFMADD213PD.BCST J(F_L+4), z, q; \
	VFMADD213PD.BCST J(F_L+3), z, q; \
	VFMADD213PD.BCST J(F_L+2), z, q; \
	VFMADD213PD.BCST J(F_L+1), z, q; \
	VFMADD213PD.BCST J(F_L+0), z, q; \
	VFMADD213PD e, z, q

// PEXPR: t = b·log2 a + 1/32 in x, r = t − ⌊16t⌋/16 in z, and
// exp2[⌊16t⌋&15] in i1 (VADDPD rounding down).
#define PEXPR(yb, q, x, z, i1) \
	VCVTPS2PD yb, x; \
	VFMADD213PD.BCST J(F_32TH), q, x; \
	VADDPD.RD_SAE Z30, x, i1; \
	VREDUCEPD $0x41, x, z; \
	VPERMI2PD Z29, Z28, i1

// PEXPQ: 2^⌊t⌋·(T + T·r·Q(r)), T = exp2[⌊16t⌋&15], stored to off(DI)
// in the fast lanes only (d keeps a or b in the slow ones when it is
// one of them).
#define PEXPQ(off, ya, x, z, i1, q, ks) \
	VBROADCASTSD J(F_E+3), q; \
	VFMADD213PD.BCST J(F_E+2), z, q; \
	VFMADD213PD.BCST J(F_E+1), z, q; \
	VFMADD213PD.BCST J(F_E+0), z, q; \
	VMULPD z, i1, z; \
	VFMADD213PD i1, z, q; \
	VSCALEFPD x, q, q; \
	VCVTPD2PS q, ya; \
	KNOTB ks, ks; \
	VMOVUPS ya, ks, off(DI)

// func powF32AVX512(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int, c *powTable) (slow int)
// powF32 for n a multiple of 16, two chains of eight lanes a step (the
// masks as powF32 writes them: one byte per four lanes). Masked stores
// leave the slow lanes of d as they were, so keepb is not needed.
TEXT ·powF32AVX512(SB), NOSPLIT, $0-64
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ masks+32(FP), R8
	MOVQ c+48(FP), R11
	XORQ R9, R9
	VMOVUPD T_INVC(R11), Z24
	VMOVUPD T_INVC+64(R11), Z25
	VMOVUPD T_LOGC(R11), Z26
	VMOVUPD T_LOGC+64(R11), Z27
	VMOVUPD T_EXP2(R11), Z28
	VMOVUPD T_EXP2+64(R11), Z29
	VBROADCASTSD J(F_SHIFT), Z30

loop512:
	CMPQ CX, $16
	JB   done512
	PLOAD(0, 0, Y0, Y1, K1, K2)
	PLOAD(32, 2, Y8, Y9, K3, K4)
	PLOG(Y0, Z2, Z3, Z4, Z5, Z6)
	PLOG(Y8, Z10, Z11, Z12, Z13, Z14)
	PLOGQ(Z3, Z4, Z7)
	PLOGQ(Z11, Z12, Z15)
	PEXPR(Y1, Z7, Z2, Z4, Z5)
	PEXPR(Y9, Z15, Z10, Z12, Z13)
	PEXPQ(0, Y0, Z2, Z4, Z5, Z7, K1)
	PEXPQ(32, Y8, Z10, Z12, Z13, Z15, K3)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	ADDQ $4, R8
	SUBQ $16, CX
	JMP  loop512

done512:
	MOVQ R9, slow+56(FP)
	VZEROUPPER
	RET
