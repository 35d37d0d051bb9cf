// Code in this file: AVX2/FMA float32 Sin and Cos, computed in float64
// lanes with math32.go's sinCos32 (the same reduction, polynomial and
// sign, fused multiply-adds included). Lanes with |x| ≥ 2^20, NaN or Inf
// come out wrong: the caller recomputes them (sincos32).

//go:build amd64 && !purego

#include "textflag.h"

// each constant in four lanes (FMA memory operands are whole vectors)
// +0: 1/π
DATA sinv<>+0(SB)/8, $0x3fd45f306dc9c883
DATA sinv<>+8(SB)/8, $0x3fd45f306dc9c883
DATA sinv<>+16(SB)/8, $0x3fd45f306dc9c883
DATA sinv<>+24(SB)/8, $0x3fd45f306dc9c883
// +32: magic 0x1.8p52
DATA sinv<>+32(SB)/8, $0x4338000000000000
DATA sinv<>+40(SB)/8, $0x4338000000000000
DATA sinv<>+48(SB)/8, $0x4338000000000000
DATA sinv<>+56(SB)/8, $0x4338000000000000
// +64: 2
DATA sinv<>+64(SB)/8, $0x4000000000000000
DATA sinv<>+72(SB)/8, $0x4000000000000000
DATA sinv<>+80(SB)/8, $0x4000000000000000
DATA sinv<>+88(SB)/8, $0x4000000000000000
// +96: pio2a
DATA sinv<>+96(SB)/8, $0x3ff921fb54400000
DATA sinv<>+104(SB)/8, $0x3ff921fb54400000
DATA sinv<>+112(SB)/8, $0x3ff921fb54400000
DATA sinv<>+120(SB)/8, $0x3ff921fb54400000
// +128: pio2b
DATA sinv<>+128(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+136(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+144(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+152(SB)/8, $0x3dd0b4611a600000
// +160: pio2c
DATA sinv<>+160(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+168(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+176(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+184(SB)/8, $0x3ba3198a2e037073
// +192: P4
DATA sinv<>+192(SB)/8, $0xbe59a68981a40000
DATA sinv<>+200(SB)/8, $0xbe59a68981a40000
DATA sinv<>+208(SB)/8, $0xbe59a68981a40000
DATA sinv<>+216(SB)/8, $0xbe59a68981a40000
// +224: P3
DATA sinv<>+224(SB)/8, $0x3ec717080f8f5400
DATA sinv<>+232(SB)/8, $0x3ec717080f8f5400
DATA sinv<>+240(SB)/8, $0x3ec717080f8f5400
DATA sinv<>+248(SB)/8, $0x3ec717080f8f5400
// +256: P2
DATA sinv<>+256(SB)/8, $0xbf2a017d9a7cfa10
DATA sinv<>+264(SB)/8, $0xbf2a017d9a7cfa10
DATA sinv<>+272(SB)/8, $0xbf2a017d9a7cfa10
DATA sinv<>+280(SB)/8, $0xbf2a017d9a7cfa10
// +288: P1
DATA sinv<>+288(SB)/8, $0x3f811110c4a1c9e0
DATA sinv<>+296(SB)/8, $0x3f811110c4a1c9e0
DATA sinv<>+304(SB)/8, $0x3f811110c4a1c9e0
DATA sinv<>+312(SB)/8, $0x3f811110c4a1c9e0
// +320: P0
DATA sinv<>+320(SB)/8, $0xbfc5555554769e79
DATA sinv<>+328(SB)/8, $0xbfc5555554769e79
DATA sinv<>+336(SB)/8, $0xbfc5555554769e79
DATA sinv<>+344(SB)/8, $0xbfc5555554769e79
// +352: 1
DATA sinv<>+352(SB)/8, $0x3ff0000000000000
DATA sinv<>+360(SB)/8, $0x3ff0000000000000
DATA sinv<>+368(SB)/8, $0x3ff0000000000000
DATA sinv<>+376(SB)/8, $0x3ff0000000000000
// +384: |x| mask
DATA sinv<>+384(SB)/8, $0x7fffffffffffffff
DATA sinv<>+392(SB)/8, $0x7fffffffffffffff
DATA sinv<>+400(SB)/8, $0x7fffffffffffffff
DATA sinv<>+408(SB)/8, $0x7fffffffffffffff
// +416: 2^20
DATA sinv<>+416(SB)/8, $0x4130000000000000
DATA sinv<>+424(SB)/8, $0x4130000000000000
DATA sinv<>+432(SB)/8, $0x4130000000000000
DATA sinv<>+440(SB)/8, $0x4130000000000000
// +448: ½ (cos)
DATA sinv<>+448(SB)/8, $0x3fe0000000000000
DATA sinv<>+456(SB)/8, $0x3fe0000000000000
DATA sinv<>+464(SB)/8, $0x3fe0000000000000
DATA sinv<>+472(SB)/8, $0x3fe0000000000000
// +480: int64 1 (cos)
DATA sinv<>+480(SB)/8, $0x0000000000000001
DATA sinv<>+488(SB)/8, $0x0000000000000001
DATA sinv<>+496(SB)/8, $0x0000000000000001
DATA sinv<>+504(SB)/8, $0x0000000000000001
GLOBL sinv<>(SB), RODATA|NOPTR, $512

// func sinF32(d, a unsafe.Pointer, n int, cos int) (slow int)
// n is a multiple of 4; cos is 0 (sin) or 1 (cos).
// A lane with |x| ≥ 2^20, NaN or Inf keeps x in d (so d may be a) and
// makes slow nonzero: the caller redoes those lanes.
TEXT ·sinF32(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ cos+24(FP), AX
	VXORPD Y14, Y14, Y14 // cos: ½, subtracted from x/π
	VXORPD Y15, Y15, Y15 // cos: 1, m = 2k+1
	VPXOR Y8, Y8, Y8     // cos: int64 1, k+1's parity
	TESTQ AX, AX
	JZ sinonly
	VMOVUPD sinv<>+448(SB), Y14
	VMOVUPD sinv<>+352(SB), Y15
	VMOVDQU sinv<>+480(SB), Y8
sinonly:
	VXORPD Y10, Y10, Y10 // OR of the slow lanes' masks
loop:
	CMPQ CX, $4
	JB done
	VMOVUPS 0(SI), X12
	VCVTPS2PD X12, Y0
	VANDPD sinv<>+384(SB), Y0, Y9
	VCMPPD $5, sinv<>+416(SB), Y9, Y9 // !(|x| < 2^20): NaN too
	VORPD Y9, Y10, Y10
	VEXTRACTF128 $1, Y9, X13
	VSHUFPS $0x88, X13, X9, X11 // the four lanes' masks as float32 lanes
	VMULPD sinv<>+0(SB), Y0, Y1
	VSUBPD Y14, Y1, Y1
	VADDPD sinv<>+32(SB), Y1, Y5 // k in the low bits
	VSUBPD sinv<>+32(SB), Y5, Y1
	VFMADD132PD sinv<>+64(SB), Y15, Y1 // m
	VFNMADD231PD sinv<>+96(SB), Y1, Y0
	VFNMADD231PD sinv<>+128(SB), Y1, Y0
	VFNMADD231PD sinv<>+160(SB), Y1, Y0 // r
	VMULPD Y0, Y0, Y2
	VMOVUPD sinv<>+192(SB), Y3
	VFMADD213PD sinv<>+224(SB), Y2, Y3
	VFMADD213PD sinv<>+256(SB), Y2, Y3
	VFMADD213PD sinv<>+288(SB), Y2, Y3
	VFMADD213PD sinv<>+320(SB), Y2, Y3
	VFMADD213PD sinv<>+352(SB), Y2, Y3
	VMULPD Y0, Y3, Y3
	VPADDQ Y8, Y5, Y5
	VPSLLQ $63, Y5, Y5
	VXORPD Y5, Y3, Y3
	VCVTPD2PSY Y3, X7
	VBLENDVPS X11, X12, X7, X7 // slow lanes keep x
	VMOVUPS X7, 0(DI)
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $4, CX
	JMP loop
done:
	VMOVMSKPD Y10, AX
	MOVQ AX, slow+32(FP)
	VZEROUPPER
	RET

// SIN8 is sinF32's loop body for eight lanes on AVX-512 (F, DQ, VL):
// float32s at off(SI) to off(DI), each constant broadcast from sinv's
// first lane of it. K1 gets the slow lanes, ORed into K3. x..s are
// five Z registers, y a Y register, xs x's Y register.
#define SIN8(off, xs, x, k, kk, z2, s, y) \
	VMOVUPS off(SI), xs; \
	VCVTPS2PD xs, x; \
	VANDPD.BCST sinv<>+384(SB), x, s; \
	VCMPPD.BCST $5, sinv<>+416(SB), s, K1; \
	KORB K1, K3, K3; \
	VMULPD.BCST sinv<>+0(SB), x, k; \
	VSUBPD Z14, k, k; \
	VADDPD.BCST sinv<>+32(SB), k, kk; \
	VSUBPD.BCST sinv<>+32(SB), kk, k; \
	VFMADD132PD.BCST sinv<>+64(SB), Z15, k; \
	VFNMADD231PD.BCST sinv<>+96(SB), k, x; \
	VFNMADD231PD.BCST sinv<>+128(SB), k, x; \
	VFNMADD231PD.BCST sinv<>+160(SB), k, x; \
	VMULPD x, x, z2; \
	VBROADCASTSD sinv<>+192(SB), s; \
	VFMADD213PD.BCST sinv<>+224(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+256(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+288(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+320(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+352(SB), z2, s; \
	VMULPD x, s, s; \
	VPADDQ Z8, kk, kk; \
	VPSLLQ $63, kk, kk; \
	VPXORQ kk, s, s; \
	VCVTPD2PS s, y; \
	VBLENDMPS xs, y, K1, y; \
	VMOVUPS y, off(DI)

// func sinF32AVX512(d, a unsafe.Pointer, n int, cos int) (slow int)
// sinF32 for n a multiple of 16, sixteen lanes a step in two chains.
TEXT ·sinF32AVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ cos+24(FP), AX
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z8, Z8, Z8
	TESTQ AX, AX
	JZ sinonly512
	VBROADCASTSD sinv<>+448(SB), Z14
	VBROADCASTSD sinv<>+352(SB), Z15
	VPBROADCASTQ sinv<>+480(SB), Z8
sinonly512:
	KXORB K3, K3, K3
loop512:
	CMPQ CX, $16
	JB done512
	SIN8(0, Y12, Z0, Z1, Z2, Z3, Z4, Y5)
	SIN8(32, Y13, Z16, Z17, Z18, Z19, Z20, Y21)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop512
done512:
	KMOVB K3, AX
	MOVQ AX, slow+32(FP)
	VZEROUPPER
	RET
