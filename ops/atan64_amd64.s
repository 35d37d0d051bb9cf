// Code in this file: float64 Atan, Asin and Acos with atan64.go's
// operations (package math's, unfused): eight lanes a step on AVX-512,
// four on AVX2, every lane (NaN, ±Inf, ±0 too), so they give the Go
// loop's bits (TestAtan64).

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

DATA a64c<>+0(SB)/8, $0x7fffffffffffffff // |x|
DATA a64c<>+8(SB)/8, $0x8000000000000000 // sign
DATA a64c<>+16(SB)/8, $0x3ff0000000000000 // 1
DATA a64c<>+24(SB)/8, $0x3fe51eb851eb851f // 0.66
DATA a64c<>+32(SB)/8, $0x4003504f333f9de6 // tan(3π/8)
DATA a64c<>+40(SB)/8, $0x3ff921fb54442d18 // π/2
DATA a64c<>+48(SB)/8, $0x3fe921fb54442d18 // π/4
DATA a64c<>+56(SB)/8, $0x3c91a62633145c07 // morebits
DATA a64c<>+64(SB)/8, $0x3c81a62633145c07 // morebits/2
DATA a64c<>+72(SB)/8, $0x3fe6666666666666 // 0.7
DATA a64c<>+80(SB)/8, $0xbfec007fa1f72594 // P0
DATA a64c<>+88(SB)/8, $0xc03028545b6b807a // P1
DATA a64c<>+96(SB)/8, $0xc052c08c36880273 // P2
DATA a64c<>+104(SB)/8, $0xc05eb8bf2d05ba25 // P3
DATA a64c<>+112(SB)/8, $0xc0503669fd28ec8e // P4
DATA a64c<>+120(SB)/8, $0x4038dbc45b14603c // Q0
DATA a64c<>+128(SB)/8, $0x4064a0dd43b8fa25 // Q1
DATA a64c<>+136(SB)/8, $0x407b0e18d2e2be3b // Q2
DATA a64c<>+144(SB)/8, $0x407e563f13b049ea // Q3
DATA a64c<>+152(SB)/8, $0x4068519efbbd62ec // Q4
GLOBL a64c<>(SB), RODATA|NOPTR, $160

// SATAN8 is satan64 of the eight a ≥ 0 (or NaN) in Z1, into Z2 (Z3…Z7,
// K1, K2 change; Z31 = 1): K1 marks a ≤ 0.66 (xatan(a)), K2 a >
// tan(3π/8) (π/2 − xatan(1/a) + morebits), the rest π/4 + xatan((a−1)/
// (a+1)) + morebits/2.
#define SATAN8 \
	VCMPPD.BCST $2, a64c<>+24(SB), Z1, K1; \
	VCMPPD.BCST $14, a64c<>+32(SB), Z1, K2; \
	VSUBPD Z31, Z1, Z3; \
	VADDPD Z31, Z1, Z4; \
	VMOVAPD Z1, K1, Z3; \
	VMOVAPD Z31, K1, Z4; \
	VMOVAPD Z31, K2, Z3; \
	VMOVAPD Z1, K2, Z4; \
	VDIVPD Z4, Z3, Z3; \
	VMULPD Z3, Z3, Z5; \
	VBROADCASTSD a64c<>+80(SB), Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST a64c<>+88(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST a64c<>+96(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST a64c<>+104(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST a64c<>+112(SB), Z6, Z6; \
	VADDPD.BCST a64c<>+120(SB), Z5, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST a64c<>+128(SB), Z7, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST a64c<>+136(SB), Z7, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST a64c<>+144(SB), Z7, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST a64c<>+152(SB), Z7, Z7; \
	VMULPD Z6, Z5, Z5; \
	VDIVPD Z7, Z5, Z5; \
	VMULPD Z5, Z3, Z5; \
	VADDPD Z3, Z5, Z5; \
	VXORPD.BCST a64c<>+8(SB), Z5, K2, Z5; \
	VBROADCASTSD a64c<>+48(SB), Z6; \
	VBROADCASTSD a64c<>+40(SB), K2, Z6; \
	VXORPD Z6, Z6, K1, Z6; \
	VBROADCASTSD a64c<>+64(SB), Z7; \
	VBROADCASTSD a64c<>+56(SB), K2, Z7; \
	VXORPD Z7, Z7, K1, Z7; \
	VADDPD Z5, Z6, Z2; \
	VADDPD Z7, Z2, Z2

// ATAND8 is atanF64one of the eight float64s at off(SI), stored at
// off(DI): satan of |x| with x's sign.
#define ATAND8(off) \
	VMOVUPD off(SI), Z0; \
	VANDPD.BCST a64c<>+0(SB), Z0, Z1; \
	SATAN8; \
	VANDPD.BCST a64c<>+8(SB), Z0, Z3; \
	VORPD Z3, Z2, Z2; \
	VMOVUPD Z2, off(DI)

// ASIN8 is asinF64one of the eight float64s at off(SI) into Z2: q =
// √(1 − a·a); where a > 0.7 (K3) π/2 − satan(q/a), else satan(a/q); x's
// sign (Z8…Z11, K3 change).
#define ASIN8(off) \
	VMOVUPD off(SI), Z0; \
	VANDPD.BCST a64c<>+0(SB), Z0, Z8; \
	VMULPD Z8, Z8, Z9; \
	VSUBPD Z9, Z31, Z9; \
	VSQRTPD Z9, Z9; \
	VCMPPD.BCST $14, a64c<>+72(SB), Z8, K3; \
	VMOVAPD Z8, Z10; \
	VMOVAPD Z9, Z11; \
	VMOVAPD Z9, K3, Z10; \
	VMOVAPD Z8, K3, Z11; \
	VDIVPD Z11, Z10, Z1; \
	SATAN8; \
	VSUBPD Z2, Z30, K3, Z2; \
	VANDPD.BCST a64c<>+8(SB), Z0, Z3; \
	VORPD Z3, Z2, Z2

#define ASIND8(off) \
	ASIN8(off); \
	VMOVUPD Z2, off(DI)

// ACOSD8 is acosF64one: π/2 − asin.
#define ACOSD8(off) \
	ASIN8(off); \
	VSUBPD Z2, Z30, Z2; \
	VMOVUPD Z2, off(DI)

// SATAN4 is SATAN8 in four lanes on AVX2, a in Y1 into Y2 (Y3…Y10
// change; Y8, Y9 hold the masks, Y15 = 1, Y13 the sign bit, Y12 = π/2).
#define SATAN4 \
	VBROADCASTSD a64c<>+24(SB), Y10; \
	VCMPPD $2, Y10, Y1, Y8; \
	VBROADCASTSD a64c<>+32(SB), Y10; \
	VCMPPD $14, Y10, Y1, Y9; \
	VSUBPD Y15, Y1, Y3; \
	VADDPD Y15, Y1, Y4; \
	VBLENDVPD Y8, Y1, Y3, Y3; \
	VBLENDVPD Y8, Y15, Y4, Y4; \
	VBLENDVPD Y9, Y15, Y3, Y3; \
	VBLENDVPD Y9, Y1, Y4, Y4; \
	VDIVPD Y4, Y3, Y3; \
	VMULPD Y3, Y3, Y5; \
	VBROADCASTSD a64c<>+80(SB), Y6; \
	VMULPD Y5, Y6, Y6; \
	ADDC4(88, Y6); \
	VMULPD Y5, Y6, Y6; \
	ADDC4(96, Y6); \
	VMULPD Y5, Y6, Y6; \
	ADDC4(104, Y6); \
	VMULPD Y5, Y6, Y6; \
	ADDC4(112, Y6); \
	VBROADCASTSD a64c<>+120(SB), Y7; \
	VADDPD Y5, Y7, Y7; \
	VMULPD Y5, Y7, Y7; \
	ADDC4(128, Y7); \
	VMULPD Y5, Y7, Y7; \
	ADDC4(136, Y7); \
	VMULPD Y5, Y7, Y7; \
	ADDC4(144, Y7); \
	VMULPD Y5, Y7, Y7; \
	ADDC4(152, Y7); \
	VMULPD Y6, Y5, Y5; \
	VDIVPD Y7, Y5, Y5; \
	VMULPD Y5, Y3, Y5; \
	VADDPD Y3, Y5, Y5; \
	VANDPD Y13, Y9, Y10; \
	VXORPD Y10, Y5, Y5; \
	VBROADCASTSD a64c<>+48(SB), Y6; \
	VXORPD Y7, Y7, Y7; \
	VBLENDVPD Y8, Y7, Y6, Y6; \
	VBLENDVPD Y9, Y12, Y6, Y6; \
	VBROADCASTSD a64c<>+64(SB), Y4; \
	VBLENDVPD Y8, Y7, Y4, Y4; \
	VBROADCASTSD a64c<>+56(SB), Y10; \
	VBLENDVPD Y9, Y10, Y4, Y4; \
	VADDPD Y5, Y6, Y2; \
	VADDPD Y4, Y2, Y2

// ADDC4 adds the constant at a64c+off to r (Y10 takes it).
#define ADDC4(off, r) \
	VBROADCASTSD a64c<>+off(SB), Y10; \
	VADDPD Y10, r, r

#define ATAND4(off) \
	VMOVUPD off(SI), Y0; \
	VANDPD Y14, Y0, Y1; \
	SATAN4; \
	VANDPD Y13, Y0, Y3; \
	VORPD Y3, Y2, Y2; \
	VMOVUPD Y2, off(DI)

// ASIN4 is ASIN8 in four lanes (Y11 holds the mask a > 0.7).
#define ASIN4(off) \
	VMOVUPD off(SI), Y0; \
	VANDPD Y14, Y0, Y1; \
	VMULPD Y1, Y1, Y3; \
	VSUBPD Y3, Y15, Y3; \
	VSQRTPD Y3, Y3; \
	VBROADCASTSD a64c<>+72(SB), Y10; \
	VCMPPD $14, Y10, Y1, Y11; \
	VBLENDVPD Y11, Y3, Y1, Y4; \
	VBLENDVPD Y11, Y1, Y3, Y5; \
	VDIVPD Y5, Y4, Y1; \
	SATAN4; \
	VSUBPD Y2, Y12, Y3; \
	VBLENDVPD Y11, Y3, Y2, Y2; \
	VANDPD Y13, Y0, Y3; \
	VORPD Y3, Y2, Y2

#define ASIND4(off) \
	ASIN4(off); \
	VMOVUPD Y2, off(DI)

#define ACOSD4(off) \
	ASIN4(off); \
	VSUBPD Y2, Y12, Y2; \
	VMOVUPD Y2, off(DI)

// SETUPA8 and SETUPA4 load the arguments and the constants kept in
// registers.
#define SETUPA8 \
	ARGS; \
	VBROADCASTSD a64c<>+16(SB), Z31; \
	VBROADCASTSD a64c<>+40(SB), Z30

#define SETUPA4 \
	ARGS; \
	VBROADCASTSD a64c<>+16(SB), Y15; \
	VBROADCASTSD a64c<>+0(SB), Y14; \
	VBROADCASTSD a64c<>+8(SB), Y13; \
	VBROADCASTSD a64c<>+40(SB), Y12

// func atanF64(d, a unsafe.Pointer, n int)
// n a multiple of 4; and so on for the AVX2 kernels below (n a multiple
// of 8 for the AVX-512 ones).
TEXT ·atanF64(SB), NOSPLIT, $0-24
	SETUPA4
	ONELOOP(ATAND4, 32, 4)

// func atanF64AVX512(d, a unsafe.Pointer, n int)
TEXT ·atanF64AVX512(SB), NOSPLIT, $0-24
	SETUPA8
	ONELOOP(ATAND8, 64, 8)

// func asinF64(d, a unsafe.Pointer, n int)
TEXT ·asinF64(SB), NOSPLIT, $0-24
	SETUPA4
	ONELOOP(ASIND4, 32, 4)

// func asinF64AVX512(d, a unsafe.Pointer, n int)
TEXT ·asinF64AVX512(SB), NOSPLIT, $0-24
	SETUPA8
	ONELOOP(ASIND8, 64, 8)

// func acosF64(d, a unsafe.Pointer, n int)
TEXT ·acosF64(SB), NOSPLIT, $0-24
	SETUPA4
	ONELOOP(ACOSD4, 32, 4)

// func acosF64AVX512(d, a unsafe.Pointer, n int)
TEXT ·acosF64AVX512(SB), NOSPLIT, $0-24
	SETUPA8
	ONELOOP(ACOSD8, 64, 8)
