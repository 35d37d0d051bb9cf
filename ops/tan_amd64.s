// Code in this file: float32 Tan in float64 lanes with math32.go's tan32
// (the same reduction, polynomials and fused multiply-adds), so results match
// the Go loop's bit for bit (TestTanKernels). A kernel stops before a
// step of eight with a lane tan32 hands to math.Tan (|x| ≥ 2^20, NaN,
// Inf) and returns the elements done: lanesUntil does that step.

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

DATA tanv<>+0(SB)/4, $0x7fffffff        // float32 |x|
DATA tanv<>+4(SB)/4, $0x49800000        // float32 2^20
C4(tanv<>, 32, $0x3fe45f306dc9c883)  // 2/π
C4(tanv<>, 64, $0x4338000000000000)  // 0x1.8p52
C4(tanv<>, 96, $0x3ff921fb54400000)  // pio2a
C4(tanv<>, 128, $0x3dd0b4611a600000) // pio2b
C4(tanv<>, 160, $0x3ba3198a2e037073) // pio2c
C4(tanv<>, 192, $0xbf29943e03bca900) // sin r / r in r² (math32.go's tanSin)
C4(tanv<>, 224, $0x3f811073afacc45b)
C4(tanv<>, 256, $0xbfc5555452683e18)
C4(tanv<>, 288, $0x3ff0000000000000) // 1
C4(tanv<>, 320, $0x3ef99169f073f400) // cos r in r² (tanCos)
C4(tanv<>, 352, $0xbf56c07f165f2d20)
C4(tanv<>, 384, $0x3fa55553c7890a87)
C4(tanv<>, 416, $0xbfdffffffcb82d19)
C4(tanv<>, 448, $0x3ff0000000000000) // 1
DATA tanv<>+480(SB)/8, $1               // int64 1: k's low bit
GLOBL tanv<>(SB), RODATA|NOPTR, $488

// SLOW jumps to done unless all eight float32s at SI have |x| < 2^20
// (Y14, Y15 hold |x|'s mask and 2^20; NaN fails the comparison).
#define SLOW \
	VANDPS 0(SI), Y14, Y8; \
	VCMPPS $5, Y15, Y8, Y8; \
	VMOVMSKPS Y8, AX; \
	TESTQ AX, AX; \
	JNZ done

// TAN is tan32 for the four float32s at off(SI), stored at off(DI).
#define TAN(off) \
	VCVTPS2PD off(SI), Y0; \
	VMOVUPD tanv<>+64(SB), Y2; \
	VFMADD231PD tanv<>+32(SB), Y0, Y2; \
	VSUBPD tanv<>+64(SB), Y2, Y1; \
	VFNMADD231PD tanv<>+96(SB), Y1, Y0; \
	VFNMADD231PD tanv<>+128(SB), Y1, Y0; \
	VFNMADD231PD tanv<>+160(SB), Y1, Y0; \
	VMULPD Y0, Y0, Y3; \
	VMOVUPD tanv<>+192(SB), Y4; \
	VMOVUPD tanv<>+320(SB), Y5; \
	VFMADD213PD tanv<>+224(SB), Y3, Y4; \
	VFMADD213PD tanv<>+352(SB), Y3, Y5; \
	VFMADD213PD tanv<>+256(SB), Y3, Y4; \
	VFMADD213PD tanv<>+384(SB), Y3, Y5; \
	VFMADD213PD tanv<>+288(SB), Y3, Y4; \
	VFMADD213PD tanv<>+416(SB), Y3, Y5; \
	VFMADD213PD tanv<>+448(SB), Y3, Y5; \
	VMULPD Y4, Y0, Y4; \
	VPSLLQ $63, Y2, Y2; \
	VBLENDVPD Y2, Y5, Y4, Y6; \
	VBLENDVPD Y2, Y4, Y5, Y7; \
	VXORPD Y2, Y6, Y6; \
	VDIVPD Y7, Y6, Y6; \
	VCVTPD2PSY Y6, X6; \
	VMOVUPS X6, off(DI)

// TAN8 is TAN for the eight float32s at off(SI) on AVX-512 (F, DQ, VL):
// K1 the odd quadrants (VPTESTMQ of k's low bit), where the quotient is
// −c/s (Z12 holds 0: c is never 0, so 0 − c is −c's bits).
#define TAN8(off) \
	VCVTPS2PD off(SI), Z0; \
	VBROADCASTSD tanv<>+64(SB), Z2; \
	VFMADD231PD.BCST tanv<>+32(SB), Z0, Z2; \
	VSUBPD.BCST tanv<>+64(SB), Z2, Z1; \
	VFNMADD231PD.BCST tanv<>+96(SB), Z1, Z0; \
	VFNMADD231PD.BCST tanv<>+128(SB), Z1, Z0; \
	VFNMADD231PD.BCST tanv<>+160(SB), Z1, Z0; \
	VMULPD Z0, Z0, Z3; \
	VBROADCASTSD tanv<>+192(SB), Z4; \
	VBROADCASTSD tanv<>+320(SB), Z5; \
	VFMADD213PD.BCST tanv<>+224(SB), Z3, Z4; \
	VFMADD213PD.BCST tanv<>+352(SB), Z3, Z5; \
	VFMADD213PD.BCST tanv<>+256(SB), Z3, Z4; \
	VFMADD213PD.BCST tanv<>+384(SB), Z3, Z5; \
	VFMADD213PD.BCST tanv<>+288(SB), Z3, Z4; \
	VFMADD213PD.BCST tanv<>+416(SB), Z3, Z5; \
	VFMADD213PD.BCST tanv<>+448(SB), Z3, Z5; \
	VMULPD Z4, Z0, Z4; \
	VPTESTMQ.BCST tanv<>+480(SB), Z2, K1; \
	VBLENDMPD Z4, Z5, K1, Z7; \
	VSUBPD Z5, Z12, K1, Z4; \
	VDIVPD Z7, Z4, Z6; \
	VCVTPD2PS Z6, Y6; \
	VMOVUPS Y6, off(DI)

// SLOW16 jumps to slow unless all sixteen float32s at SI have |x| <
// 2^20 (Z14, Z15 as SLOW's Y14, Y15).
#define SLOW16(slow) \
	VANDPS 0(SI), Z14, Z8; \
	VCMPPS $5, Z15, Z8, K2; \
	KORTESTW K2, K2; \
	JNZ slow

// TANS is TAN twice: eight lanes, as TAN8(0) on AVX-512.
#define TANS \
	TAN(0); \
	TAN(16)

#define TAN8AT0 \
	TAN8(0)

// TANSTEPS runs body over steps of eight up to one SLOW stops (BX holds
// n, CX the elements left), and returns the elements done.
#define TANSTEPS(body) \
loop: \
	CMPQ CX, $8; \
	JB done; \
	SLOW; \
	body; \
	ADDQ $32, SI; \
	ADDQ $32, DI; \
	SUBQ $8, CX; \
	JMP loop; \
done: \
	SUBQ CX, BX; \
	MOVQ BX, ret+24(FP); \
	VZEROUPPER; \
	RET

// func tanF32(d, a unsafe.Pointer, n int) int
// n a multiple of 8.
TEXT ·tanF32(SB), NOSPLIT, $0-32
	ARGS
	MOVQ CX, BX
	VBROADCASTSS tanv<>+0(SB), Y14
	VBROADCASTSS tanv<>+4(SB), Y15
	TANSTEPS(TANS)

// func tanF32AVX512(d, a unsafe.Pointer, n int) int
// tanF32 on AVX-512: sixteen lanes a step while SLOW16 finds no slow
// lane, then TANSTEPS's steps of eight, which stop before the step that
// has one.
TEXT ·tanF32AVX512(SB), NOSPLIT, $0-32
	ARGS
	MOVQ CX, BX
	VBROADCASTSS tanv<>+0(SB), Z14
	VBROADCASTSS tanv<>+4(SB), Z15
	VPXORQ Z12, Z12, Z12
loop16:
	CMPQ CX, $16
	JB steps8
	SLOW16(steps8)
	TAN8(0)
	TAN8(32)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop16
steps8:
	TANSTEPS(TAN8AT0)
