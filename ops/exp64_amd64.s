// Code in this file: float64 Exp with exp64.go's operations (expF64one),
// eight lanes a step on AVX-512, four on AVX2/FMA: each fused
// multiply-add here is one of expF64one's, so results match the Go loop's
// bit for bit (TestExpF64Kernels); and Tanh on it (tanhF64one, the same
// operations: TestTanhF64).

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

DATA e64c<>+0(SB)/8, $0xc087500000000000 // lo
DATA e64c<>+8(SB)/8, $0x4086300000000000 // hi
DATA e64c<>+16(SB)/8, $0x3ff71547652b82fe // log2e
DATA e64c<>+24(SB)/8, $0x4338000000000000 // magic
DATA e64c<>+32(SB)/8, $0x3fe62e42fee00000 // ln2hi
DATA e64c<>+40(SB)/8, $0x3dea39ef35793c76 // ln2lo
DATA e64c<>+48(SB)/8, $0x3ff0000000000000 // 1
DATA e64c<>+56(SB)/8, $0x3de6124613a86d09 // Q13
DATA e64c<>+64(SB)/8, $0x3e21eed8eff8d898 // Q12
DATA e64c<>+72(SB)/8, $0x3e5ae64567f544e4 // Q11
DATA e64c<>+80(SB)/8, $0x3e927e4fb7789f5c // Q10
DATA e64c<>+88(SB)/8, $0x3ec71de3a556c734 // Q9
DATA e64c<>+96(SB)/8, $0x3efa01a01a01a01a // Q8
DATA e64c<>+104(SB)/8, $0x3f2a01a01a01a01a // Q7
DATA e64c<>+112(SB)/8, $0x3f56c16c16c16c17 // Q6
DATA e64c<>+120(SB)/8, $0x3f81111111111111 // Q5
DATA e64c<>+128(SB)/8, $0x3fa5555555555555 // Q4
DATA e64c<>+136(SB)/8, $0x3fc5555555555555 // Q3
DATA e64c<>+144(SB)/8, $0x3fe0000000000000 // Q2
DATA e64c<>+152(SB)/8, $1023
GLOBL e64c<>(SB), RODATA|NOPTR, $160

// EXPCORE8 is expF64one of the eight float64s in Z0, into Z6 (Z0…Z7
// change): Z20 = −746, Z21 = 710, Z22 = magic, Z23 = 1, Z24 = 1023; b2
// is the second factor's bias (1023, or 1022 for e^x/2). After it Z0
// holds hi, Z5 t (e^r − 1 = hi + t), Z2 and Z1 the two factors of 2^k.
#define EXPCORE8(b2) \
	VMAXPD Z0, Z20, Z0; \
	VMINPD Z0, Z21, Z0; \
	VMOVAPD Z22, Z1; \
	VFMADD231PD.BCST e64c<>+16(SB), Z0, Z1; \
	VSUBPD Z22, Z1, Z2; \
	VFNMADD231PD.BCST e64c<>+32(SB), Z2, Z0; \
	VMULPD.BCST e64c<>+40(SB), Z2, Z3; \
	VSUBPD Z3, Z0, Z4; \
	VBROADCASTSD e64c<>+56(SB), Z5; \
	VFMADD213PD.BCST e64c<>+64(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+72(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+80(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+88(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+96(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+104(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+112(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+120(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+128(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+136(SB), Z4, Z5; \
	VFMADD213PD.BCST e64c<>+144(SB), Z4, Z5; \
	VMULPD Z4, Z4, Z4; \
	VFMSUB213PD Z3, Z4, Z5; \
	VADDPD Z23, Z0, Z6; \
	VSUBPD Z6, Z23, Z7; \
	VADDPD Z0, Z7, Z7; \
	VADDPD Z5, Z7, Z7; \
	VADDPD Z7, Z6, Z6; \
	VPSUBQ Z22, Z1, Z1; \
	VPSRAQ $1, Z1, Z2; \
	VPSUBQ Z2, Z1, Z1; \
	VPADDQ Z24, Z2, Z2; \
	VPSLLQ $52, Z2, Z2; \
	VPADDQ b2, Z1, Z1; \
	VPSLLQ $52, Z1, Z1; \
	VMULPD Z2, Z6, Z6; \
	VMULPD Z1, Z6, Z6

// EXPD8 is expF64one for the eight float64s at off(SI), stored at off(DI).
#define EXPD8(off) \
	VMOVUPD off(SI), Z0; \
	EXPCORE8(Z24); \
	VMOVUPD Z6, off(DI)

// EXPCORE4 is EXPCORE8 in four lanes on AVX2/FMA, Y0 into Y6 (Y0, Y5,
// Y2, Y1 as Z0, Z5, Z2, Z1 after it; b2 as there): Y12 =
// −746, Y13 = 710, Y14 = magic, Y15 = 1, Y11 = 1023, Y10 takes each
// broadcast constant; k's halving shifts its low doublewords (k fits in
// 32 bits, the high ones hold its sign).
#define EXPCORE4(b2) \
	VMAXPD Y0, Y12, Y0; \
	VMINPD Y0, Y13, Y0; \
	VMOVAPD Y14, Y1; \
	VBROADCASTSD e64c<>+16(SB), Y10; \
	VFMADD231PD Y10, Y0, Y1; \
	VSUBPD Y14, Y1, Y2; \
	VBROADCASTSD e64c<>+32(SB), Y10; \
	VFNMADD231PD Y10, Y2, Y0; \
	VBROADCASTSD e64c<>+40(SB), Y10; \
	VMULPD Y10, Y2, Y3; \
	VSUBPD Y3, Y0, Y4; \
	VBROADCASTSD e64c<>+56(SB), Y5; \
	QSTEP(e64c, 64); QSTEP(e64c, 72); QSTEP(e64c, 80); QSTEP(e64c, 88); QSTEP(e64c, 96); QSTEP(e64c, 104); \
	QSTEP(e64c, 112); QSTEP(e64c, 120); QSTEP(e64c, 128); QSTEP(e64c, 136); QSTEP(e64c, 144); \
	VMULPD Y4, Y4, Y4; \
	VFMSUB213PD Y3, Y4, Y5; \
	VADDPD Y15, Y0, Y6; \
	VSUBPD Y6, Y15, Y7; \
	VADDPD Y0, Y7, Y7; \
	VADDPD Y5, Y7, Y7; \
	VADDPD Y7, Y6, Y6; \
	VPSUBQ Y14, Y1, Y1; \
	VPSRAD $1, Y1, Y2; \
	VPSUBQ Y2, Y1, Y1; \
	VPADDQ Y11, Y2, Y2; \
	VPSLLQ $52, Y2, Y2; \
	VPADDQ b2, Y1, Y1; \
	VPSLLQ $52, Y1, Y1; \
	VMULPD Y2, Y6, Y6; \
	VMULPD Y1, Y6, Y6

// EXPD4 is EXPD8 in four lanes.
#define EXPD4(off) \
	VMOVUPD off(SI), Y0; \
	EXPCORE4(Y11); \
	VMOVUPD Y6, off(DI)

// QSTEP is one Horner step of Q in EXPD4 (Y5 = Y5·r + Q at off).
#define QSTEP(tab, off) HSTEP(tab, off, Y4, Y5)

// HSTEP is one Horner step on AVX2/FMA: acc = acc·z + tab's constant at
// off (Y10 takes it).
#define HSTEP(tab, off, z, acc) \
	VBROADCASTSD tab<>+off(SB), Y10; \
	VFMADD213PD Y10, z, acc

// SETUP4 and SETUP8 load the arguments and EXPCORE4's and EXPCORE8's
// constants.
#define SETUP4 \
	ARGS; \
	VBROADCASTSD e64c<>+0(SB), Y12; \
	VBROADCASTSD e64c<>+8(SB), Y13; \
	VBROADCASTSD e64c<>+24(SB), Y14; \
	VBROADCASTSD e64c<>+48(SB), Y15; \
	VPBROADCASTQ e64c<>+152(SB), Y11

#define SETUP8 \
	ARGS; \
	VBROADCASTSD e64c<>+0(SB), Z20; \
	VBROADCASTSD e64c<>+8(SB), Z21; \
	VBROADCASTSD e64c<>+24(SB), Z22; \
	VBROADCASTSD e64c<>+48(SB), Z23; \
	VPBROADCASTQ e64c<>+152(SB), Z24

// func expF64(d, a unsafe.Pointer, n int)
// n a multiple of 4; every lane is done here (NaN and ±Inf too).
TEXT ·expF64(SB), NOSPLIT, $0-24
	SETUP4
	ONELOOP(EXPD4, 32, 4)

// func expF64AVX512(d, a unsafe.Pointer, n int)
// n a multiple of 8.
TEXT ·expF64AVX512(SB), NOSPLIT, $0-24
	SETUP8
	ONELOOP(EXPD8, 64, 8)

DATA t64c<>+0(SB)/8, $0x7fffffffffffffff // |x|
DATA t64c<>+8(SB)/8, $0x8000000000000000 // sign
DATA t64c<>+16(SB)/8, $0x4000000000000000 // 2
DATA t64c<>+24(SB)/8, $0x3fe4000000000000 // 0.625
DATA t64c<>+32(SB)/8, $0xbfeedc5baafd6f4b // tanhP[0]
DATA t64c<>+40(SB)/8, $0xc058d26a0e26682d // tanhP[1]
DATA t64c<>+48(SB)/8, $0xc0993ac030580563 // tanhP[2]
DATA t64c<>+56(SB)/8, $0x405c33f28a581b86 // tanhQ[0]
DATA t64c<>+64(SB)/8, $0x40a176fa0e5535fa // tanhQ[1]
DATA t64c<>+72(SB)/8, $0x40b2ec102442040c // tanhQ[2]
GLOBL t64c<>(SB), RODATA|NOPTR, $80

// TANHD8 is tanhF64one for the eight float64s at off(SI), stored at
// off(DI) (EXPCORE8's registers; Z8…Z15 and K1, K2 change): the large
// form 1 − 2/(e^(2|x|) + 1) with x's sign, where |x| < 0.625 the
// rational form (unfused, as package math rounds it), where x = 0 x.
#define TANHD8(off) \
	VMOVUPD off(SI), Z8; \
	VANDPD.BCST t64c<>+0(SB), Z8, Z9; \
	VADDPD Z9, Z9, Z0; \
	EXPCORE8(Z24); \
	VADDPD Z23, Z6, Z6; \
	VBROADCASTSD t64c<>+16(SB), Z7; \
	VDIVPD Z6, Z7, Z6; \
	VSUBPD Z6, Z23, Z6; \
	VANDPD.BCST t64c<>+8(SB), Z8, Z10; \
	VORPD Z10, Z6, Z6; \
	VMULPD Z8, Z8, Z11; \
	VMULPD.BCST t64c<>+32(SB), Z11, Z12; \
	VADDPD.BCST t64c<>+40(SB), Z12, Z12; \
	VMULPD Z11, Z12, Z12; \
	VADDPD.BCST t64c<>+48(SB), Z12, Z12; \
	VADDPD.BCST t64c<>+56(SB), Z11, Z13; \
	VMULPD Z11, Z13, Z13; \
	VADDPD.BCST t64c<>+64(SB), Z13, Z13; \
	VMULPD Z11, Z13, Z13; \
	VADDPD.BCST t64c<>+72(SB), Z13, Z13; \
	VMULPD Z11, Z8, Z14; \
	VMULPD Z12, Z14, Z14; \
	VDIVPD Z13, Z14, Z14; \
	VADDPD Z14, Z8, Z14; \
	VCMPPD.BCST $1, t64c<>+24(SB), Z9, K1; \
	VMOVAPD Z14, K1, Z6; \
	VXORPD Z15, Z15, Z15; \
	VCMPPD $0, Z15, Z8, K2; \
	VMOVAPD Z8, K2, Z6; \
	VMOVUPD Z6, off(DI)

// TANHD4 is TANHD8 in four lanes on AVX2/FMA (EXPCORE4's registers; Y8,
// Y9 hold x and |x|, the rest of the rational form reuses Y0…Y5 and Y7
// once e is in Y6).
#define TANHD4(off) \
	VMOVUPD off(SI), Y8; \
	VBROADCASTSD t64c<>+0(SB), Y10; \
	VANDPD Y10, Y8, Y9; \
	VADDPD Y9, Y9, Y0; \
	EXPCORE4(Y11); \
	VADDPD Y15, Y6, Y6; \
	VBROADCASTSD t64c<>+16(SB), Y7; \
	VDIVPD Y6, Y7, Y6; \
	VSUBPD Y6, Y15, Y6; \
	VBROADCASTSD t64c<>+8(SB), Y10; \
	VANDPD Y10, Y8, Y7; \
	VORPD Y7, Y6, Y6; \
	VMULPD Y8, Y8, Y1; \
	VBROADCASTSD t64c<>+32(SB), Y10; \
	VMULPD Y10, Y1, Y2; \
	VBROADCASTSD t64c<>+40(SB), Y10; \
	VADDPD Y10, Y2, Y2; \
	VMULPD Y1, Y2, Y2; \
	VBROADCASTSD t64c<>+48(SB), Y10; \
	VADDPD Y10, Y2, Y2; \
	VBROADCASTSD t64c<>+56(SB), Y10; \
	VADDPD Y10, Y1, Y3; \
	VMULPD Y1, Y3, Y3; \
	VBROADCASTSD t64c<>+64(SB), Y10; \
	VADDPD Y10, Y3, Y3; \
	VMULPD Y1, Y3, Y3; \
	VBROADCASTSD t64c<>+72(SB), Y10; \
	VADDPD Y10, Y3, Y3; \
	VMULPD Y1, Y8, Y4; \
	VMULPD Y2, Y4, Y4; \
	VDIVPD Y3, Y4, Y4; \
	VADDPD Y4, Y8, Y4; \
	VBROADCASTSD t64c<>+24(SB), Y10; \
	VCMPPD $1, Y10, Y9, Y5; \
	VBLENDVPD Y5, Y4, Y6, Y6; \
	VXORPD Y7, Y7, Y7; \
	VCMPPD $0, Y7, Y8, Y5; \
	VBLENDVPD Y5, Y8, Y6, Y6; \
	VMOVUPD Y6, off(DI)

// SIGD8 is sigmoidF64one for the eight float64s at off(SI), stored at
// off(DI) (EXPCORE8's registers; Z8, Z9, K1 change): e = e^−|x|, then
// e/(1 + e) where x's sign bit is set (K1), 1/(1 + e) elsewhere.
#define SIGD8(off) \
	VMOVUPD off(SI), Z8; \
	VORPD.BCST t64c<>+8(SB), Z8, Z0; \
	EXPCORE8(Z24); \
	VADDPD Z23, Z6, Z9; \
	VPMOVQ2M Z8, K1; \
	VMOVAPD Z23, Z7; \
	VMOVAPD Z6, K1, Z7; \
	VDIVPD Z9, Z7, Z6; \
	VMOVUPD Z6, off(DI)

// SIGD4 is SIGD8 in four lanes on AVX2/FMA (EXPCORE4's registers; Y8, Y9
// change).
#define SIGD4(off) \
	VMOVUPD off(SI), Y8; \
	VBROADCASTSD t64c<>+8(SB), Y10; \
	VORPD Y10, Y8, Y0; \
	EXPCORE4(Y11); \
	VADDPD Y15, Y6, Y9; \
	VBLENDVPD Y8, Y6, Y15, Y7; \
	VDIVPD Y9, Y7, Y6; \
	VMOVUPD Y6, off(DI)

// func sigmoidF64(d, a unsafe.Pointer, n int)
// n a multiple of 4; every lane is done here (NaN and ±Inf too).
TEXT ·sigmoidF64(SB), NOSPLIT, $0-24
	SETUP4
	ONELOOP(SIGD4, 32, 4)

// func sigmoidF64AVX512(d, a unsafe.Pointer, n int)
// n a multiple of 8.
TEXT ·sigmoidF64AVX512(SB), NOSPLIT, $0-24
	SETUP8
	ONELOOP(SIGD8, 64, 8)

// func tanhF64(d, a unsafe.Pointer, n int)
// n a multiple of 4; every lane is done here (NaN and ±Inf too).
TEXT ·tanhF64(SB), NOSPLIT, $0-24
	SETUP4
	ONELOOP(TANHD4, 32, 4)

// func tanhF64AVX512(d, a unsafe.Pointer, n int)
// n a multiple of 8.
TEXT ·tanhF64AVX512(SB), NOSPLIT, $0-24
	SETUP8
	ONELOOP(TANHD8, 64, 8)

DATA h64c<>+0(SB)/8, $0x3fd0000000000000 // 0.25
DATA h64c<>+8(SB)/8, $0x4086380000000000 // 711
DATA h64c<>+16(SB)/8, $1022
DATA h64c<>+24(SB)/8, $0xc04e000000000000 // −60
DATA h64c<>+32(SB)/8, $0x4086280000000000 // 709
DATA h64c<>+40(SB)/8, $0x3ce952c77030ad4a // 1/17!
DATA h64c<>+48(SB)/8, $0x3d6ae7f3e733b81f // 1/15!
DATA h64c<>+56(SB)/8, $0x3de6124613a86d09 // 1/13!
DATA h64c<>+64(SB)/8, $0x3e5ae64567f544e4 // 1/11!
DATA h64c<>+72(SB)/8, $0x3ec71de3a556c734 // 1/9!
DATA h64c<>+80(SB)/8, $0x3f2a01a01a01a01a // 1/7!
DATA h64c<>+88(SB)/8, $0x3f81111111111111 // 1/5!
DATA h64c<>+96(SB)/8, $0x3fc5555555555555 // 1/3!
GLOBL h64c<>(SB), RODATA|NOPTR, $104

// HYPSETUP8 and HYPSETUP4 are SETUP8 and SETUP4 for e^|x|/2: the clamp
// at 711 and the bias 1022 (Z25, Y9) for the second factor.
#define HYPSETUP8 \
	SETUP8; \
	VBROADCASTSD h64c<>+8(SB), Z21; \
	VPBROADCASTQ h64c<>+16(SB), Z25

#define HYPSETUP4 \
	SETUP4; \
	VBROADCASTSD h64c<>+8(SB), Y13; \
	VPBROADCASTQ h64c<>+16(SB), Y9

// HALF8 is h = e^|x|/2 (halfExp64) of the eight float64s at off(SI) into
// Z6, x kept in Z8, |x| in Z9; then Z7 = 1/(4h).
#define HALF8(off) \
	VMOVUPD off(SI), Z8; \
	VANDPD.BCST t64c<>+0(SB), Z8, Z9; \
	VMOVAPD Z9, Z0; \
	EXPCORE8(Z25); \
	VBROADCASTSD h64c<>+0(SB), Z7; \
	VDIVPD Z6, Z7, Z7

// HALF4 is HALF8 in four lanes, x kept in Y8.
#define HALF4(off) \
	VMOVUPD off(SI), Y8; \
	VBROADCASTSD t64c<>+0(SB), Y10; \
	VANDPD Y10, Y8, Y0; \
	EXPCORE4(Y9); \
	VBROADCASTSD h64c<>+0(SB), Y7; \
	VDIVPD Y6, Y7, Y7

// COSHD8 and COSHD4 are coshF64one: h + 1/(4h).
#define COSHD8(off) \
	HALF8(off); \
	VADDPD Z7, Z6, Z6; \
	VMOVUPD Z6, off(DI)

#define COSHD4(off) \
	HALF4(off); \
	VADDPD Y7, Y6, Y6; \
	VMOVUPD Y6, off(DI)

// SINHD8 is sinhF64one: h − 1/(4h) with x's sign, and where |x| < 1
// (K1) x + x³·S(x²) (Z10…Z13 change).
#define SINHD8(off) \
	HALF8(off); \
	VSUBPD Z7, Z6, Z6; \
	VANDPD.BCST t64c<>+8(SB), Z8, Z10; \
	VORPD Z10, Z6, Z6; \
	VMULPD Z8, Z8, Z11; \
	VBROADCASTSD h64c<>+40(SB), Z12; \
	VFMADD213PD.BCST h64c<>+48(SB), Z11, Z12; \
	VFMADD213PD.BCST h64c<>+56(SB), Z11, Z12; \
	VFMADD213PD.BCST h64c<>+64(SB), Z11, Z12; \
	VFMADD213PD.BCST h64c<>+72(SB), Z11, Z12; \
	VFMADD213PD.BCST h64c<>+80(SB), Z11, Z12; \
	VFMADD213PD.BCST h64c<>+88(SB), Z11, Z12; \
	VFMADD213PD.BCST h64c<>+96(SB), Z11, Z12; \
	VMULPD Z11, Z8, Z13; \
	VFMADD213PD Z8, Z13, Z12; \
	VCMPPD $1, Z23, Z9, K1; \
	VMOVAPD Z12, K1, Z6; \
	VMOVUPD Z6, off(DI)

// SINHD4 is SINHD8 in four lanes (Y1…Y5 reused once h is in Y6).
#define SINHD4(off) \
	HALF4(off); \
	VSUBPD Y7, Y6, Y6; \
	VBROADCASTSD t64c<>+8(SB), Y10; \
	VANDPD Y10, Y8, Y7; \
	VORPD Y7, Y6, Y6; \
	VMULPD Y8, Y8, Y1; \
	VBROADCASTSD h64c<>+40(SB), Y2; \
	HSTEP(h64c, 48, Y1, Y2); HSTEP(h64c, 56, Y1, Y2); HSTEP(h64c, 64, Y1, Y2); HSTEP(h64c, 72, Y1, Y2); \
	HSTEP(h64c, 80, Y1, Y2); HSTEP(h64c, 88, Y1, Y2); HSTEP(h64c, 96, Y1, Y2); \
	VMULPD Y1, Y8, Y3; \
	VFMADD213PD Y8, Y3, Y2; \
	VBROADCASTSD t64c<>+0(SB), Y10; \
	VANDPD Y10, Y8, Y4; \
	VCMPPD $1, Y15, Y4, Y5; \
	VBLENDVPD Y5, Y2, Y6, Y6; \
	VMOVUPD Y6, off(DI)

// EXPM1D8 is expm1F64one (Z20 = −60): 2^k·t + (2^k·hi + (2^k − 1)) with
// x's sign, and Exp's result where x > 709 (K1).
#define EXPM1D8(off) \
	VMOVUPD off(SI), Z8; \
	VMOVAPD Z8, Z0; \
	EXPCORE8(Z24); \
	VMULPD Z1, Z2, Z9; \
	VSUBPD Z23, Z9, Z10; \
	VFMADD213PD Z10, Z9, Z0; \
	VFMADD213PD Z0, Z9, Z5; \
	VANDPD.BCST t64c<>+8(SB), Z8, Z10; \
	VORPD Z10, Z5, Z5; \
	VCMPPD.BCST $14, h64c<>+32(SB), Z8, K1; \
	VMOVAPD Z6, K1, Z5; \
	VMOVUPD Z5, off(DI)

// EXPM1D4 is EXPM1D8 in four lanes (Y12 = −60).
#define EXPM1D4(off) \
	VMOVUPD off(SI), Y8; \
	VMOVAPD Y8, Y0; \
	EXPCORE4(Y11); \
	VMULPD Y1, Y2, Y3; \
	VSUBPD Y15, Y3, Y4; \
	VFMADD213PD Y4, Y3, Y0; \
	VFMADD213PD Y0, Y3, Y5; \
	VBROADCASTSD t64c<>+8(SB), Y10; \
	VANDPD Y10, Y8, Y7; \
	VORPD Y7, Y5, Y5; \
	VBROADCASTSD h64c<>+32(SB), Y10; \
	VCMPPD $14, Y10, Y8, Y7; \
	VBLENDVPD Y7, Y6, Y5, Y5; \
	VMOVUPD Y5, off(DI)

// func coshF64(d, a unsafe.Pointer, n int)
// n a multiple of 4; every lane is done here (NaN and ±Inf too), as in
// the five kernels below (n a multiple of 8 on AVX-512).
TEXT ·coshF64(SB), NOSPLIT, $0-24
	HYPSETUP4
	ONELOOP(COSHD4, 32, 4)

// func coshF64AVX512(d, a unsafe.Pointer, n int)
TEXT ·coshF64AVX512(SB), NOSPLIT, $0-24
	HYPSETUP8
	ONELOOP(COSHD8, 64, 8)

// func sinhF64(d, a unsafe.Pointer, n int)
TEXT ·sinhF64(SB), NOSPLIT, $0-24
	HYPSETUP4
	ONELOOP(SINHD4, 32, 4)

// func sinhF64AVX512(d, a unsafe.Pointer, n int)
TEXT ·sinhF64AVX512(SB), NOSPLIT, $0-24
	HYPSETUP8
	ONELOOP(SINHD8, 64, 8)

// func expm1F64(d, a unsafe.Pointer, n int)
TEXT ·expm1F64(SB), NOSPLIT, $0-24
	SETUP4
	VBROADCASTSD h64c<>+24(SB), Y12
	ONELOOP(EXPM1D4, 32, 4)

// func expm1F64AVX512(d, a unsafe.Pointer, n int)
TEXT ·expm1F64AVX512(SB), NOSPLIT, $0-24
	SETUP8
	VBROADCASTSD h64c<>+24(SB), Z20
	ONELOOP(EXPM1D8, 64, 8)
