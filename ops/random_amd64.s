// Philox-4x32-10 in AVX2: eight blocks a step, four a register set, each
// block's state word in a 64-bit lane so that VPMULUDQ gives the round's
// 32×32→64 products. The bits are Philox4x32's (random.go).

//go:build amd64 && !purego

#include "textflag.h"

DATA philoxc<>+0(SB)/8, $0xD2511F53 // M0, per qword
DATA philoxc<>+8(SB)/8, $0xD2511F53
DATA philoxc<>+16(SB)/8, $0xD2511F53
DATA philoxc<>+24(SB)/8, $0xD2511F53
DATA philoxc<>+32(SB)/8, $0xCD9E8D57 // M1
DATA philoxc<>+40(SB)/8, $0xCD9E8D57
DATA philoxc<>+48(SB)/8, $0xCD9E8D57
DATA philoxc<>+56(SB)/8, $0xCD9E8D57
DATA philoxc<>+64(SB)/8, $0 // lane counter offsets 0…3
DATA philoxc<>+72(SB)/8, $1
DATA philoxc<>+80(SB)/8, $2
DATA philoxc<>+88(SB)/8, $3
DATA philoxc<>+96(SB)/8, $4 // the second set's offset
DATA philoxc<>+104(SB)/8, $4
DATA philoxc<>+112(SB)/8, $4
DATA philoxc<>+120(SB)/8, $4
DATA philoxc<>+128(SB)/8, $8 // a step's advance
DATA philoxc<>+136(SB)/8, $8
DATA philoxc<>+144(SB)/8, $8
DATA philoxc<>+152(SB)/8, $8
DATA philoxc<>+160(SB)/8, $0x3380000033800000 // 2⁻²⁴ float32
DATA philoxc<>+168(SB)/8, $0x3380000033800000
DATA philoxc<>+176(SB)/8, $0x3380000033800000
DATA philoxc<>+184(SB)/8, $0x3380000033800000
DATA philoxc<>+192(SB)/8, $0x4330000000000000 // 2⁵² (high dwords: lo's magic)
DATA philoxc<>+200(SB)/8, $0x4330000000000000
DATA philoxc<>+208(SB)/8, $0x4330000000000000
DATA philoxc<>+216(SB)/8, $0x4330000000000000
DATA philoxc<>+224(SB)/8, $0x4530000000000000 // 2⁸⁴ (hi's magic)
DATA philoxc<>+232(SB)/8, $0x4530000000000000
DATA philoxc<>+240(SB)/8, $0x4530000000000000
DATA philoxc<>+248(SB)/8, $0x4530000000000000
DATA philoxc<>+256(SB)/8, $0x4530000000100000 // 2⁸⁴ + 2⁵²
DATA philoxc<>+264(SB)/8, $0x4530000000100000
DATA philoxc<>+272(SB)/8, $0x4530000000100000
DATA philoxc<>+280(SB)/8, $0x4530000000100000
DATA philoxc<>+288(SB)/8, $0x3CA0000000000000 // 2⁻⁵³
DATA philoxc<>+296(SB)/8, $0x3CA0000000000000
DATA philoxc<>+304(SB)/8, $0x3CA0000000000000
DATA philoxc<>+312(SB)/8, $0x3CA0000000000000
GLOBL philoxc<>(SB), RODATA|NOPTR, $320

// ROUND is one Philox round of a register set: products p0 = M0·c0 and
// p1 = M1·c2; c0 = hi(p1)^c1^k0, c2 = hi(p0)^c3^k1; the new c1 and c3
// are p1 and p0 where they lie, so the next round names them so.
#define ROUND(c0, c1, c2, c3, p0, p1, k) \
	VPMULUDQ Y12, c0, p0; \
	VPMULUDQ Y13, c2, p1; \
	VPSRLQ   $32, p1, c0; \
	VPXOR    c1, c0, c0; \
	VPXOR    (k*64)(R8), c0, c0; \
	VPSRLQ   $32, p0, c2; \
	VPXOR    c3, c2, c2; \
	VPXOR    (k*64+32)(R8), c2, c2

// TWO is rounds k and k+1 of both sets; the state comes back to
// Y0…Y3 and Y4…Y7.
#define TWO(k) \
	ROUND(Y0, Y1, Y2, Y3, Y8, Y9, k); \
	ROUND(Y4, Y5, Y6, Y7, Y10, Y11, k); \
	ROUND(Y0, Y9, Y2, Y8, Y3, Y1, (k+1)); \
	ROUND(Y4, Y11, Y6, Y10, Y7, Y5, (k+1))

// WORDS puts a set's four blocks in stream order: o0 = blocks 0 and 1's
// words, o1 = blocks 2 and 3's (c1 … c3 clobbered).
#define WORDS(c0, c1, c2, c3, t0, t1, o0, o1) \
	VPSLLQ      $32, c1, c1; \
	VPBLENDD    $0xAA, c1, c0, c0; \
	VPSLLQ      $32, c3, c3; \
	VPBLENDD    $0xAA, c3, c2, c2; \
	VPUNPCKLQDQ c2, c0, t0; \
	VPUNPCKHQDQ c2, c0, t1; \
	VPERM2I128  $0x20, t1, t0, o0; \
	VPERM2I128  $0x31, t1, t0, o1

// F32 turns eight words into float32 uniforms (w >> 8)·2⁻²⁴: exact.
#define F32(y) \
	VPSRLD    $8, y, y; \
	VCVTDQ2PS y, y; \
	VMULPS    philoxc<>+160(SB), y, y

// F64 turns four word pairs x into float64 uniforms (x >> 11)·2⁻⁵³: the
// 53-bit integer as (2⁸⁴ + hi·2³²) − (2⁸⁴ + 2⁵²) + (2⁵² + lo), each step
// exact, as Go's conversion is.
#define F64(y, t) \
	VPSRLQ   $11, y, y; \
	VPBLENDD $0xAA, philoxc<>+192(SB), y, t; \
	VPSRLQ   $32, y, y; \
	VPOR     philoxc<>+224(SB), y, y; \
	VSUBPD   philoxc<>+256(SB), y, y; \
	VADDPD   t, y, y; \
	VMULPD   philoxc<>+288(SB), y, y

// func philoxBlocksAVX2(dst unsafe.Pointer, b uint64, nb int, keys *philoxKeys, mode int, nt bool)
TEXT ·philoxBlocksAVX2(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ b+8(FP), AX
	MOVQ nb+16(FP), CX
	MOVQ keys+24(FP), R8
	MOVQ mode+32(FP), DX
	MOVBLZX nt+40(FP), R10
	VMOVDQU philoxc<>+0(SB), Y12
	VMOVDQU philoxc<>+32(SB), Y13
	MOVQ AX, X14
	VPBROADCASTQ X14, Y14
	VPADDQ philoxc<>+64(SB), Y14, Y14
	SHRQ $3, CX
	JZ done

loop:
	VPSRLQ $32, Y14, Y1
	VMOVDQA Y14, Y0
	VPADDQ philoxc<>+96(SB), Y14, Y4
	VPSRLQ $32, Y4, Y5
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPADDQ philoxc<>+128(SB), Y14, Y14
	TWO(0)
	TWO(2)
	TWO(4)
	TWO(6)
	TWO(8)
	WORDS(Y0, Y1, Y2, Y3, Y8, Y9, Y0, Y1)
	WORDS(Y4, Y5, Y6, Y7, Y10, Y11, Y4, Y5)
	CMPQ DX, $1
	JEQ f32
	JGT f64
	JMP store

f32:
	F32(Y0)
	F32(Y1)
	F32(Y4)
	F32(Y5)
	JMP store

f64:
	F64(Y0, Y8)
	F64(Y1, Y9)
	F64(Y4, Y10)
	F64(Y5, Y11)

store:
	TESTQ R10, R10
	JNZ ntstore
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y4, 64(DI)
	VMOVDQU Y5, 96(DI)
	JMP next

ntstore:
	VMOVNTDQ Y0, 0(DI)
	VMOVNTDQ Y1, 32(DI)
	VMOVNTDQ Y4, 64(DI)
	VMOVNTDQ Y5, 96(DI)

next:
	ADDQ $128, DI
	DECQ CX
	JNZ loop
	TESTQ R10, R10
	JZ done
	SFENCE

done:
	VZEROUPPER
	RET

// Box–Muller for float64 in AVX2, four pairs at a step: the very
// operations of boxMuller, randLog and randSinCos (random.go), in their
// order, with no fused multiply-add, so the bits are theirs. Constants
// come from bmConsts (random.go), one 32-byte vector each.
#define K(i) ((i)*32)(R9)

#define C_MANT 0
#define C_ONE 1
#define C_2P52 2
#define C_2P52B 3
#define C_SQRT2 4
#define C_HALF 5
#define C_TWO 6
#define C_LOG 7
#define C_LN2LO 17
#define C_LN2HI 18
#define C_M2 19
#define C_2P61 20
#define C_2P84 21
#define C_2P84_53 22
#define C_ANGLE 23
#define C_SIN 24
#define C_COS 32
#define C_SIGN 41
#define C_INT1 42
#define C_2P84_52 43
#define C_2PM53 44

#define HORNER(p, z, c) \
	VMULPD z, p, p; \
	VADDPD c, p, p

// func boxMullerAVX2(dst, w unsafe.Pointer, n int, c *bmTable)
TEXT ·boxMullerAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R9
	SHRQ $2, CX
	JZ bmdone

bmloop:
	// a block is x, a; lanes hold blocks 0, 2, 1, 3;
	// u1 = ((x >> 11) + 1)·2⁻⁵³, converted as in F64
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPUNPCKLQDQ Y1, Y0, Y2
	VPUNPCKHQDQ Y1, Y0, Y1
	VPSRLQ $11, Y2, Y0
	VPADDQ K(C_INT1), Y0, Y0
	VPBLENDD $0xAA, K(C_2P52), Y0, Y2
	VPSRLQ $32, Y0, Y0
	VPOR K(C_2P84), Y0, Y0
	VSUBPD K(C_2P84_52), Y0, Y0
	VADDPD Y2, Y0, Y0
	VMULPD K(C_2PM53), Y0, Y0

	// randLog(u1): m in [√½, √2), e as a float64
	VPAND K(C_MANT), Y0, Y2
	VPOR K(C_ONE), Y2, Y2
	VPSRLQ $52, Y0, Y3
	VPOR K(C_2P52), Y3, Y3
	VSUBPD K(C_2P52B), Y3, Y3
	VCMPPD $0x1E, K(C_SQRT2), Y2, Y4
	VMULPD K(C_HALF), Y2, Y5
	VBLENDVPD Y4, Y5, Y2, Y2
	VANDPD K(C_ONE), Y4, Y4
	VADDPD Y4, Y3, Y3
	VSUBPD K(C_ONE), Y2, Y2
	VADDPD K(C_TWO), Y2, Y5
	VDIVPD Y5, Y2, Y2
	VMULPD Y2, Y2, Y5
	VMOVUPD K(C_LOG+9), Y6
	HORNER(Y6, Y5, K(C_LOG+8))
	HORNER(Y6, Y5, K(C_LOG+7))
	HORNER(Y6, Y5, K(C_LOG+6))
	HORNER(Y6, Y5, K(C_LOG+5))
	HORNER(Y6, Y5, K(C_LOG+4))
	HORNER(Y6, Y5, K(C_LOG+3))
	HORNER(Y6, Y5, K(C_LOG+2))
	HORNER(Y6, Y5, K(C_LOG+1))
	HORNER(Y6, Y5, K(C_LOG+0))
	VADDPD Y2, Y2, Y2
	VMULPD Y5, Y6, Y6
	VMULPD Y2, Y6, Y6
	VADDPD Y2, Y6, Y6
	VMULPD K(C_LN2LO), Y3, Y7
	VADDPD Y7, Y6, Y6
	VMULPD K(C_LN2HI), Y3, Y7
	VADDPD Y6, Y7, Y0
	// r = √(−2·ln u1)
	VMULPD K(C_M2), Y0, Y0
	VSQRTPD Y0, Y0

	// randSinCos(a): t = a + 2⁶¹, its top two bits the quarter turn
	VPADDQ K(C_2P61), Y1, Y1
	VPSLLQ $2, Y1, Y2
	VPSRLQ $11, Y2, Y2
	// float64(r) = u − 2⁵², u = (t mod 2⁶²) >> 9 < 2⁵³, exactly:
	// (2⁸⁴ + hi·2³²) − (2⁸⁴ + 2⁵³) + (2⁵² + lo)
	VPBLENDD $0xAA, K(C_2P52), Y2, Y3
	VPSRLQ $32, Y2, Y2
	VPOR K(C_2P84), Y2, Y2
	VSUBPD K(C_2P84_53), Y2, Y2
	VADDPD Y3, Y2, Y2
	VMULPD K(C_ANGLE), Y2, Y2
	VMULPD Y2, Y2, Y3
	VMOVUPD K(C_SIN+7), Y4
	VMOVUPD K(C_COS+8), Y5
	HORNER(Y5, Y3, K(C_COS+7))
	HORNER(Y4, Y3, K(C_SIN+6))
	HORNER(Y5, Y3, K(C_COS+6))
	HORNER(Y4, Y3, K(C_SIN+5))
	HORNER(Y5, Y3, K(C_COS+5))
	HORNER(Y4, Y3, K(C_SIN+4))
	HORNER(Y5, Y3, K(C_COS+4))
	HORNER(Y4, Y3, K(C_SIN+3))
	HORNER(Y5, Y3, K(C_COS+3))
	HORNER(Y4, Y3, K(C_SIN+2))
	HORNER(Y5, Y3, K(C_COS+2))
	HORNER(Y4, Y3, K(C_SIN+1))
	HORNER(Y5, Y3, K(C_COS+1))
	HORNER(Y4, Y3, K(C_SIN+0))
	HORNER(Y5, Y3, K(C_COS+0))
	VMULPD Y3, Y4, Y4
	VMULPD Y2, Y4, Y4
	VADDPD Y2, Y4, Y4
	VMULPD Y3, Y5, Y5
	VADDPD K(C_ONE), Y5, Y5
	// quarter q: q&1 swaps sin and cos; sin is negated for q&2, cos
	// for q = 1, 2 (the two bits differ)
	VPSLLQ $1, Y1, Y6
	VBLENDVPD Y6, Y5, Y4, Y7
	VBLENDVPD Y6, Y4, Y5, Y8
	VPAND K(C_SIGN), Y1, Y9
	VXORPD Y9, Y7, Y7
	VPXOR Y1, Y6, Y6
	VPAND K(C_SIGN), Y6, Y6
	VXORPD Y6, Y8, Y8
	VMULPD Y8, Y0, Y8
	VMULPD Y7, Y0, Y7

	VUNPCKLPD Y7, Y8, Y9
	VUNPCKHPD Y7, Y8, Y10
	VMOVUPD Y9, (DI)
	VMOVUPD Y10, 32(DI)
	ADDQ $64, DI
	ADDQ $64, SI

bmnext:
	DECQ CX
	JNZ bmloop

bmdone:
	VZEROUPPER
	RET
