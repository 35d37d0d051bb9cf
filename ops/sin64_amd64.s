// Code in this file: float64 Sin and Cos with sin64.go's operations
// (sinCos64: package math's reduction and polynomials, no fused
// multiply-add), eight lanes a step on AVX-512, four twice on AVX2. A
// kernel stops before a step of eight with a lane past 2^29, NaN or ±Inf
// and returns the elements done: lanesUntil64 does that step.

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

DATA s64c<>+0(SB)/8, $0x3ff45f306dc9c883 // 4/π
DATA s64c<>+8(SB)/8, $0x3fe921fb40000000 // π/4 A
DATA s64c<>+16(SB)/8, $0x3e64442d00000000 // π/4 B
DATA s64c<>+24(SB)/8, $0x3ce8469898cc5170 // π/4 C
DATA s64c<>+32(SB)/8, $0x3de5d8fd1fd19ccd // sin0
DATA s64c<>+40(SB)/8, $0xbe5ae5e5a9291f5d // sin1
DATA s64c<>+48(SB)/8, $0x3ec71de3567d48a1 // sin2
DATA s64c<>+56(SB)/8, $0xbf2a01a019bfdf03 // sin3
DATA s64c<>+64(SB)/8, $0x3f8111111110f7d0 // sin4
DATA s64c<>+72(SB)/8, $0xbfc5555555555548 // sin5
DATA s64c<>+80(SB)/8, $0xbda8fa49a0861a9b // cos0
DATA s64c<>+88(SB)/8, $0x3e21ee9d7b4e3f05 // cos1
DATA s64c<>+96(SB)/8, $0xbe927e4f7eac4bc6 // cos2
DATA s64c<>+104(SB)/8, $0x3efa01a019c844f5 // cos3
DATA s64c<>+112(SB)/8, $0xbf56c16c16c14f91 // cos4
DATA s64c<>+120(SB)/8, $0x3fa555555555554b // cos5
DATA s64c<>+128(SB)/8, $0x3fe0000000000000 // ½
DATA s64c<>+136(SB)/8, $0x3ff0000000000000 // 1
DATA s64c<>+144(SB)/8, $0x41c0000000000000 // 2^29
DATA s64c<>+152(SB)/8, $0x7fffffffffffffff // |x|
DATA s64c<>+160(SB)/8, $0x8000000000000000 // sign
DATA s64c<>+168(SB)/4, $1 // int32 1
GLOBL s64c<>(SB), RODATA|NOPTR, $176

// POLY6 is ((((c0·zz + c1)·zz + c2)·zz + c3)·zz + c4)·zz + c5 into p for
// the six constants at tab (Z5 = zz), each product and sum rounded.
#define POLY6(tab, p) \
	VMULPD.BCST s64c<>+(tab)(SB), Z5, p; \
	VADDPD.BCST s64c<>+(tab+8)(SB), p, p; \
	VMULPD Z5, p, p; \
	VADDPD.BCST s64c<>+(tab+16)(SB), p, p; \
	VMULPD Z5, p, p; \
	VADDPD.BCST s64c<>+(tab+24)(SB), p, p; \
	VMULPD Z5, p, p; \
	VADDPD.BCST s64c<>+(tab+32)(SB), p, p; \
	VMULPD Z5, p, p; \
	VADDPD.BCST s64c<>+(tab+40)(SB), p, p

// REDUCE8 is package math's reduction of the eight float64s in Z0 by
// π/4 in three parts: j = ⌊|x|·4/π⌋ made even (Y3, int32), z = |x| −
// j·π/4 (Z1), j as float64 in Z2 (Z4 changes).
#define REDUCE8 \
	VANDPD.BCST s64c<>+152(SB), Z0, Z1; \
	VMULPD.BCST s64c<>+0(SB), Z1, Z2; \
	VCVTTPD2DQ Z2, Y3; \
	VPANDD.BCST s64c<>+168(SB), Y3, Y4; \
	VPADDD Y4, Y3, Y3; \
	VCVTDQ2PD Y3, Z2; \
	VMULPD.BCST s64c<>+8(SB), Z2, Z4; \
	VSUBPD Z4, Z1, Z1; \
	VMULPD.BCST s64c<>+16(SB), Z2, Z4; \
	VSUBPD Z4, Z1, Z1; \
	VMULPD.BCST s64c<>+24(SB), Z2, Z4; \
	VSUBPD Z4, Z1, Z1

// SC8 is sinCos64 for the eight float64s at off(SI), stored at off(DI):
// Y30 holds the octant shift q (0 for Sin, 2 for Cos) in 32-bit lanes,
// Z29 the sign mask of x's sign (Cos: 0), Z28 = 1.
#define SC8(off) \
	VMOVUPD off(SI), Z0; \
	VANDPD Z29, Z0, Z9; \
	REDUCE8; \
	VPADDD Y30, Y3, Y3; \
	VPMOVZXDQ Y3, Z3; \
	VMULPD Z1, Z1, Z5; \
	POLY6(80, Z6); \
	VMULPD Z5, Z5, Z7; \
	VMULPD Z6, Z7, Z7; \
	VMULPD.BCST s64c<>+128(SB), Z5, Z8; \
	VSUBPD Z8, Z28, Z8; \
	VADDPD Z7, Z8, Z6; \
	POLY6(32, Z7); \
	VMULPD Z5, Z1, Z8; \
	VMULPD Z7, Z8, Z8; \
	VADDPD Z8, Z1, Z7; \
	VPSLLQ $62, Z3, Z4; \
	VPMOVQ2M Z4, K1; \
	VMOVAPD Z6, K1, Z7; \
	VPSLLQ $61, Z3, Z4; \
	VPANDQ.BCST s64c<>+160(SB), Z4, Z4; \
	VXORPD Z4, Z7, Z7; \
	VXORPD Z9, Z7, Z7; \
	VMOVUPD Z7, off(DI)

// POLY4 is POLY6 in four lanes on AVX2 (Y5 = zz, Y10 scratch).
#define POLY4(tab, p) \
	VBROADCASTSD s64c<>+(tab)(SB), p; \
	VMULPD Y5, p, p; \
	VBROADCASTSD s64c<>+(tab+8)(SB), Y10; \
	VADDPD Y10, p, p; \
	VMULPD Y5, p, p; \
	VBROADCASTSD s64c<>+(tab+16)(SB), Y10; \
	VADDPD Y10, p, p; \
	VMULPD Y5, p, p; \
	VBROADCASTSD s64c<>+(tab+24)(SB), Y10; \
	VADDPD Y10, p, p; \
	VMULPD Y5, p, p; \
	VBROADCASTSD s64c<>+(tab+32)(SB), Y10; \
	VADDPD Y10, p, p; \
	VMULPD Y5, p, p; \
	VBROADCASTSD s64c<>+(tab+40)(SB), Y10; \
	VADDPD Y10, p, p

// REDUCE4 is REDUCE8 in four lanes on AVX2 (Y0 into Y1, X3, Y2; Y15
// |x|'s mask, X13 the int32 1; Y4, Y10 change).
#define REDUCE4 \
	VANDPD Y15, Y0, Y1; \
	VBROADCASTSD s64c<>+0(SB), Y10; \
	VMULPD Y10, Y1, Y2; \
	VCVTTPD2DQY Y2, X3; \
	VPAND X13, X3, X4; \
	VPADDD X4, X3, X3; \
	VCVTDQ2PD X3, Y2; \
	VBROADCASTSD s64c<>+8(SB), Y10; \
	VMULPD Y10, Y2, Y4; \
	VSUBPD Y4, Y1, Y1; \
	VBROADCASTSD s64c<>+16(SB), Y10; \
	VMULPD Y10, Y2, Y4; \
	VSUBPD Y4, Y1, Y1; \
	VBROADCASTSD s64c<>+24(SB), Y10; \
	VMULPD Y10, Y2, Y4; \
	VSUBPD Y4, Y1, Y1

// SC4 is SC8 in four lanes on AVX2: X12 holds q, X13 the int32 1, Y14
// the sign mask of x's sign, Y15 |x|'s mask, Y11 the sign bit; the
// octant's bit 1 picks the polynomial through VBLENDVPD's sign test.
#define SC4(off) \
	VMOVUPD off(SI), Y0; \
	VANDPD Y14, Y0, Y9; \
	REDUCE4; \
	VPADDD X12, X3, X3; \
	VPMOVZXDQ X3, Y3; \
	VMULPD Y1, Y1, Y5; \
	POLY4(80, Y6); \
	VMULPD Y5, Y5, Y7; \
	VMULPD Y6, Y7, Y7; \
	VBROADCASTSD s64c<>+128(SB), Y10; \
	VMULPD Y10, Y5, Y8; \
	VBROADCASTSD s64c<>+136(SB), Y10; \
	VSUBPD Y8, Y10, Y8; \
	VADDPD Y7, Y8, Y6; \
	POLY4(32, Y7); \
	VMULPD Y5, Y1, Y8; \
	VMULPD Y7, Y8, Y8; \
	VADDPD Y8, Y1, Y7; \
	VPSLLQ $62, Y3, Y4; \
	VBLENDVPD Y4, Y6, Y7, Y7; \
	VPSLLQ $61, Y3, Y4; \
	VANDPD Y11, Y4, Y4; \
	VXORPD Y4, Y7, Y7; \
	VXORPD Y9, Y7, Y7; \
	VMOVUPD Y7, off(DI)

// SLOWSC4 jumps to done unless all eight float64s at SI have |x| < 2^29
// (NaN fails the comparison); Y8, Y9 and Y10 are scratch.
#define SLOWSC4 \
	VBROADCASTSD s64c<>+144(SB), Y10; \
	VANDPD 0(SI), Y15, Y8; \
	VCMPPD $5, Y10, Y8, Y8; \
	VANDPD 32(SI), Y15, Y9; \
	VCMPPD $5, Y10, Y9, Y9; \
	VORPD Y9, Y8, Y8; \
	VMOVMSKPD Y8, AX; \
	TESTQ AX, AX; \
	JNZ done

#define SC4TWICE \
	SC4(0); \
	SC4(32)

// SLOWSC8 is SLOWSC4 on AVX-512 (Z27 holds 2^29).
#define SLOWSC8 \
	VMOVUPD 0(SI), Z8; \
	VANDPD.BCST s64c<>+152(SB), Z8, Z8; \
	VCMPPD $5, Z27, Z8, K2; \
	KORTESTB K2, K2; \
	JNZ done

#define SC8AT0 \
	SC8(0)

// func sinCosF64(d, a unsafe.Pointer, n int, q int32, smask uint64) int
// n a multiple of 8; AVX2/FMA.
TEXT ·sinCosF64(SB), NOSPLIT, $0-48
	ARGS
	MOVL q+24(FP), AX
	VMOVD AX, X12
	VPBROADCASTD X12, X12
	VPBROADCASTD s64c<>+168(SB), X13
	MOVQ smask+32(FP), AX
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	VBROADCASTSD s64c<>+152(SB), Y15
	VBROADCASTSD s64c<>+160(SB), Y11
	UNTIL8(SLOWSC4, SC4TWICE, 40)

// func sinCosF64AVX512(d, a unsafe.Pointer, n int, q int32, smask uint64) int
// n a multiple of 8.
TEXT ·sinCosF64AVX512(SB), NOSPLIT, $0-48
	ARGS
	MOVL q+24(FP), AX
	VMOVD AX, X30
	VPBROADCASTD X30, Y30
	MOVQ smask+32(FP), AX
	VMOVQ AX, X29
	VPBROADCASTQ X29, Z29
	VBROADCASTSD s64c<>+136(SB), Z28
	VBROADCASTSD s64c<>+144(SB), Z27
	UNTIL8(SLOWSC8, SC8AT0, 40)

DATA tn64c<>+0(SB)/8, $0xc0c992d8d24f3f38 // P0
DATA tn64c<>+8(SB)/8, $0x413199eca5fc9ddd // P1
DATA tn64c<>+16(SB)/8, $0xc1711fead3299176 // P2
DATA tn64c<>+24(SB)/8, $0x40cab8a5eeb36572 // Q1
DATA tn64c<>+32(SB)/8, $0xc13427bc582abc96 // Q2
DATA tn64c<>+40(SB)/8, $0x4177d98fc2ead8ef // Q3
DATA tn64c<>+48(SB)/8, $0xc189afe03cbe5a31 // Q4
DATA tn64c<>+56(SB)/8, $0x3d06849b86a12b9b // 1e-14
DATA tn64c<>+64(SB)/8, $0xbff0000000000000 // −1
GLOBL tn64c<>(SB), RODATA|NOPTR, $72

// TAN8 is tan64 for the eight float64s at off(SI), stored at off(DI):
// z + z·(zz·P(zz)/Q(zz)) where zz > 1e-14 (K1), else z; −1/y where j's
// bit 1 is set (K2); x's sign (Z28 the sign bit).
#define TAN8(off) \
	VMOVUPD off(SI), Z0; \
	VANDPD Z28, Z0, Z9; \
	REDUCE8; \
	VPMOVZXDQ Y3, Z3; \
	VMULPD Z1, Z1, Z5; \
	VMULPD.BCST tn64c<>+0(SB), Z5, Z6; \
	VADDPD.BCST tn64c<>+8(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST tn64c<>+16(SB), Z6, Z6; \
	VADDPD.BCST tn64c<>+24(SB), Z5, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST tn64c<>+32(SB), Z7, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST tn64c<>+40(SB), Z7, Z7; \
	VMULPD Z5, Z7, Z7; \
	VADDPD.BCST tn64c<>+48(SB), Z7, Z7; \
	VMULPD Z6, Z5, Z6; \
	VDIVPD Z7, Z6, Z6; \
	VMULPD Z6, Z1, Z6; \
	VADDPD Z6, Z1, Z6; \
	VCMPPD.BCST $14, tn64c<>+56(SB), Z5, K1; \
	VMOVAPD Z6, K1, Z1; \
	VPSLLQ $62, Z3, Z4; \
	VPMOVQ2M Z4, K2; \
	VBROADCASTSD tn64c<>+64(SB), Z8; \
	VDIVPD Z1, Z8, K2, Z1; \
	VXORPD Z9, Z1, Z1; \
	VMOVUPD Z1, off(DI)

#define TAN8AT0 \
	TAN8(0)

// TNADD adds the constant at tn64c+off to r on AVX2 (Y10 takes it).
#define TNADD(off, r) \
	VBROADCASTSD tn64c<>+off(SB), Y10; \
	VADDPD Y10, r, r

// TAN4 is TAN8 in four lanes on AVX2 (SC4's registers; Y11 the sign bit).
#define TAN4(off) \
	VMOVUPD off(SI), Y0; \
	VANDPD Y11, Y0, Y9; \
	REDUCE4; \
	VPMOVZXDQ X3, Y3; \
	VMULPD Y1, Y1, Y5; \
	VBROADCASTSD tn64c<>+0(SB), Y6; \
	VMULPD Y5, Y6, Y6; \
	TNADD(8, Y6); \
	VMULPD Y5, Y6, Y6; \
	TNADD(16, Y6); \
	VBROADCASTSD tn64c<>+24(SB), Y7; \
	VADDPD Y5, Y7, Y7; \
	VMULPD Y5, Y7, Y7; \
	TNADD(32, Y7); \
	VMULPD Y5, Y7, Y7; \
	TNADD(40, Y7); \
	VMULPD Y5, Y7, Y7; \
	TNADD(48, Y7); \
	VMULPD Y6, Y5, Y6; \
	VDIVPD Y7, Y6, Y6; \
	VMULPD Y6, Y1, Y6; \
	VADDPD Y6, Y1, Y6; \
	VBROADCASTSD tn64c<>+56(SB), Y10; \
	VCMPPD $14, Y10, Y5, Y8; \
	VBLENDVPD Y8, Y6, Y1, Y1; \
	VBROADCASTSD tn64c<>+64(SB), Y10; \
	VDIVPD Y1, Y10, Y6; \
	VPSLLQ $62, Y3, Y4; \
	VBLENDVPD Y4, Y6, Y1, Y1; \
	VXORPD Y9, Y1, Y1; \
	VMOVUPD Y1, off(DI)

#define TAN4TWICE \
	TAN4(0); \
	TAN4(32)

// func tanF64(d, a unsafe.Pointer, n int) int
// n a multiple of 8; AVX2/FMA; stops as sinCosF64 does.
TEXT ·tanF64(SB), NOSPLIT, $0-32
	ARGS
	VPBROADCASTD s64c<>+168(SB), X13
	VBROADCASTSD s64c<>+152(SB), Y15
	VBROADCASTSD s64c<>+160(SB), Y11
	UNTIL8(SLOWSC4, TAN4TWICE, 24)

// func tanF64AVX512(d, a unsafe.Pointer, n int) int
// n a multiple of 8.
TEXT ·tanF64AVX512(SB), NOSPLIT, $0-32
	ARGS
	VBROADCASTSD s64c<>+160(SB), Z28
	VBROADCASTSD s64c<>+144(SB), Z27
	UNTIL8(SLOWSC8, TAN8AT0, 24)
