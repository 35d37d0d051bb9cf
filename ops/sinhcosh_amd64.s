// Code in this file: float32 Sinh and Cosh in float32 lanes with
// sinhcosh32.go's operations, sixteen lanes a step on AVX-512, eight on
// AVX2/FMA: each fused multiply-add here is one of sinhCosh32's fma32,
// so results match the Go loop's bit for bit (TestHypKernels).

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"
#include "expq_amd64.h"

DATA hypc<>+0(SB)/4, $0x3fb8aa3b  // log2e
DATA hypc<>+4(SB)/4, $0x3f317218  // ln2 high
DATA hypc<>+8(SB)/4, $0x3102e308  // −ln2 low
DATA hypc<>+12(SB)/4, $0x3f000000 // Q0…Q5: tanhQ
DATA hypc<>+16(SB)/4, $0x3e2aaaaa
DATA hypc<>+20(SB)/4, $0x3d2aaa6c
DATA hypc<>+24(SB)/4, $0x3c0889ae
DATA hypc<>+28(SB)/4, $0x3ab6a841
DATA hypc<>+32(SB)/4, $0x394ec512
DATA hypc<>+36(SB)/4, $0x3e2aaaab // S0…S4: sinhS
DATA hypc<>+40(SB)/4, $0x3c088889
DATA hypc<>+44(SB)/4, $0x39500d01
DATA hypc<>+48(SB)/4, $0x3638ef1d
DATA hypc<>+52(SB)/4, $0x32d7322b
DATA hypc<>+56(SB)/4, $0x3f000000 // C0…C3: coshC
DATA hypc<>+60(SB)/4, $0x3d2aaaab
DATA hypc<>+64(SB)/4, $0x3ab60b61
DATA hypc<>+68(SB)/4, $0x37d00d01
DATA hypc<>+72(SB)/4, $0x3f800000 // 1
DATA hypc<>+76(SB)/4, $0x42b40000 // hypHi 90
DATA hypc<>+80(SB)/4, $0x41c00000 // hypTerm 24
DATA hypc<>+84(SB)/4, $0xc0000000 // −2
DATA hypc<>+88(SB)/4, $0x7fffffff // |x|
DATA hypc<>+92(SB)/4, $0x0000007f // exponent bias 127
DATA hypc<>+96(SB)/4, $0x80000000 // sign
GLOBL hypc<>(SB), RODATA|NOPTR, $100

// HYP16 loads x (Z0) from off(SI) and leaves a = |x| clamped (Z1), n
// (Z2), e_h (Z7), e_l (Z8) and the term 2^(−2m)/E (Z9); Z20…Z22 hold 1,
// hypHi and hypTerm.
#define HYP16(off) \
	VMOVUPS off(SI), Z0; \
	VANDPS.BCST hypc<>+88(SB), Z0, Z1; \
	VMINPS Z1, Z21, Z1; \
	EXPQ16(hypc<>, Z1, Z2, Z3, Z6, Z4); \
	VMULPS Z3, Z3, Z5; \
	VMULPS Z4, Z5, Z5; \
	VADDPS Z5, Z3, Z4; \
	VFMADD213PS Z6, Z6, Z4; \
	VADDPS Z20, Z3, Z7; \
	VSUBPS Z7, Z20, Z8; \
	VADDPS Z3, Z8, Z8; \
	VADDPS Z4, Z5, Z5; \
	VADDPS Z5, Z8, Z8; \
	VADDPS Z8, Z7, Z9; \
	VDIVPS Z9, Z20, Z9; \
	VMINPS Z2, Z22, Z10; \
	VMULPS.BCST hypc<>+84(SB), Z10, Z10; \
	VSCALEFPS Z10, Z9, Z9

// COSH16: e_h + (e_l + term) scaled by 2^(n−1), or the series where n = 0.
#define COSH16(off) \
	HYP16(off); \
	VADDPS Z9, Z8, Z8; \
	VADDPS Z8, Z7, Z7; \
	VCMPPS $0, Z24, Z2, K1; \
	VSUBPS Z20, Z2, Z2; \
	VSCALEFPS Z2, Z7, Z7; \
	VMULPS Z1, Z1, Z11; \
	VBROADCASTSS hypc<>+68(SB), Z12; \
	VFMADD213PS.BCST hypc<>+64(SB), Z11, Z12; \
	VFMADD213PS.BCST hypc<>+60(SB), Z11, Z12; \
	VFMADD213PS.BCST hypc<>+56(SB), Z11, Z12; \
	VFMADD213PS Z20, Z11, Z12; \
	VMOVAPS Z12, K1, Z7; \
	VMOVUPS Z7, off(DI)

// SINH16: e_h + (e_l − term) scaled, or the series where n ≤ 1; x's sign
// ORed in.
#define SINH16(off) \
	HYP16(off); \
	VSUBPS Z9, Z8, Z8; \
	VADDPS Z8, Z7, Z7; \
	VCMPPS $2, Z20, Z2, K1; \
	VSUBPS Z20, Z2, Z2; \
	VSCALEFPS Z2, Z7, Z7; \
	VMULPS Z1, Z1, Z11; \
	VMULPS Z11, Z1, Z13; \
	VBROADCASTSS hypc<>+52(SB), Z12; \
	VFMADD213PS.BCST hypc<>+48(SB), Z11, Z12; \
	VFMADD213PS.BCST hypc<>+44(SB), Z11, Z12; \
	VFMADD213PS.BCST hypc<>+40(SB), Z11, Z12; \
	VFMADD213PS.BCST hypc<>+36(SB), Z11, Z12; \
	VFMADD213PS Z1, Z13, Z12; \
	VMOVAPS Z12, K1, Z7; \
	VANDPS.BCST hypc<>+96(SB), Z0, Z0; \
	VORPS Z0, Z7, Z7; \
	VMOVUPS Z7, off(DI)

// HYP8 is HYP16 in eight lanes on AVX2/FMA: Y14 holds 1, Y15 takes each
// broadcast constant; 2^(−2m) is built from its exponent bits.
#define HYP8(off) \
	VMOVUPS off(SI), Y0; \
	VBROADCASTSS hypc<>+88(SB), Y15; \
	VANDPS Y15, Y0, Y1; \
	VBROADCASTSS hypc<>+76(SB), Y15; \
	VMINPS Y1, Y15, Y1; \
	EXPQ8(hypc<>, Y1, Y2, Y3, Y6, Y4, Y15); \
	VMULPS Y3, Y3, Y5; \
	VMULPS Y4, Y5, Y5; \
	VADDPS Y5, Y3, Y4; \
	VFMADD213PS Y6, Y6, Y4; \
	VADDPS Y14, Y3, Y7; \
	VSUBPS Y7, Y14, Y8; \
	VADDPS Y3, Y8, Y8; \
	VADDPS Y4, Y5, Y5; \
	VADDPS Y5, Y8, Y8; \
	VADDPS Y8, Y7, Y9; \
	VDIVPS Y9, Y14, Y9; \
	VBROADCASTSS hypc<>+80(SB), Y15; \
	VMINPS Y2, Y15, Y10; \
	VCVTPS2DQ Y10, Y10; \
	VPSLLD $1, Y10, Y10; \
	VPBROADCASTD hypc<>+92(SB), Y15; \
	VPSUBD Y10, Y15, Y10; \
	VPSLLD $23, Y10, Y10; \
	VMULPS Y10, Y9, Y9

// SCALE8 multiplies Y7 by 2^(n−1) (n in Y2) in two exact products, as
// scaleUp does; Y10, Y11 and Y15 are scratch.
#define SCALE8 \
	VSUBPS Y14, Y2, Y10; \
	VCVTPS2DQ Y10, Y10; \
	VPSRAD $1, Y10, Y11; \
	VPSUBD Y11, Y10, Y10; \
	VPBROADCASTD hypc<>+92(SB), Y15; \
	VPADDD Y15, Y11, Y11; \
	VPSLLD $23, Y11, Y11; \
	VPADDD Y15, Y10, Y10; \
	VPSLLD $23, Y10, Y10; \
	VMULPS Y11, Y7, Y7; \
	VMULPS Y10, Y7, Y7

#define COSH8(off) \
	HYP8(off); \
	VADDPS Y9, Y8, Y8; \
	VADDPS Y8, Y7, Y7; \
	SCALE8; \
	VXORPS Y13, Y13, Y13; \
	VCMPPS $0, Y13, Y2, Y13; \
	VMULPS Y1, Y1, Y11; \
	VBROADCASTSS hypc<>+68(SB), Y12; \
	VBROADCASTSS hypc<>+64(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VBROADCASTSS hypc<>+60(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VBROADCASTSS hypc<>+56(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VFMADD213PS Y14, Y11, Y12; \
	VBLENDVPS Y13, Y12, Y7, Y7; \
	VMOVUPS Y7, off(DI)

#define SINH8(off) \
	HYP8(off); \
	VSUBPS Y9, Y8, Y8; \
	VADDPS Y8, Y7, Y7; \
	SCALE8; \
	VCMPPS $2, Y14, Y2, Y13; \
	VMULPS Y1, Y1, Y11; \
	VMULPS Y11, Y1, Y10; \
	VBROADCASTSS hypc<>+52(SB), Y12; \
	VBROADCASTSS hypc<>+48(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VBROADCASTSS hypc<>+44(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VBROADCASTSS hypc<>+40(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VBROADCASTSS hypc<>+36(SB), Y15; \
	VFMADD213PS Y15, Y11, Y12; \
	VFMADD213PS Y1, Y10, Y12; \
	VBLENDVPS Y13, Y12, Y7, Y7; \
	VBROADCASTSS hypc<>+96(SB), Y15; \
	VANDPS Y15, Y0, Y0; \
	VORPS Y0, Y7, Y7; \
	VMOVUPS Y7, off(DI)

#define SETUP512 \
	ARGS; \
	VBROADCASTSS hypc<>+72(SB), Z20; \
	VBROADCASTSS hypc<>+76(SB), Z21; \
	VBROADCASTSS hypc<>+80(SB), Z22; \
	VPXORD Z24, Z24, Z24

// func sinhF32(d, a unsafe.Pointer, n int)
// n a multiple of 8; every lane is done here (NaN and ±Inf too). The
// AVX-512 kernels take n a multiple of 16.
TEXT ·sinhF32(SB), NOSPLIT, $0-24
	ARGS
	VBROADCASTSS hypc<>+72(SB), Y14
	ONELOOP(SINH8, 32, 8)

// func coshF32(d, a unsafe.Pointer, n int)
TEXT ·coshF32(SB), NOSPLIT, $0-24
	ARGS
	VBROADCASTSS hypc<>+72(SB), Y14
	ONELOOP(COSH8, 32, 8)

// func sinhF32AVX512(d, a unsafe.Pointer, n int)
TEXT ·sinhF32AVX512(SB), NOSPLIT, $0-24
	SETUP512
	ONELOOP(SINH16, 64, 16)

// func coshF32AVX512(d, a unsafe.Pointer, n int)
TEXT ·coshF32AVX512(SB), NOSPLIT, $0-24
	SETUP512
	ONELOOP(COSH16, 64, 16)
