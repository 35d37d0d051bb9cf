// Code in this file: float32 Expm1 in float64 lanes with
// hyp32.go's operations (expParts, then a few fused multiply-adds), so
// results match the Go loops' bit for bit (TestHypKernels): AVX2/FMA
// kernels four lanes a body, AVX-512 ones eight.

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

C4(hypv<>, 0, $0x3ff71547652b82fe)   // log2e
C4(hypv<>, 32, $0x3fe62e42fee00000)  // ln2hi
C4(hypv<>, 64, $0x3dea39ef35793c76)  // ln2lo
C4(hypv<>, 96, $0x3efa01a01a01a01a)  // 1/8!: the even half
C4(hypv<>, 128, $0x3f56c16c16c16c17) // 1/6!
C4(hypv<>, 160, $0x3fa5555555555555) // 1/4!
C4(hypv<>, 192, $0x3fe0000000000000) // 1/2
C4(hypv<>, 224, $0x3ec71de3a556c734) // 1/9!: the odd half
C4(hypv<>, 256, $0x3f2a01a01a01a01a) // 1/7!
C4(hypv<>, 288, $0x3f81111111111111) // 1/5!
C4(hypv<>, 320, $0x3fc5555555555555) // 1/3!
C4(hypv<>, 352, $0x3ff0000000000000) // 1
C4(hypv<>, 384, $1023)
DATA hypv<>+480(SB)/8, $0xc05b800000000000 // −110
DATA hypv<>+488(SB)/8, $0x4059000000000000 // 100
DATA hypv<>+496(SB)/4, $0x80000000         // float32 sign
DATA hypv<>+504(SB)/8, $0x4338000000000000 // 0x1.8p52
GLOBL hypv<>(SB), RODATA|NOPTR, $512

// HALVES is expParts on four float64 lanes, x clamped below already (or
// |x|): x becomes r; kk, k, z, c and o get k's magic-number form, k, r²,
// and e^r's even and odd halves. Y9 holds the magic number, Y14 100 (in
// a register: VMINPD keeps its second source, x, where x is NaN).
#define HALVES(x, kk, k, z, c, o) \
	VMINPD x, Y14, x; \
	VMOVAPD Y9, kk; \
	VFMADD231PD hypv<>+0(SB), x, kk; \
	VSUBPD Y9, kk, k; \
	VFNMADD231PD hypv<>+32(SB), k, x; \
	VFNMADD231PD hypv<>+64(SB), k, x; \
	VMULPD x, x, z; \
	VMOVUPD hypv<>+96(SB), c; \
	VMOVUPD hypv<>+224(SB), o; \
	VFMADD213PD hypv<>+256(SB), z, o; \
	VFMADD213PD hypv<>+128(SB), z, c; \
	VFMADD213PD hypv<>+288(SB), z, o; \
	VFMADD213PD hypv<>+160(SB), z, c; \
	VFMADD213PD hypv<>+320(SB), z, o; \
	VFMADD213PD hypv<>+192(SB), z, c; \
	VFMADD213PD hypv<>+352(SB), z, o

// HALVES8 is HALVES in eight lanes on AVX-512 (F, DQ, VL), the constants
// broadcast, Z9 and Z14 as Y9 and Y14.
#define HALVES8(x, kk, k, z, c, o) \
	VMINPD x, Z14, x; \
	VMOVAPD Z9, kk; \
	VFMADD231PD.BCST hypv<>+0(SB), x, kk; \
	VSUBPD Z9, kk, k; \
	VFNMADD231PD.BCST hypv<>+32(SB), k, x; \
	VFNMADD231PD.BCST hypv<>+64(SB), k, x; \
	VMULPD x, x, z; \
	VBROADCASTSD hypv<>+96(SB), c; \
	VBROADCASTSD hypv<>+224(SB), o; \
	VFMADD213PD.BCST hypv<>+256(SB), z, o; \
	VFMADD213PD.BCST hypv<>+128(SB), z, c; \
	VFMADD213PD.BCST hypv<>+288(SB), z, o; \
	VFMADD213PD.BCST hypv<>+160(SB), z, c; \
	VFMADD213PD.BCST hypv<>+320(SB), z, o; \
	VFMADD213PD.BCST hypv<>+192(SB), z, c; \
	VFMADD213PD.BCST hypv<>+352(SB), z, o

// SETUP loads the arguments and the registers the bodies read: Y9 =
// 0x1.8p52, Y12 = 1, Y13 = −110, Y14 = 100, Y15 = the float32 sign bit;
// SETUP512 the same in Z9 and Z12–Z15.
#define SETUP \
	ARGS; \
	VBROADCASTSD hypv<>+504(SB), Y9; \
	VBROADCASTSD hypv<>+352(SB), Y12; \
	VBROADCASTSD hypv<>+480(SB), Y13; \
	VBROADCASTSD hypv<>+488(SB), Y14; \
	VBROADCASTSS hypv<>+496(SB), Y15

#define SETUP512 \
	ARGS; \
	VBROADCASTSD hypv<>+504(SB), Z9; \
	VBROADCASTSD hypv<>+352(SB), Z12; \
	VBROADCASTSD hypv<>+480(SB), Z13; \
	VBROADCASTSD hypv<>+488(SB), Z14; \
	VBROADCASTSS hypv<>+496(SB), Z15

// Expm1: s·p + (s−1), s = 2^k, p = z·c + r·o; x's sign ORed in (for −0:
// p is +0).
#define EXPM1(off) \
	VCVTPS2PD off(SI), Y0; \
	VMAXPD Y0, Y13, Y0; \
	HALVES(Y0, Y5, Y1, Y2, Y3, Y4); \
	VMULPD Y4, Y0, Y4; \
	VFMADD213PD Y4, Y2, Y3; \
	VPADDQ hypv<>+384(SB), Y5, Y5; \
	VPSLLQ $52, Y5, Y5; \
	VSUBPD Y12, Y5, Y6; \
	VFMADD213PD Y6, Y5, Y3; \
	STORESIGN(off, Y3, X3)

// EXPM1_8 is EXPM1 in eight lanes.
#define EXPM1_8(off) \
	VCVTPS2PD off(SI), Z0; \
	VMAXPD Z0, Z13, Z0; \
	HALVES8(Z0, Z5, Z1, Z2, Z3, Z4); \
	VMULPD Z4, Z0, Z4; \
	VFMADD213PD Z4, Z2, Z3; \
	VPADDQ.BCST hypv<>+384(SB), Z5, Z5; \
	VPSLLQ $52, Z5, Z5; \
	VSUBPD Z12, Z5, Z6; \
	VFMADD213PD Z6, Z5, Z3; \
	STORESIGN8(off, Z3, Y3)

// func expm1F32(d, a unsafe.Pointer, n int)
// n a multiple of 8; every lane is done here (NaN and ±Inf too). The
// AVX-512 kernels take n a multiple of 16.
TEXT ·expm1F32(SB), NOSPLIT, $0-24
	SETUP
	LOOP(EXPM1, 16, 8)

// func expm1F32AVX512(d, a unsafe.Pointer, n int)
TEXT ·expm1F32AVX512(SB), NOSPLIT, $0-24
	SETUP512
	LOOP(EXPM1_8, 32, 16)

