// Code in this file: float64 Pow as pow64One (pow64.go) computes it, the
// same operations in the same order, eight lanes a step on AVX-512, four
// on AVX2. A kernel stops before a step with a lane pow64One gives to
// package math (x not a positive normal number, |y·ln x| past 708 or NaN)
// and returns the elements done; lanesUntil2 gives that step to Go. R8
// holds the pow64Table: log rows at 0 (32 bytes each), the 16 tails at
// TAILS and scales at SBITS, constants at K(i), four copies each.

//go:build amd64 && !purego

#include "textflag.h"

#define TAILS 4096
#define SBITS 4224
#define K(i) (4352+32*(i))
#define OFF K(0)
#define IDXMASK K(1)
#define TOP K(2)
#define KBIAS K(3)
#define KMAGIC K(4)
#define KSUB K(5)
#define ONE K(6)
#define LN2LO K(7)
#define LN2HI K(8)
#define MHALF K(9)
#define A(i) K(10+(i))
#define ABS K(17)
#define MAXT K(18)
#define INVN K(19)
#define SHIFT K(20)
#define NLN2HI K(21)
#define NLN2LO K(22)
#define M15 K(23)
#define C(i) K(24+(i))
#define LNORM K(30)
#define INFM1 K(31)
#define INF K(32)
#define TWO K(33)

// PARGS loads func(d, a, b unsafe.Pointer, n int, c *pow64Table)'s
// arguments: DI, SI, DX, CX (and BX, n again), R8.
#define PARGS \
	MOVQ d+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ n+24(FP), CX; \
	MOVQ CX, BX; \
	MOVQ c+32(FP), R8

// PNEXT moves the three pointers on by size bytes and CX by step
// elements, and loops.
#define PNEXT(size, step) \
	ADDQ $size, SI; \
	ADDQ $size, DX; \
	ADDQ $size, DI; \
	SUBQ $step, CX; \
	JMP loop

// APAIR4 is a Horner step of the logarithm's series in four lanes: out =
// A(m) + r·A(m+1) + ar2·in (Y4 r, Y7 ar2), fused as pow64One's.
#define APAIR4(m, in, out) \
	VMOVUPD A(m)(R8), out; \
	VFMADD231PD A(m+1)(R8), Y4, out; \
	VFMADD231PD in, Y7, out

// APAIR8 is APAIR4 in eight lanes, A(m−1) held in a.
#define APAIR8(a, m, in, out) \
	VMOVAPD a, out; \
	VFMADD231PD.BCST A(m)(R8), Z4, out; \
	VFMADD231PD in, Z7, out

// PDONE stores the elements done and returns.
#define PDONE \
done: \
	SUBQ CX, BX; \
	MOVQ BX, ret+40(FP); \
	VZEROUPPER; \
	RET

// func powF64(d, a, b unsafe.Pointer, n int, c *pow64Table) int
// n a multiple of 8; AVX2/FMA, four lanes a step; Y15 holds the least
// normal number's bits.
TEXT ·powF64(SB), NOSPLIT, $0-48
	PARGS
	VMOVDQU LNORM(R8), Y15
loop:
	CMPQ CX, $4
	JB done
	// x a positive normal number: its bits in [LNORM, INF) as signed integers
	VMOVDQU 0(SI), Y0
	VPCMPGTQ Y0, Y15, Y1
	VPCMPGTQ INFM1(R8), Y0, Y2
	VPOR Y2, Y1, Y1
	VPTEST Y1, Y1
	JNZ done
	// x = 2^k·z: tmp = ix − OFF, the row i = tmp>>45 & 127 (times 4), k =
	// tmp>>52 as a signed number (through 2^52 + (k + 2048)), z = ix −
	// (tmp's top 12 bits)
	VPSUBQ OFF(R8), Y0, Y1
	VPSRLQ $43, Y1, Y2
	VPAND IDXMASK(R8), Y2, Y2
	VPADDQ KBIAS(R8), Y1, Y3
	VPSRLQ $52, Y3, Y3
	VPOR KMAGIC(R8), Y3, Y3
	VSUBPD KSUB(R8), Y3, Y3
	VPAND TOP(R8), Y1, Y4
	VPSUBQ Y4, Y0, Y4
	VPCMPEQQ Y5, Y5, Y5
	VGATHERQPD Y5, 0(R8)(Y2*8), Y6
	VPCMPEQQ Y5, Y5, Y5
	VGATHERQPD Y5, 8(R8)(Y2*8), Y7
	VPCMPEQQ Y5, Y5, Y5
	VGATHERQPD Y5, 16(R8)(Y2*8), Y8
	// Y3 kd, Y4 z, Y6 1/c, Y7 and Y8 −ln(1/c); r = z·(1/c) − 1, t1 =
	// kd·Ln2Hi + hi (both exact), lo1 = kd·Ln2Lo + lo
	VFMSUB213PD ONE(R8), Y6, Y4
	VFMADD231PD LN2HI(R8), Y3, Y7
	VFMADD231PD LN2LO(R8), Y3, Y8
	// Y4 r, Y7 t1, Y8 lo1; t2 = t1 + r, lo2
	VADDPD Y4, Y7, Y5
	VSUBPD Y5, Y7, Y7
	VADDPD Y4, Y7, Y7
	VADDPD Y7, Y8, Y8
	VMULPD MHALF(R8), Y4, Y6
	VMULPD Y6, Y4, Y7
	VMULPD Y7, Y4, Y9
	VADDPD Y7, Y5, Y0
	VMOVAPD Y7, Y1
	VFMSUB231PD Y4, Y6, Y1
	VADDPD Y1, Y8, Y8
	VSUBPD Y0, Y5, Y5
	VADDPD Y7, Y5, Y5
	VADDPD Y5, Y8, Y8
	// Y0 hi, Y7 ar2, Y9 ar3, Y8 lo less ar3·q
	APAIR4(4, A(6)(R8), Y1)
	APAIR4(2, Y1, Y2)
	APAIR4(0, Y2, Y1)
	VFMADD231PD Y1, Y9, Y8
	VADDPD Y8, Y0, Y1
	VSUBPD Y1, Y0, Y0
	VADDPD Y8, Y0, Y0
	// ln x = Y1 + Y0; t = y·ln x = Y3 + Y4
	VMOVUPD 0(DX), Y2
	VMULPD Y1, Y2, Y3
	VMOVAPD Y3, Y4
	VFMSUB231PD Y1, Y2, Y4
	VFMADD231PD Y0, Y2, Y4
	VANDPD ABS(R8), Y3, Y5
	VCMPPD $6, MAXT(R8), Y5, Y5
	VPTEST Y5, Y5
	JNZ done
	// e^t: n = round(t·16/ln2) in Y6's low bits, kd = n, s = t − n·ln2/16
	VMULPD INVN(R8), Y3, Y6
	VADDPD SHIFT(R8), Y6, Y6
	VSUBPD SHIFT(R8), Y6, Y7
	VFMADD231PD NLN2HI(R8), Y7, Y3
	VFMADD231PD NLN2LO(R8), Y7, Y3
	VADDPD Y4, Y3, Y3
	VPAND M15(R8), Y6, Y8
	VPCMPEQQ Y9, Y9, Y9
	VGATHERQPD Y9, TAILS(R8)(Y8*8), Y10
	VPCMPEQQ Y9, Y9, Y9
	VPGATHERQQ Y9, SBITS(R8)(Y8*8), Y11
	VPSLLQ $48, Y6, Y6
	VPADDQ Y6, Y11, Y11
	VMULPD Y3, Y3, Y12
	VMULPD Y12, Y12, Y7
	VMOVUPD C(2)(R8), Y13
	VFMADD231PD C(3)(R8), Y3, Y13
	VMOVUPD C(0)(R8), Y14
	VFMADD231PD C(1)(R8), Y3, Y14
	VFMADD231PD Y13, Y12, Y14
	VMOVUPD C(4)(R8), Y13
	VFMADD231PD C(5)(R8), Y3, Y13
	VFMADD231PD Y13, Y7, Y14
	VFMADD231PD Y14, Y12, Y3
	VADDPD Y10, Y3, Y3
	VMOVAPD Y11, Y0
	VFMADD231PD Y3, Y11, Y0
	// x·x where y is 2
	VCMPPD $0, TWO(R8), Y2, Y5
	VMOVUPD 0(SI), Y1
	VMULPD Y1, Y1, Y1
	VBLENDVPD Y5, Y1, Y0, Y0
	VMOVUPD Y0, 0(DI)
	PNEXT(32, 4)
	PDONE

// func powF64AVX512(d, a, b unsafe.Pointer, n int, c *pow64Table) int
// n a multiple of 8; eight lanes a step, which ends before its store
// where K2 (x not a positive normal number, or |t| past 708) has a lane;
// Z20…Z24 and Z27 hold the polynomials' first coefficients, Z16…Z19
// the tails and scales (VPERMI2PD takes an index's low four bits).
TEXT ·powF64AVX512(SB), NOSPLIT, $0-48
	PARGS
	VPBROADCASTQ LNORM(R8), Z26
	VPBROADCASTQ INF(R8), Z25
	VBROADCASTSD A(4)(R8), Z20
	VBROADCASTSD A(2)(R8), Z21
	VBROADCASTSD A(0)(R8), Z22
	VBROADCASTSD C(2)(R8), Z23
	VBROADCASTSD C(0)(R8), Z24
	VBROADCASTSD C(4)(R8), Z27
	VMOVUPD TAILS(R8), Z16
	VMOVUPD TAILS+64(R8), Z17
	VMOVUPD SBITS(R8), Z18
	VMOVUPD SBITS+64(R8), Z19
loop:
	CMPQ CX, $8
	JB done
	VMOVDQU64 0(SI), Z0
	VPCMPQ $1, Z26, Z0, K2
	VPCMPQ $5, Z25, Z0, K3
	KORB K3, K2, K2
	VPSUBQ.BCST OFF(R8), Z0, Z1
	VPSRLQ $43, Z1, Z2
	VPANDQ.BCST IDXMASK(R8), Z2, Z2
	VPSRAQ $52, Z1, Z3
	VCVTQQ2PD Z3, Z3
	VPANDQ.BCST TOP(R8), Z1, Z4
	VPSUBQ Z4, Z0, Z4
	KXNORB K1, K1, K1
	VGATHERQPD 0(R8)(Z2*8), K1, Z6
	KXNORB K1, K1, K1
	VGATHERQPD 8(R8)(Z2*8), K1, Z7
	KXNORB K1, K1, K1
	VGATHERQPD 16(R8)(Z2*8), K1, Z8
	VFMSUB213PD.BCST ONE(R8), Z6, Z4
	VFMADD231PD.BCST LN2HI(R8), Z3, Z7
	VFMADD231PD.BCST LN2LO(R8), Z3, Z8
	VADDPD Z4, Z7, Z5
	VSUBPD Z5, Z7, Z7
	VADDPD Z4, Z7, Z7
	VADDPD Z7, Z8, Z8
	VMULPD.BCST MHALF(R8), Z4, Z6
	VMULPD Z6, Z4, Z7
	VMULPD Z7, Z4, Z9
	VADDPD Z7, Z5, Z0
	VMOVAPD Z7, Z1
	VFMSUB231PD Z4, Z6, Z1
	VADDPD Z1, Z8, Z8
	VSUBPD Z0, Z5, Z5
	VADDPD Z7, Z5, Z5
	VADDPD Z5, Z8, Z8
	VMOVAPD Z20, Z1
	VFMADD231PD.BCST A(5)(R8), Z4, Z1
	VFMADD231PD.BCST A(6)(R8), Z7, Z1
	APAIR8(Z21, 3, Z1, Z2)
	APAIR8(Z22, 1, Z2, Z1)
	VFMADD231PD Z1, Z9, Z8
	VADDPD Z8, Z0, Z1
	VSUBPD Z1, Z0, Z0
	VADDPD Z8, Z0, Z0
	VMOVUPD 0(DX), Z2
	VMULPD Z1, Z2, Z3
	VMOVAPD Z3, Z4
	VFMSUB231PD Z1, Z2, Z4
	VFMADD231PD Z0, Z2, Z4
	VANDPD.BCST ABS(R8), Z3, Z5
	VCMPPD.BCST $6, MAXT(R8), Z5, K3
	KORB K3, K2, K2
	KORTESTB K2, K2
	JNZ done
	VMULPD.BCST INVN(R8), Z3, Z6
	VADDPD.BCST SHIFT(R8), Z6, Z6
	VSUBPD.BCST SHIFT(R8), Z6, Z7
	VFMADD231PD.BCST NLN2HI(R8), Z7, Z3
	VFMADD231PD.BCST NLN2LO(R8), Z7, Z3
	VADDPD Z4, Z3, Z3
	VMOVAPD Z6, Z10
	VPERMI2PD Z17, Z16, Z10
	VMOVAPD Z6, Z11
	VPERMI2PD Z19, Z18, Z11
	VPSLLQ $48, Z6, Z6
	VPADDQ Z6, Z11, Z11
	VMULPD Z3, Z3, Z12
	VMULPD Z12, Z12, Z15
	VMOVAPD Z23, Z13
	VFMADD231PD.BCST C(3)(R8), Z3, Z13
	VMOVAPD Z24, Z14
	VFMADD231PD.BCST C(1)(R8), Z3, Z14
	VFMADD231PD Z13, Z12, Z14
	VMOVAPD Z27, Z13
	VFMADD231PD.BCST C(5)(R8), Z3, Z13
	VFMADD231PD Z13, Z15, Z14
	VFMADD231PD Z14, Z12, Z3
	VADDPD Z10, Z3, Z3
	VMOVAPD Z11, Z0
	VFMADD231PD Z3, Z11, Z0
	VCMPPD.BCST $0, TWO(R8), Z2, K4
	VMOVUPD 0(SI), Z1
	VMULPD Z1, Z1, K4, Z0
	VMOVUPD Z0, 0(DI)
	PNEXT(64, 8)
	PDONE
