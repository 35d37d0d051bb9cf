// Code in this file: float32 Tanh in float32 lanes with tanh32's operations
// (tanh32.go), sixteen lanes a step on AVX-512, eight on AVX2/FMA: each
// fused multiply-add here is one of tanh32's fma32, so results match the
// Go loop's bit for bit (TestTanhKernels).

//go:build amd64 && !purego

#include "textflag.h"

DATA tanhc<>+0(SB)/4, $0x7fffffff // |x| mask
DATA tanhc<>+4(SB)/4, $0x80000000 // sign
DATA tanhc<>+8(SB)/4, $0x3f19999a // tanhSmall 0.6
DATA tanhc<>+12(SB)/4, $0x4111999a // tanhBig 9.1
DATA tanhc<>+16(SB)/4, $0x3fb8aa3b // tanhLog2e
DATA tanhc<>+20(SB)/4, $0x3f317218 // tanhLn2Hi
DATA tanhc<>+24(SB)/4, $0xb102e308 // tanhLn2Lo
DATA tanhc<>+28(SB)/4, $0x3f800000 // 1
DATA tanhc<>+32(SB)/4, $0x40000000 // 2
DATA tanhc<>+36(SB)/4, $0x7ef311c3 // tanhMagic
DATA tanhc<>+40(SB)/4, $0xbeaaaaa2 // tanhP[0]
DATA tanhc<>+44(SB)/4, $0x3e08856e
DATA tanhc<>+48(SB)/4, $0xbd5c606c
DATA tanhc<>+52(SB)/4, $0x3caae3da
DATA tanhc<>+56(SB)/4, $0xbbc3a9c5 // tanhP[4]
DATA tanhc<>+60(SB)/4, $0x3f000000 // tanhQ[0]
DATA tanhc<>+64(SB)/4, $0x3e2aaaaa
DATA tanhc<>+68(SB)/4, $0x3d2aaa6c
DATA tanhc<>+72(SB)/4, $0x3c0889ae
DATA tanhc<>+76(SB)/4, $0x3ab6a841
DATA tanhc<>+80(SB)/4, $0x394ec512 // tanhQ[5]
GLOBL tanhc<>(SB), RODATA|NOPTR, $84

// TANH16 turns the sixteen lanes of x into tanh x in o, with t1…t5 free;
// Z20…Z25 hold |x| mask, 1, 2, tanhMagic, tanhSmall, tanhBig.
#define TANH16(x, a, t1, t2, t3, t4, t5, o) \
	VANDPS Z20, x, a; \
	VADDPS a, a, t1; \
	VMULPS.BCST tanhc<>+16(SB), t1, t2; \
	VRNDSCALEPS $0, t2, t2; \
	VFNMADD231PS.BCST tanhc<>+20(SB), t2, t1; \
	VFNMADD231PS.BCST tanhc<>+24(SB), t2, t1; \
	VBROADCASTSS tanhc<>+80(SB), t3; \
	VFMADD213PS.BCST tanhc<>+76(SB), t1, t3; \
	VFMADD213PS.BCST tanhc<>+72(SB), t1, t3; \
	VFMADD213PS.BCST tanhc<>+68(SB), t1, t3; \
	VFMADD213PS.BCST tanhc<>+64(SB), t1, t3; \
	VFMADD213PS.BCST tanhc<>+60(SB), t1, t3; \
	VMULPS t1, t1, t4; \
	VFMADD213PS t1, t4, t3; \
	VSCALEFPS t2, Z21, t4; \
	VSUBPS Z21, t4, t1; \
	VFMADD213PS t1, t4, t3; \
	VADDPS Z22, t3, t4; \
	VSUBPS t4, t3, t1; \
	VADDPS Z22, t1, t1; \
	VDIVPS t4, t3, t2; \
	VMOVAPS t3, o; \
	VFNMADD231PS t4, t2, o; \
	VFNMADD231PS t1, t2, o; \
	VPSUBD t4, Z23, t1; \
	VMOVAPS Z21, t5; \
	VFNMADD231PS t1, t4, t5; \
	VFMADD213PS t1, t5, t1; \
	VFMADD213PS t2, t1, o; \
	VMULPS a, a, t1; \
	VBROADCASTSS tanhc<>+56(SB), t2; \
	VFMADD213PS.BCST tanhc<>+52(SB), t1, t2; \
	VFMADD213PS.BCST tanhc<>+48(SB), t1, t2; \
	VFMADD213PS.BCST tanhc<>+44(SB), t1, t2; \
	VFMADD213PS.BCST tanhc<>+40(SB), t1, t2; \
	VMULPS t1, a, t3; \
	VFMADD213PS a, t3, t2; \
	VCMPPS $1, Z24, a, K1; \
	VBLENDMPS t2, o, K1, o; \
	VCMPPS $13, Z25, a, K2; \
	VMOVAPS Z21, K2, o; \
	VANDNPS x, Z20, t1; \
	VORPS t1, o, o; \
	VCMPPS $3, x, x, K3; \
	VMOVAPS x, K3, o

// func tanhF32AVX512(d, a unsafe.Pointer, n int)
// n a multiple of 16; two chains of sixteen lanes while 32 are left.
TEXT ·tanhF32AVX512(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS tanhc<>+0(SB), Z20
	VBROADCASTSS tanhc<>+28(SB), Z21
	VBROADCASTSS tanhc<>+32(SB), Z22
	VBROADCASTSS tanhc<>+36(SB), Z23
	VBROADCASTSS tanhc<>+8(SB), Z24
	VBROADCASTSS tanhc<>+12(SB), Z25
loop2:
	CMPQ CX, $32
	JB loop1
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z10
	TANH16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	TANH16(Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17)
	VMOVUPS Z7, 0(DI)
	VMOVUPS Z17, 64(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop2
loop1:
	CMPQ CX, $16
	JB done512
	VMOVUPS 0(SI), Z0
	TANH16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z7, 0(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop1
done512:
	VZEROUPPER
	RET

// func tanhF32(d, a unsafe.Pointer, n int)
// n a multiple of 8; AVX2/FMA, eight lanes a step. Y12…Y15 hold
// tanhMagic, 2, 1 and the |x| mask; Y7 takes each other constant.
TEXT ·tanhF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS tanhc<>+0(SB), Y15
	VBROADCASTSS tanhc<>+28(SB), Y14
	VBROADCASTSS tanhc<>+32(SB), Y13
	VBROADCASTSS tanhc<>+36(SB), Y12
loop:
	CMPQ CX, $8
	JB done
	VMOVUPS 0(SI), Y0
	VANDPS Y15, Y0, Y1
	VADDPS Y1, Y1, Y2
	VBROADCASTSS tanhc<>+16(SB), Y3
	VMULPS Y3, Y2, Y3
	VROUNDPS $0, Y3, Y3
	VMOVAPS Y2, Y4
	VBROADCASTSS tanhc<>+20(SB), Y7
	VFNMADD231PS Y7, Y3, Y4
	VBROADCASTSS tanhc<>+24(SB), Y7
	VFNMADD231PS Y7, Y3, Y4
	VBROADCASTSS tanhc<>+80(SB), Y5
	VBROADCASTSS tanhc<>+76(SB), Y7
	VFMADD213PS Y7, Y4, Y5
	VBROADCASTSS tanhc<>+72(SB), Y7
	VFMADD213PS Y7, Y4, Y5
	VBROADCASTSS tanhc<>+68(SB), Y7
	VFMADD213PS Y7, Y4, Y5
	VBROADCASTSS tanhc<>+64(SB), Y7
	VFMADD213PS Y7, Y4, Y5
	VBROADCASTSS tanhc<>+60(SB), Y7
	VFMADD213PS Y7, Y4, Y5
	VMULPS Y4, Y4, Y2
	VFMADD213PS Y4, Y2, Y5 // p
	VCVTPS2DQ Y3, Y2
	VPSLLD $23, Y2, Y2
	VPADDD Y14, Y2, Y2 // s = 2^n
	VSUBPS Y14, Y2, Y3
	VFMADD213PS Y3, Y2, Y5 // m
	VADDPS Y13, Y5, Y2 // d
	VSUBPS Y2, Y5, Y3
	VADDPS Y13, Y3, Y3 // dd
	VDIVPS Y2, Y5, Y4 // t
	VMOVAPS Y5, Y6
	VFNMADD231PS Y2, Y4, Y6
	VFNMADD231PS Y3, Y4, Y6 // res
	VPSUBD Y2, Y12, Y3 // rc
	VMOVAPS Y14, Y5
	VFNMADD231PS Y3, Y2, Y5
	VFMADD213PS Y3, Y5, Y3
	VFMADD213PS Y4, Y3, Y6 // |x| ≥ 0.6
	VMULPS Y1, Y1, Y2
	VBROADCASTSS tanhc<>+56(SB), Y3
	VBROADCASTSS tanhc<>+52(SB), Y7
	VFMADD213PS Y7, Y2, Y3
	VBROADCASTSS tanhc<>+48(SB), Y7
	VFMADD213PS Y7, Y2, Y3
	VBROADCASTSS tanhc<>+44(SB), Y7
	VFMADD213PS Y7, Y2, Y3
	VBROADCASTSS tanhc<>+40(SB), Y7
	VFMADD213PS Y7, Y2, Y3
	VMULPS Y2, Y1, Y4
	VFMADD213PS Y1, Y4, Y3 // |x| < 0.6
	VBROADCASTSS tanhc<>+8(SB), Y7
	VCMPPS $1, Y7, Y1, Y7
	VBLENDVPS Y7, Y3, Y6, Y6
	VBROADCASTSS tanhc<>+12(SB), Y7
	VCMPPS $13, Y7, Y1, Y7
	VBLENDVPS Y7, Y14, Y6, Y6
	VANDNPS Y0, Y15, Y7
	VORPS Y7, Y6, Y6
	VCMPPS $3, Y0, Y0, Y7
	VBLENDVPS Y7, Y0, Y6, Y6
	VMOVUPS Y6, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop
done:
	VZEROUPPER
	RET
