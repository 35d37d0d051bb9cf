// Code in this file: float32 Exp in float32 lanes with exp32's operations
// (exp32.go), sixteen lanes a step on AVX-512, eight on AVX2/FMA: each
// fused multiply-add here is one of exp32's fma32, and the product by 2^n
// rounds once as scale2's does, so results match the Go loop's bit for
// bit (TestExp32Kernels).

//go:build amd64 && !purego

#include "textflag.h"

DATA exp32c<>+0(SB)/4, $0x3fb8aa3b // log2e
DATA exp32c<>+4(SB)/4, $0x3f317218 // ln2 high
DATA exp32c<>+8(SB)/4, $0x3102e308 // -ln2 low
DATA exp32c<>+12(SB)/4, $0x3f000000 // Q0
DATA exp32c<>+16(SB)/4, $0x3e2aaaaa // Q1
DATA exp32c<>+20(SB)/4, $0x3d2aaa6c // Q2
DATA exp32c<>+24(SB)/4, $0x3c0889ae // Q3
DATA exp32c<>+28(SB)/4, $0x3ab6a841 // Q4
DATA exp32c<>+32(SB)/4, $0x394ec512 // Q5
DATA exp32c<>+36(SB)/4, $0x3f800000 // 1
DATA exp32c<>+40(SB)/4, $0xc2d00000 // expLo -104
DATA exp32c<>+44(SB)/4, $0x42b20000 // expHi 89
DATA exp32c<>+48(SB)/4, $0x0000007f // exponent bias 127
GLOBL exp32c<>(SB), RODATA|NOPTR, $52

// EXP16 turns the sixteen lanes of x into e^x in x, with n, r, t, q, u
// free; Z20…Z22 hold expLo, expHi and 1.
#define EXP16(x, n, r, t, q, u) \
	VMAXPS x, Z20, x; \
	VMINPS x, Z21, x; \
	VMULPS.BCST exp32c<>+0(SB), x, n; \
	VRNDSCALEPS $0, n, n; \
	VMOVAPS x, r; \
	VFNMADD231PS.BCST exp32c<>+4(SB), n, r; \
	VMULPS.BCST exp32c<>+8(SB), n, u; \
	VBROADCASTSS exp32c<>+32(SB), q; \
	VFMADD213PS.BCST exp32c<>+28(SB), r, q; \
	VFMADD213PS.BCST exp32c<>+24(SB), r, q; \
	VFMADD213PS.BCST exp32c<>+20(SB), r, q; \
	VFMADD213PS.BCST exp32c<>+16(SB), r, q; \
	VFMADD213PS.BCST exp32c<>+12(SB), r, q; \
	VMULPS r, r, t; \
	VFMADD213PS r, t, q; \
	VMOVAPS u, t; \
	VFMADD213PS u, q, t; \
	VADDPS t, q, q; \
	VADDPS Z22, q, q; \
	VSCALEFPS n, q, x

// func exp32F32AVX512(d, a unsafe.Pointer, n int)
// n a multiple of 16; two chains of sixteen lanes while 32 are left.
TEXT ·exp32F32AVX512(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS exp32c<>+40(SB), Z20
	VBROADCASTSS exp32c<>+44(SB), Z21
	VBROADCASTSS exp32c<>+36(SB), Z22
loop2:
	CMPQ CX, $32
	JB loop1
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z10
	EXP16(Z0, Z1, Z2, Z3, Z4, Z5)
	EXP16(Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z10, 64(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop2
loop1:
	CMPQ CX, $16
	JB done512
	VMOVUPS 0(SI), Z0
	EXP16(Z0, Z1, Z2, Z3, Z4, Z5)
	VMOVUPS Z0, 0(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop1
done512:
	VZEROUPPER
	RET

// func exp32F32(d, a unsafe.Pointer, n int)
// n a multiple of 8; AVX2/FMA, eight lanes a step. Y12…Y15 hold the
// exponent bias, 1, expHi and expLo; Y7 takes each other constant. The
// product by 2^n is two exact-then-rounding products (scale2).
TEXT ·exp32F32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS exp32c<>+40(SB), Y15
	VBROADCASTSS exp32c<>+44(SB), Y14
	VBROADCASTSS exp32c<>+36(SB), Y13
	VPBROADCASTD exp32c<>+48(SB), Y12
loop:
	CMPQ CX, $8
	JB done
	VMOVUPS 0(SI), Y0
	VMAXPS Y0, Y15, Y0
	VMINPS Y0, Y14, Y0
	VBROADCASTSS exp32c<>+0(SB), Y7
	VMULPS Y7, Y0, Y1
	VROUNDPS $0, Y1, Y1 // n
	VMOVAPS Y0, Y2
	VBROADCASTSS exp32c<>+4(SB), Y7
	VFNMADD231PS Y7, Y1, Y2 // r
	VBROADCASTSS exp32c<>+8(SB), Y7
	VMULPS Y7, Y1, Y5 // r_lo
	VBROADCASTSS exp32c<>+32(SB), Y4
	VBROADCASTSS exp32c<>+28(SB), Y7
	VFMADD213PS Y7, Y2, Y4
	VBROADCASTSS exp32c<>+24(SB), Y7
	VFMADD213PS Y7, Y2, Y4
	VBROADCASTSS exp32c<>+20(SB), Y7
	VFMADD213PS Y7, Y2, Y4
	VBROADCASTSS exp32c<>+16(SB), Y7
	VFMADD213PS Y7, Y2, Y4
	VBROADCASTSS exp32c<>+12(SB), Y7
	VFMADD213PS Y7, Y2, Y4
	VMULPS Y2, Y2, Y3
	VFMADD213PS Y2, Y3, Y4 // p
	VMOVAPS Y5, Y3
	VFMADD213PS Y5, Y4, Y3 // r_lo·e^r
	VADDPS Y3, Y4, Y4
	VADDPS Y13, Y4, Y4 // y
	VCVTPS2DQ Y1, Y1 // k
	VPSRAD $1, Y1, Y2 // k1
	VPSUBD Y2, Y1, Y1 // k − k1
	VPADDD Y12, Y2, Y2
	VPSLLD $23, Y2, Y2
	VPADDD Y12, Y1, Y1
	VPSLLD $23, Y1, Y1
	VMULPS Y2, Y4, Y4
	VMULPS Y1, Y4, Y4
	VMOVUPS Y4, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop
done:
	VZEROUPPER
	RET
