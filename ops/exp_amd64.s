// Code in this file: AVX2/FMA float32 Sigmoid, computed in
// float64 lanes with math32.go's exp64 (the same clamp, reduction and
// series), so results match the Go kernel's. Chosen at start-up with the
// other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"

DATA expc<>+0(SB)/8, $0xc05b800000000000 // lo
DATA expc<>+8(SB)/8, $0x4086280000000000 // hi
DATA expc<>+16(SB)/8, $0x3ff71547652b82fe // log2e
DATA expc<>+24(SB)/8, $0x3fe62e42fee00000 // ln2hi
DATA expc<>+32(SB)/8, $0x3dea39ef35793c76 // ln2lo
DATA expc<>+40(SB)/8, $0x3efa01a01a01a01a // c8
DATA expc<>+48(SB)/8, $0x3f2a01a01a01a01a // c7
DATA expc<>+56(SB)/8, $0x3f56c16c16c16c17 // c6
DATA expc<>+64(SB)/8, $0x3f81111111111111 // c5
DATA expc<>+72(SB)/8, $0x3fa5555555555555 // c4
DATA expc<>+80(SB)/8, $0x3fc5555555555555 // c3
DATA expc<>+88(SB)/8, $0x3fe0000000000000 // c2
DATA expc<>+96(SB)/8, $0x3ff0000000000000 // one
DATA expc<>+104(SB)/8, $1023
GLOBL expc<>(SB), RODATA|NOPTR, $112

// the series coefficients 1/8! … 1/2!, each in four lanes (FMA memory
// operands are whole vectors)
DATA expv<>+0(SB)/8, $0x3efa01a01a01a01a
DATA expv<>+8(SB)/8, $0x3efa01a01a01a01a
DATA expv<>+16(SB)/8, $0x3efa01a01a01a01a
DATA expv<>+24(SB)/8, $0x3efa01a01a01a01a
DATA expv<>+32(SB)/8, $0x3f2a01a01a01a01a
DATA expv<>+40(SB)/8, $0x3f2a01a01a01a01a
DATA expv<>+48(SB)/8, $0x3f2a01a01a01a01a
DATA expv<>+56(SB)/8, $0x3f2a01a01a01a01a
DATA expv<>+64(SB)/8, $0x3f56c16c16c16c17
DATA expv<>+72(SB)/8, $0x3f56c16c16c16c17
DATA expv<>+80(SB)/8, $0x3f56c16c16c16c17
DATA expv<>+88(SB)/8, $0x3f56c16c16c16c17
DATA expv<>+96(SB)/8, $0x3f81111111111111
DATA expv<>+104(SB)/8, $0x3f81111111111111
DATA expv<>+112(SB)/8, $0x3f81111111111111
DATA expv<>+120(SB)/8, $0x3f81111111111111
DATA expv<>+128(SB)/8, $0x3fa5555555555555
DATA expv<>+136(SB)/8, $0x3fa5555555555555
DATA expv<>+144(SB)/8, $0x3fa5555555555555
DATA expv<>+152(SB)/8, $0x3fa5555555555555
DATA expv<>+160(SB)/8, $0x3fc5555555555555
DATA expv<>+168(SB)/8, $0x3fc5555555555555
DATA expv<>+176(SB)/8, $0x3fc5555555555555
DATA expv<>+184(SB)/8, $0x3fc5555555555555
DATA expv<>+192(SB)/8, $0x3fe0000000000000
DATA expv<>+200(SB)/8, $0x3fe0000000000000
DATA expv<>+208(SB)/8, $0x3fe0000000000000
DATA expv<>+216(SB)/8, $0x3fe0000000000000
GLOBL expv<>(SB), RODATA|NOPTR, $224


// func sigmoidF32(d, a unsafe.Pointer, n int)
// n is a multiple of 8: d = 1/(1+e^−a).
TEXT ·sigmoidF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD expc<>+0(SB), Y8
	VBROADCASTSD expc<>+8(SB), Y9
	VBROADCASTSD expc<>+16(SB), Y10
	VBROADCASTSD expc<>+24(SB), Y11
	VBROADCASTSD expc<>+32(SB), Y12
	VBROADCASTSD expc<>+96(SB), Y13
	VPBROADCASTQ expc<>+104(SB), Y14
	VXORPD Y15, Y15, Y15
loop:
	CMPQ CX, $8
	JB done
	VCVTPS2PD 0(SI), Y0
	VCVTPS2PD 16(SI), Y4
	VSUBPD Y0, Y15, Y0
	VSUBPD Y4, Y15, Y4
	VMAXPD Y0, Y8, Y0
	VMINPD Y0, Y9, Y0
	VMULPD Y10, Y0, Y1
	VROUNDPD $0, Y1, Y1
	VFNMADD231PD Y11, Y1, Y0
	VFNMADD231PD Y12, Y1, Y0
	VMOVUPD expv<>+0(SB), Y2
	VFMADD213PD expv<>+32(SB), Y0, Y2
	VFMADD213PD expv<>+64(SB), Y0, Y2
	VFMADD213PD expv<>+96(SB), Y0, Y2
	VFMADD213PD expv<>+128(SB), Y0, Y2
	VFMADD213PD expv<>+160(SB), Y0, Y2
	VFMADD213PD expv<>+192(SB), Y0, Y2
	VFMADD213PD Y13, Y0, Y2
	VFMADD213PD Y13, Y0, Y2
	VCVTPD2DQY Y1, X3
	VPMOVSXDQ X3, Y3
	VPADDQ Y14, Y3, Y3
	VPSLLQ $52, Y3, Y3
	VMULPD Y3, Y2, Y2
	VMAXPD Y4, Y8, Y4
	VMINPD Y4, Y9, Y4
	VMULPD Y10, Y4, Y5
	VROUNDPD $0, Y5, Y5
	VFNMADD231PD Y11, Y5, Y4
	VFNMADD231PD Y12, Y5, Y4
	VMOVUPD expv<>+0(SB), Y6
	VFMADD213PD expv<>+32(SB), Y4, Y6
	VFMADD213PD expv<>+64(SB), Y4, Y6
	VFMADD213PD expv<>+96(SB), Y4, Y6
	VFMADD213PD expv<>+128(SB), Y4, Y6
	VFMADD213PD expv<>+160(SB), Y4, Y6
	VFMADD213PD expv<>+192(SB), Y4, Y6
	VFMADD213PD Y13, Y4, Y6
	VFMADD213PD Y13, Y4, Y6
	VCVTPD2DQY Y5, X7
	VPMOVSXDQ X7, Y7
	VPADDQ Y14, Y7, Y7
	VPSLLQ $52, Y7, Y7
	VMULPD Y7, Y6, Y6
	VADDPD Y13, Y2, Y2
	VDIVPD Y2, Y13, Y2
	VADDPD Y13, Y6, Y6
	VDIVPD Y6, Y13, Y6
	VCVTPD2PSY Y2, X2
	VCVTPD2PSY Y6, X6
	VMOVUPS X2, 0(DI)
	VMOVUPS X6, 16(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop
done:
	VZEROUPPER
	RET

// EXP8 is e^x in eight float64 lanes on AVX-512, sigmoidF32's clamp,
// reduction and series (x is clamped and reduced in place; p gets the
// result; k and t are scratch, y is t's Y register). Z8–Z14 hold lo, hi,
// log2e, ln2hi, ln2lo, 1 and 1023 as in sigmoidF32.
#define EXP8(x, k, p, t, y) \
	VMAXPD x, Z8, x; \
	VMINPD x, Z9, x; \
	VMULPD Z10, x, k; \
	VRNDSCALEPD $0, k, k; \
	VFNMADD231PD Z11, k, x; \
	VFNMADD231PD Z12, k, x; \
	VBROADCASTSD expc<>+40(SB), p; \
	VFMADD213PD.BCST expc<>+48(SB), x, p; \
	VFMADD213PD.BCST expc<>+56(SB), x, p; \
	VFMADD213PD.BCST expc<>+64(SB), x, p; \
	VFMADD213PD.BCST expc<>+72(SB), x, p; \
	VFMADD213PD.BCST expc<>+80(SB), x, p; \
	VFMADD213PD.BCST expc<>+88(SB), x, p; \
	VFMADD213PD Z13, x, p; \
	VFMADD213PD Z13, x, p; \
	VCVTPD2DQ k, y; \
	VPMOVSXDQ y, t; \
	VPADDQ Z14, t, t; \
	VPSLLQ $52, t, t; \
	VMULPD t, p, p

// func sigmoidF32AVX512(d, a unsafe.Pointer, n int)
// sigmoidF32 for n a multiple of 16 on AVX-512 (F, DQ, VL): the same
// lanes' arithmetic, two chains of eight float64 lanes a step.
TEXT ·sigmoidF32AVX512(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD expc<>+0(SB), Z8
	VBROADCASTSD expc<>+8(SB), Z9
	VBROADCASTSD expc<>+16(SB), Z10
	VBROADCASTSD expc<>+24(SB), Z11
	VBROADCASTSD expc<>+32(SB), Z12
	VBROADCASTSD expc<>+96(SB), Z13
	VPBROADCASTQ expc<>+104(SB), Z14
	VPXORQ Z15, Z15, Z15
loop512:
	CMPQ CX, $16
	JB done512
	VCVTPS2PD 0(SI), Z0
	VCVTPS2PD 32(SI), Z16
	VSUBPD Z0, Z15, Z0
	VSUBPD Z16, Z15, Z16
	EXP8(Z0, Z1, Z2, Z3, Y3)
	EXP8(Z16, Z17, Z18, Z19, Y19)
	VADDPD Z13, Z2, Z2
	VDIVPD Z2, Z13, Z2
	VADDPD Z13, Z18, Z18
	VDIVPD Z18, Z13, Z18
	VCVTPD2PS Z2, Y2
	VCVTPD2PS Z18, Y18
	VMOVUPS Y2, 0(DI)
	VMOVUPS Y18, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop512
done512:
	VZEROUPPER
	RET
