// Code in this file: float64 Log as package math's archLog (log_amd64.s)
// computes it, the same operations in the same order, eight lanes a step
// on AVX-512, four twice on AVX2: its bits (TestLogF64). A kernel stops
// before a step of eight with a lane that is not a positive normal
// number (0, negative, subnormal, +Inf, NaN), and returns the elements
// done: log64Lanes gives that step to package math.

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

DATA l64c<>+0(SB)/8, $0x3fe6a09e667f3bcd // √2/2
DATA l64c<>+8(SB)/8, $0x3fe62e42fee00000 // ln2 high
DATA l64c<>+16(SB)/8, $0x3dea39ef35793c76 // ln2 low
DATA l64c<>+24(SB)/8, $0x3fe5555555555593 // L1
DATA l64c<>+32(SB)/8, $0x3fd999999997fa04 // L2
DATA l64c<>+40(SB)/8, $0x3fd2492494229359 // L3
DATA l64c<>+48(SB)/8, $0x3fcc71c51d8e78af // L4
DATA l64c<>+56(SB)/8, $0x3fc7466496cb03de // L5
DATA l64c<>+64(SB)/8, $0x3fc39a09d078c69f // L6
DATA l64c<>+72(SB)/8, $0x3fc2f112df3e5244 // L7
DATA l64c<>+80(SB)/8, $0x3fe0000000000000 // ½
DATA l64c<>+88(SB)/8, $0x3ff0000000000000 // 1
DATA l64c<>+96(SB)/8, $0x4000000000000000 // 2
DATA l64c<>+104(SB)/8, $0x000fffffffffffff // mantissa
DATA l64c<>+112(SB)/8, $0x3fe0000000000000 // ½'s exponent
DATA l64c<>+120(SB)/8, $0x0010000000000000 // the least normal's bits
DATA l64c<>+128(SB)/8, $0x7ff0000000000000 // +Inf's bits
DATA l64c<>+136(SB)/8, $0x3fe // 1022
DATA l64c<>+144(SB)/8, $0x7fefffffffffffff // +Inf's bits − 1
DATA l64c<>+152(SB)/4, $0
DATA l64c<>+156(SB)/4, $2
DATA l64c<>+160(SB)/4, $4
DATA l64c<>+164(SB)/4, $6
DATA l64c<>+168(SB)/4, $0
DATA l64c<>+172(SB)/4, $2
DATA l64c<>+176(SB)/4, $4
DATA l64c<>+180(SB)/4, $6
DATA l64c<>+184(SB)/8, $0x8000000000000000 // sign
GLOBL l64c<>(SB), RODATA|NOPTR, $192

// LOG8 is archLog for the eight float64s at off(SI), stored at off(DI):
// Z28 = 1, Z27 = √2/2.
#define LOG8(off) \
	VMOVUPD off(SI), Z0; \
	LOGCORE8; \
	VMOVUPD Z1, off(DI)

// LOGCORE8 is archLog of Z0 into Z1 (Z2…Z6 and K1 change, Z0 stays).
#define LOGCORE8 \
	VPANDQ.BCST l64c<>+104(SB), Z0, Z2; \
	VPORQ.BCST l64c<>+112(SB), Z2, Z2; \
	VPSRLQ $52, Z0, Z1; \
	VPSUBQ.BCST l64c<>+136(SB), Z1, Z1; \
	VCVTQQ2PD Z1, Z1; \
	VCMPPD $2, Z27, Z2, K1; \
	VSUBPD Z28, Z1, K1, Z1; \
	VADDPD Z2, Z2, K1, Z2; \
	VSUBPD Z28, Z2, Z2; \
	VADDPD.BCST l64c<>+96(SB), Z2, Z3; \
	VDIVPD Z3, Z2, Z3; \
	VMULPD Z3, Z3, Z4; \
	VMULPD Z4, Z4, Z5; \
	VMULPD.BCST l64c<>+72(SB), Z5, Z6; \
	VADDPD.BCST l64c<>+56(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST l64c<>+40(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST l64c<>+24(SB), Z6, Z6; \
	VMULPD Z6, Z4, Z4; \
	VMULPD.BCST l64c<>+64(SB), Z5, Z6; \
	VADDPD.BCST l64c<>+48(SB), Z6, Z6; \
	VMULPD Z5, Z6, Z6; \
	VADDPD.BCST l64c<>+32(SB), Z6, Z6; \
	VMULPD Z6, Z5, Z5; \
	VADDPD Z5, Z4, Z4; \
	VMULPD.BCST l64c<>+80(SB), Z2, Z6; \
	VMULPD Z2, Z6, Z6; \
	VADDPD Z6, Z4, Z4; \
	VMULPD Z4, Z3, Z3; \
	VMULPD.BCST l64c<>+16(SB), Z1, Z4; \
	VADDPD Z4, Z3, Z3; \
	VSUBPD Z3, Z6, Z6; \
	VSUBPD Z2, Z6, Z6; \
	VMULPD.BCST l64c<>+8(SB), Z1, Z1; \
	VSUBPD Z6, Z1, Z1

// LOG4 is LOG8 in four lanes on AVX2, as archLog does it: the halving's
// mask ANDed with 1 (Y10) for k and the factor; Y11 packs k's low
// doublewords for VCVTDQ2PD, Y14 and Y15 hold the mantissa mask and ½'s
// exponent, Y9 takes each broadcast constant.
#define LOG4(off) \
	VMOVUPD off(SI), Y0; \
	LOGCORE4; \
	VMOVUPD Y1, off(DI)

// LOGCORE4 is LOGCORE8 in four lanes: Y0 into Y1 (Y2…Y9 change).
#define LOGCORE4 \
	VANDPD Y14, Y0, Y2; \
	VORPD Y15, Y2, Y2; \
	VPSRLQ $52, Y0, Y1; \
	VPBROADCASTQ l64c<>+136(SB), Y9; \
	VPSUBQ Y9, Y1, Y1; \
	VPERMD Y1, Y11, Y1; \
	VCVTDQ2PD X1, Y1; \
	VBROADCASTSD l64c<>+0(SB), Y7; \
	VCMPPD $2, Y7, Y2, Y7; \
	VANDPD Y10, Y7, Y8; \
	VSUBPD Y8, Y1, Y1; \
	VADDPD Y10, Y8, Y8; \
	VMULPD Y8, Y2, Y2; \
	VSUBPD Y10, Y2, Y2; \
	VBROADCASTSD l64c<>+96(SB), Y3; \
	VADDPD Y2, Y3, Y3; \
	VDIVPD Y3, Y2, Y3; \
	VMULPD Y3, Y3, Y4; \
	VMULPD Y4, Y4, Y5; \
	VBROADCASTSD l64c<>+72(SB), Y6; \
	VMULPD Y5, Y6, Y6; \
	VBROADCASTSD l64c<>+56(SB), Y9; \
	VADDPD Y9, Y6, Y6; \
	VMULPD Y5, Y6, Y6; \
	VBROADCASTSD l64c<>+40(SB), Y9; \
	VADDPD Y9, Y6, Y6; \
	VMULPD Y5, Y6, Y6; \
	VBROADCASTSD l64c<>+24(SB), Y9; \
	VADDPD Y9, Y6, Y6; \
	VMULPD Y6, Y4, Y4; \
	VBROADCASTSD l64c<>+64(SB), Y6; \
	VMULPD Y5, Y6, Y6; \
	VBROADCASTSD l64c<>+48(SB), Y9; \
	VADDPD Y9, Y6, Y6; \
	VMULPD Y5, Y6, Y6; \
	VBROADCASTSD l64c<>+32(SB), Y9; \
	VADDPD Y9, Y6, Y6; \
	VMULPD Y6, Y5, Y5; \
	VADDPD Y5, Y4, Y4; \
	VBROADCASTSD l64c<>+80(SB), Y6; \
	VMULPD Y2, Y6, Y6; \
	VMULPD Y2, Y6, Y6; \
	VADDPD Y6, Y4, Y4; \
	VMULPD Y4, Y3, Y3; \
	VBROADCASTSD l64c<>+16(SB), Y4; \
	VMULPD Y1, Y4, Y4; \
	VADDPD Y4, Y3, Y3; \
	VSUBPD Y3, Y6, Y6; \
	VSUBPD Y2, Y6, Y6; \
	VBROADCASTSD l64c<>+8(SB), Y9; \
	VMULPD Y9, Y1, Y1; \
	VSUBPD Y6, Y1, Y1

// SLOWLOG4 jumps to done unless the eight float64s at SI are positive
// normal numbers: their bits in [the least normal's, +Inf's) as signed
// integers (Y12, Y13 hold the least normal's bits and +Inf's − 1).
#define SLOWLOG4 \
	VMOVDQU 0(SI), Y0; \
	VMOVDQU 32(SI), Y1; \
	CHECKLOG4

// SLOWLOG1P4 is SLOWLOG4 for 1 + x (Y10 = 1).
#define SLOWLOG1P4 \
	VADDPD 0(SI), Y10, Y0; \
	VADDPD 32(SI), Y10, Y1; \
	CHECKLOG4

// CHECKLOG4 jumps to done unless Y0 and Y1 are positive normal numbers.
#define CHECKLOG4 \
	VPCMPGTQ Y0, Y12, Y2; \
	VPCMPGTQ Y13, Y0, Y3; \
	VPOR Y3, Y2, Y2; \
	VPCMPGTQ Y1, Y12, Y3; \
	VPOR Y3, Y2, Y2; \
	VPCMPGTQ Y13, Y1, Y3; \
	VPOR Y3, Y2, Y2; \
	VPTEST Y2, Y2; \
	JNZ done

#define LOG4TWICE \
	LOG4(0); \
	LOG4(32)

// SLOWLOG8 is SLOWLOG4 on AVX-512 (Z26, Z25 hold the least normal's and
// +Inf's bits).
#define SLOWLOG8 \
	VMOVDQU64 0(SI), Z0; \
	CHECKLOG8

// SLOWLOG1P8 is SLOWLOG8 for 1 + x (Z28 = 1).
#define SLOWLOG1P8 \
	VADDPD 0(SI), Z28, Z0; \
	CHECKLOG8

// CHECKLOG8 jumps to done unless Z0 holds positive normal numbers.
#define CHECKLOG8 \
	VPCMPQ $1, Z26, Z0, K2; \
	VPCMPQ $5, Z25, Z0, K3; \
	KORB K3, K2, K2; \
	KORTESTB K2, K2; \
	JNZ done

#define LOG8AT0 \
	LOG8(0)

// LOGSETUP4 and LOGSETUP8 load the arguments and the constants the
// kernels keep in registers (LOG4's and SLOWLOG4's; LOG8's and
// SLOWLOG8's).
#define LOGSETUP4 \
	ARGS; \
	VBROADCASTSD l64c<>+88(SB), Y10; \
	VMOVDQU l64c<>+152(SB), Y11; \
	VPBROADCASTQ l64c<>+120(SB), Y12; \
	VPBROADCASTQ l64c<>+144(SB), Y13; \
	VPBROADCASTQ l64c<>+104(SB), Y14; \
	VPBROADCASTQ l64c<>+112(SB), Y15

#define LOGSETUP8 \
	ARGS; \
	VBROADCASTSD l64c<>+88(SB), Z28; \
	VBROADCASTSD l64c<>+0(SB), Z27; \
	VPBROADCASTQ l64c<>+120(SB), Z26; \
	VPBROADCASTQ l64c<>+128(SB), Z25

// func logF64(d, a unsafe.Pointer, n int) int
// n a multiple of 8; AVX2/FMA.
TEXT ·logF64(SB), NOSPLIT, $0-32
	LOGSETUP4
	UNTIL8(SLOWLOG4, LOG4TWICE, 24)

// func logF64AVX512(d, a unsafe.Pointer, n int) int
// n a multiple of 8.
TEXT ·logF64AVX512(SB), NOSPLIT, $0-32
	LOGSETUP8
	UNTIL8(SLOWLOG8, LOG8AT0, 24)

// LOG1P8 is log1p64 for the eight float64s at off(SI), stored at
// off(DI): with u = 1 + x, log u + (x − (u − 1))/u, x's sign (Z7, Z8
// change).
#define LOG1P8(off) \
	VMOVUPD off(SI), Z8; \
	VADDPD Z28, Z8, Z0; \
	LOGCORE8; \
	VSUBPD Z28, Z0, Z7; \
	VSUBPD Z7, Z8, Z7; \
	VDIVPD Z0, Z7, Z7; \
	VADDPD Z7, Z1, Z1; \
	VANDPD.BCST l64c<>+184(SB), Z8, Z7; \
	VORPD Z7, Z1, Z1; \
	VMOVUPD Z1, off(DI)

#define LOG1P8AT0 \
	LOG1P8(0)

// LOG1P4 is LOG1P8 in four lanes on AVX2 (x read again after the core).
#define LOG1P4(off) \
	VMOVUPD off(SI), Y0; \
	VADDPD Y10, Y0, Y0; \
	LOGCORE4; \
	VMOVUPD off(SI), Y2; \
	VSUBPD Y10, Y0, Y3; \
	VSUBPD Y3, Y2, Y3; \
	VDIVPD Y0, Y3, Y3; \
	VADDPD Y3, Y1, Y1; \
	VBROADCASTSD l64c<>+184(SB), Y4; \
	VANDPD Y4, Y2, Y4; \
	VORPD Y4, Y1, Y1; \
	VMOVUPD Y1, off(DI)

#define LOG1P4TWICE \
	LOG1P4(0); \
	LOG1P4(32)

// func log1pF64(d, a unsafe.Pointer, n int) int
// n a multiple of 8; AVX2/FMA; stops before a step with a lane whose
// 1 + x is not a positive normal number.
TEXT ·log1pF64(SB), NOSPLIT, $0-32
	LOGSETUP4
	UNTIL8(SLOWLOG1P4, LOG1P4TWICE, 24)

// func log1pF64AVX512(d, a unsafe.Pointer, n int) int
// n a multiple of 8.
TEXT ·log1pF64AVX512(SB), NOSPLIT, $0-32
	LOGSETUP8
	UNTIL8(SLOWLOG1P8, LOG1P8AT0, 24)
