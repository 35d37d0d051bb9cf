//go:build amd64 && !purego

#include "textflag.h"

// Box–Muller for float32 in AVX2 and FMA, eight pairs at a step: the very
// operations of boxMuller32, randLog32, randSqrt32 and randSinCos32
// (random_normal32.go), fused multiply-adds where they take fma32, so
// the bits are theirs. Constants come from bm32Consts, one 32-byte
// vector each.
#define J(i) ((i)*32)(R9)

#define I_LO16 0
#define I_ONE 1
#define F_2P16 2
#define I_MANT 3
#define I_SQRT2M 4
#define I_127 5
#define I_32 6
#define F_LOG 7
#define F_LN2HI 16
#define F_LN2LO 17
#define F_M2 18
#define I_MAGIC 19
#define F_HALF 20
#define I_2P29 21
#define I_2P30M 22
#define F_ANGLE 23
#define F_SIN 24
#define F_COS 28
#define F_ONE 33
#define I_SIGN 34

#define HORNER32(p, z, c) \
	VFMADD213PS c, z, p

// NEWTON is one step y = y + y·(0.5 − (h·y)·y), in two fused
// multiply-adds.
#define NEWTON(y, h, t) \
	VMULPS y, h, t; \
	VFNMADD213PS J(F_HALF), y, t; \
	VFMADD231PS t, y, y

// func boxMuller32AVX2(dst, w unsafe.Pointer, n int, c *bm32Table)
TEXT ·boxMuller32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R9
	SHRQ $3, CX
	JZ b32done

b32loop:
	// pair i is words 2i (u) and 2i+1 (a); lanes hold pairs
	// 0 1 4 5 | 2 3 6 7
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VSHUFPS $0xDD, Y1, Y0, Y1

	// randLog32(u): float32(u+1) rounded once, as (u>>16)·2¹⁶ +
	// ((u & 0xffff) + 1), both parts exact
	VPSRLD $16, Y2, Y3
	VCVTDQ2PS Y3, Y3
	VMULPS J(F_2P16), Y3, Y3
	VPAND J(I_LO16), Y2, Y4
	VPADDD J(I_ONE), Y4, Y4
	VCVTDQ2PS Y4, Y4
	VADDPS Y4, Y3, Y3
	// k: its exponent, one more where its mantissa reaches √2's
	VPSRLD $23, Y3, Y4
	VPSUBD J(I_127), Y4, Y4
	VPAND J(I_MANT), Y3, Y5
	VPCMPGTD J(I_SQRT2M), Y5, Y5
	VPSUBD Y5, Y4, Y4
	// f = (u + 1 − 2ᵏ)·2⁻ᵏ: the difference is below 2³¹ in magnitude,
	// so 32-bit wrapping arithmetic gives it exactly (2³² − 2³² = 0)
	VMOVDQU J(I_ONE), Y5
	VPSLLVD Y4, Y5, Y6
	VPADDD Y5, Y2, Y2
	VPSUBD Y6, Y2, Y2
	VCVTDQ2PS Y2, Y2
	VMOVDQU J(I_127), Y6
	VPSUBD Y4, Y6, Y6
	VPSLLD $23, Y6, Y6
	VMULPS Y6, Y2, Y2
	VMOVUPS J(F_LOG+8), Y6
	HORNER32(Y6, Y2, J(F_LOG+7))
	HORNER32(Y6, Y2, J(F_LOG+6))
	HORNER32(Y6, Y2, J(F_LOG+5))
	HORNER32(Y6, Y2, J(F_LOG+4))
	HORNER32(Y6, Y2, J(F_LOG+3))
	HORNER32(Y6, Y2, J(F_LOG+2))
	HORNER32(Y6, Y2, J(F_LOG+1))
	HORNER32(Y6, Y2, J(F_LOG+0))
	VMULPS Y2, Y2, Y7
	VFMADD213PS Y2, Y6, Y7
	VPSUBD J(I_32), Y4, Y4
	VCVTDQ2PS Y4, Y4
	VFMADD231PS J(F_LN2LO), Y4, Y7
	VFMADD231PS J(F_LN2HI), Y4, Y7
	VMOVUPS Y7, Y2

	// r = randSqrt32(−2·ln u1)
	VMULPS J(F_M2), Y2, Y2
	VPSRLD $1, Y2, Y3
	VMOVDQU J(I_MAGIC), Y4
	VPSUBD Y3, Y4, Y3
	VMULPS J(F_HALF), Y2, Y4
	NEWTON(Y3, Y4, Y5)
	NEWTON(Y3, Y4, Y5)
	NEWTON(Y3, Y4, Y5)
	VMULPS Y3, Y2, Y2

	// randSinCos32(a): t = a + 2²⁹, its top two bits the quarter turn
	VPADDD J(I_2P29), Y1, Y1
	VPAND J(I_2P30M), Y1, Y3
	VPSUBD J(I_2P29), Y3, Y3
	VCVTDQ2PS Y3, Y3
	VMULPS J(F_ANGLE), Y3, Y3
	VMULPS Y3, Y3, Y4
	VMOVUPS J(F_SIN+3), Y5
	VMOVUPS J(F_COS+4), Y6
	HORNER32(Y6, Y4, J(F_COS+3))
	HORNER32(Y5, Y4, J(F_SIN+2))
	HORNER32(Y6, Y4, J(F_COS+2))
	HORNER32(Y5, Y4, J(F_SIN+1))
	HORNER32(Y6, Y4, J(F_COS+1))
	HORNER32(Y5, Y4, J(F_SIN+0))
	HORNER32(Y6, Y4, J(F_COS+0))
	VMULPS Y4, Y5, Y5
	VFMADD213PS Y3, Y3, Y5
	VFMADD213PS J(F_ONE), Y4, Y6
	// quarter q: q&1 swaps sin and cos; sin is negated for q&2, cos
	// for q = 1, 2 (the two bits differ)
	VPSLLD $1, Y1, Y7
	VBLENDVPS Y7, Y6, Y5, Y8
	VBLENDVPS Y7, Y5, Y6, Y9
	VPAND J(I_SIGN), Y1, Y10
	VXORPS Y10, Y8, Y8
	VPXOR Y1, Y7, Y7
	VPAND J(I_SIGN), Y7, Y7
	VXORPS Y7, Y9, Y9
	VMULPS Y9, Y2, Y9
	VMULPS Y8, Y2, Y8

	// back to pair order: r·cos, r·sin
	VUNPCKLPS Y8, Y9, Y10
	VUNPCKHPS Y8, Y9, Y11
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	ADDQ $64, DI
	ADDQ $64, SI
	DECQ CX
	JNZ b32loop

b32done:
	VZEROUPPER
	RET
