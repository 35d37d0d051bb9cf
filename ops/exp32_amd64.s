// Code in this file: float32 Exp in float32 lanes with exp32's operations
// (exp32.go), sixteen lanes a step on AVX-512, eight on AVX2/FMA, and
// LogSumExp's and Softmax's shifted exponentials: each
// fused multiply-add here is one of exp32's fma32, and the product by 2^n
// rounds once as scale2's does, so results match the Go loop's bit for
// bit (TestExp32Kernels).

//go:build amd64 && !purego

#include "textflag.h"
#include "expq_amd64.h"

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
	EXPQ16(exp32c<>, x, n, r, u, q); \
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

// EXP8 turns the eight lanes of Y0 into e^x in Y4, with Y1…Y3, Y5 and
// Y7 free; Y12…Y15 hold the exponent bias, 1, expHi and expLo. The
// product by 2^n is two exact-then-rounding products (scale2).
#define EXP8 \
	VMAXPS Y0, Y15, Y0; \
	VMINPS Y0, Y14, Y0; \
	EXPQ8(exp32c<>, Y0, Y1, Y2, Y5, Y4, Y7); \
	VMULPS Y2, Y2, Y3; \
	VFMADD213PS Y2, Y3, Y4; \
	VMOVAPS Y5, Y3; \
	VFMADD213PS Y5, Y4, Y3; \
	VADDPS Y3, Y4, Y4; \
	VADDPS Y13, Y4, Y4; \
	VCVTPS2DQ Y1, Y1; \
	VPSRAD $1, Y1, Y2; \
	VPSUBD Y2, Y1, Y1; \
	VPADDD Y12, Y2, Y2; \
	VPSLLD $23, Y2, Y2; \
	VPADDD Y12, Y1, Y1; \
	VPSLLD $23, Y1, Y1; \
	VMULPS Y2, Y4, Y4; \
	VMULPS Y1, Y4, Y4

// EXPCONST8 loads EXP8's constants.
#define EXPCONST8 \
	VBROADCASTSS exp32c<>+40(SB), Y15; \
	VBROADCASTSS exp32c<>+44(SB), Y14; \
	VBROADCASTSS exp32c<>+36(SB), Y13; \
	VPBROADCASTD exp32c<>+48(SB), Y12

// func exp32F32(d, a unsafe.Pointer, n int)
// n a multiple of 8; AVX2/FMA, eight lanes a step.
TEXT ·exp32F32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	EXPCONST8
loop:
	CMPQ CX, $8
	JB done
	VMOVUPS 0(SI), Y0
	EXP8
	VMOVUPS Y4, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop
done:
	VZEROUPPER
	RET

// The exponentials of LogSumExp and Softmax (stats_fast.go's
// expShiftF32): d = e^(a − m), the difference rounded to float32 first,
// and Σd in float64 lanes, two accumulators.

// func expSumF32(d, a unsafe.Pointer, n int, m float32) float64
// n a multiple of 8; AVX2/FMA.
TEXT ·expSumF32(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS m+24(FP), Y11
	EXPCONST8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
sloop:
	CMPQ CX, $8
	JB sdone
	VMOVUPS 0(SI), Y0
	VSUBPS Y11, Y0, Y0
	EXP8
	VMOVUPS Y4, 0(DI)
	VCVTPS2PD X4, Y1
	VEXTRACTF128 $1, Y4, X2
	VCVTPS2PD X2, Y2
	VADDPD Y1, Y9, Y9
	VADDPD Y2, Y10, Y10
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP sloop
sdone:
	VADDPD Y10, Y9, Y9
	VEXTRACTF128 $1, Y9, X1
	VADDPD X1, X9, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, ret+32(FP)
	VZEROUPPER
	RET

// func expSumF32AVX512(d, a unsafe.Pointer, n int, m float32) float64
// n a multiple of 16.
TEXT ·expSumF32AVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS m+24(FP), Z23
	VBROADCASTSS exp32c<>+40(SB), Z20
	VBROADCASTSS exp32c<>+44(SB), Z21
	VBROADCASTSS exp32c<>+36(SB), Z22
	VXORPD Z24, Z24, Z24
	VXORPD Z25, Z25, Z25
zloop:
	CMPQ CX, $16
	JB zdone
	VMOVUPS 0(SI), Z0
	VSUBPS Z23, Z0, Z0
	EXP16(Z0, Z1, Z2, Z3, Z4, Z5)
	VMOVUPS Z0, 0(DI)
	VCVTPS2PD Y0, Z1
	VEXTRACTF32X8 $1, Z0, Y2
	VCVTPS2PD Y2, Z2
	VADDPD Z1, Z24, Z24
	VADDPD Z2, Z25, Z25
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP zloop
zdone:
	VADDPD Z25, Z24, Z24
	VEXTRACTF64X4 $1, Z24, Y1
	VADDPD Y1, Y24, Y1
	VEXTRACTF128 $1, Y1, X2
	VADDPD X2, X1, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, ret+32(FP)
	VZEROUPPER
	RET

// func scaleF32(d unsafe.Pointer, n int, r float32)
// d *= r over n float32s, n a multiple of 32 (Softmax's second pass).
TEXT ·scaleF32(SB), NOSPLIT, $0-20
	MOVQ d+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSS r+16(FP), Y8
scloop:
	CMPQ CX, $32
	JB scdone
	VMULPS 0(DI), Y8, Y0
	VMULPS 32(DI), Y8, Y1
	VMULPS 64(DI), Y8, Y2
	VMULPS 96(DI), Y8, Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, DI
	SUBQ $32, CX
	JMP scloop
scdone:
	VZEROUPPER
	RET
