// Code in this file: AVX2/FMA float32 Sin and Cos, computed in float64
// lanes with math32.go's trig32 (the same reduction, series and quadrant
// choice). Lanes with |x| ≥ 2^20, NaN or Inf come out wrong: the caller
// recomputes them (sincos32).

//go:build amd64 && !purego

#include "textflag.h"

// each constant in four lanes (FMA memory operands are whole vectors)
DATA sinv<>+0(SB)/8, $0x3fe45f306dc9c883
DATA sinv<>+8(SB)/8, $0x3fe45f306dc9c883
DATA sinv<>+16(SB)/8, $0x3fe45f306dc9c883
DATA sinv<>+24(SB)/8, $0x3fe45f306dc9c883
DATA sinv<>+32(SB)/8, $0x3ff921fb54400000
DATA sinv<>+40(SB)/8, $0x3ff921fb54400000
DATA sinv<>+48(SB)/8, $0x3ff921fb54400000
DATA sinv<>+56(SB)/8, $0x3ff921fb54400000
DATA sinv<>+64(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+72(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+80(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+88(SB)/8, $0x3dd0b4611a600000
DATA sinv<>+96(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+104(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+112(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+120(SB)/8, $0x3ba3198a2e037073
DATA sinv<>+128(SB)/8, $0x3ec71de3a556c734
DATA sinv<>+136(SB)/8, $0x3ec71de3a556c734
DATA sinv<>+144(SB)/8, $0x3ec71de3a556c734
DATA sinv<>+152(SB)/8, $0x3ec71de3a556c734
DATA sinv<>+160(SB)/8, $0xbf2a01a01a01a01a
DATA sinv<>+168(SB)/8, $0xbf2a01a01a01a01a
DATA sinv<>+176(SB)/8, $0xbf2a01a01a01a01a
DATA sinv<>+184(SB)/8, $0xbf2a01a01a01a01a
DATA sinv<>+192(SB)/8, $0x3f81111111111111
DATA sinv<>+200(SB)/8, $0x3f81111111111111
DATA sinv<>+208(SB)/8, $0x3f81111111111111
DATA sinv<>+216(SB)/8, $0x3f81111111111111
DATA sinv<>+224(SB)/8, $0xbfc5555555555555
DATA sinv<>+232(SB)/8, $0xbfc5555555555555
DATA sinv<>+240(SB)/8, $0xbfc5555555555555
DATA sinv<>+248(SB)/8, $0xbfc5555555555555
DATA sinv<>+256(SB)/8, $0x3ff0000000000000
DATA sinv<>+264(SB)/8, $0x3ff0000000000000
DATA sinv<>+272(SB)/8, $0x3ff0000000000000
DATA sinv<>+280(SB)/8, $0x3ff0000000000000
DATA sinv<>+288(SB)/8, $0xbe927e4fb7789f5c
DATA sinv<>+296(SB)/8, $0xbe927e4fb7789f5c
DATA sinv<>+304(SB)/8, $0xbe927e4fb7789f5c
DATA sinv<>+312(SB)/8, $0xbe927e4fb7789f5c
DATA sinv<>+320(SB)/8, $0x3efa01a01a01a01a
DATA sinv<>+328(SB)/8, $0x3efa01a01a01a01a
DATA sinv<>+336(SB)/8, $0x3efa01a01a01a01a
DATA sinv<>+344(SB)/8, $0x3efa01a01a01a01a
DATA sinv<>+352(SB)/8, $0xbf56c16c16c16c17
DATA sinv<>+360(SB)/8, $0xbf56c16c16c16c17
DATA sinv<>+368(SB)/8, $0xbf56c16c16c16c17
DATA sinv<>+376(SB)/8, $0xbf56c16c16c16c17
DATA sinv<>+384(SB)/8, $0x3fa5555555555555
DATA sinv<>+392(SB)/8, $0x3fa5555555555555
DATA sinv<>+400(SB)/8, $0x3fa5555555555555
DATA sinv<>+408(SB)/8, $0x3fa5555555555555
DATA sinv<>+416(SB)/8, $0xbfe0000000000000
DATA sinv<>+424(SB)/8, $0xbfe0000000000000
DATA sinv<>+432(SB)/8, $0xbfe0000000000000
DATA sinv<>+440(SB)/8, $0xbfe0000000000000
DATA sinv<>+448(SB)/8, $0x7fffffffffffffff
DATA sinv<>+456(SB)/8, $0x7fffffffffffffff
DATA sinv<>+464(SB)/8, $0x7fffffffffffffff
DATA sinv<>+472(SB)/8, $0x7fffffffffffffff
DATA sinv<>+480(SB)/8, $0x4130000000000000
DATA sinv<>+488(SB)/8, $0x4130000000000000
DATA sinv<>+496(SB)/8, $0x4130000000000000
DATA sinv<>+504(SB)/8, $0x4130000000000000
GLOBL sinv<>(SB), RODATA|NOPTR, $512

// func sinF32(d, a unsafe.Pointer, n int, cos int) (slow int)
// n is a multiple of 4; cos is 0 (sin) or 1 (cos, the quadrant after).
// A lane with |x| ≥ 2^20, NaN or Inf keeps x in d (so d may be a) and
// makes slow nonzero: the caller redoes those lanes.
TEXT ·sinF32(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ cos+24(FP), AX
	MOVQ AX, X15
	VPBROADCASTD X15, X15
	VXORPD Y8, Y8, Y8
	VXORPD Y10, Y10, Y10 // OR of the slow lanes' masks
loop:
	CMPQ CX, $4
	JB done
	VMOVUPS 0(SI), X12
	VCVTPS2PD X12, Y0
	VANDPD sinv<>+448(SB), Y0, Y9
	VCMPPD $5, sinv<>+480(SB), Y9, Y9 // !(|x| < 2^20): NaN too
	VORPD Y9, Y10, Y10
	VEXTRACTF128 $1, Y9, X13
	VSHUFPS $0x88, X13, X9, X11 // the four lanes' masks as float32 lanes
	VMULPD sinv<>+0(SB), Y0, Y1
	VROUNDPD $0, Y1, Y1
	VADDPD Y8, Y1, Y1 // −0 → +0, so that sin(−0) keeps its sign as in trig32
	VFNMADD231PD sinv<>+32(SB), Y1, Y0
	VFNMADD231PD sinv<>+64(SB), Y1, Y0
	VFNMADD231PD sinv<>+96(SB), Y1, Y0
	VMULPD Y0, Y0, Y2
	VMOVUPD sinv<>+128(SB), Y3
	VFMADD213PD sinv<>+160(SB), Y2, Y3
	VFMADD213PD sinv<>+192(SB), Y2, Y3
	VFMADD213PD sinv<>+224(SB), Y2, Y3
	VFMADD213PD sinv<>+256(SB), Y2, Y3
	VMULPD Y0, Y3, Y3
	VMOVUPD sinv<>+288(SB), Y4
	VFMADD213PD sinv<>+320(SB), Y2, Y4
	VFMADD213PD sinv<>+352(SB), Y2, Y4
	VFMADD213PD sinv<>+384(SB), Y2, Y4
	VFMADD213PD sinv<>+416(SB), Y2, Y4
	VFMADD213PD sinv<>+256(SB), Y2, Y4
	VCVTPD2DQY Y1, X5
	VPADDD X15, X5, X5
	VPMOVSXDQ X5, Y5
	VPSLLQ $63, Y5, Y6
	VBLENDVPD Y6, Y4, Y3, Y7
	VPSRLQ $1, Y5, Y5
	VPSLLQ $63, Y5, Y5
	VXORPD Y5, Y7, Y7
	VCVTPD2PSY Y7, X7
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
// first lane of it. K1 gets the slow lanes, ORed into K3. x..t are
// eight Z registers, y its Y register, xs x's Y register.
#define SIN8(off, xs, x, k, r, z2, s, c, q, y) \
	VMOVUPS off(SI), xs; \
	VCVTPS2PD xs, x; \
	VANDPD.BCST sinv<>+448(SB), x, s; \
	VCMPPD.BCST $5, sinv<>+480(SB), s, K1; \
	KORB K1, K3, K3; \
	VMULPD.BCST sinv<>+0(SB), x, k; \
	VRNDSCALEPD $0, k, k; \
	VADDPD Z8, k, k; \
	VFNMADD231PD.BCST sinv<>+32(SB), k, x; \
	VFNMADD231PD.BCST sinv<>+64(SB), k, x; \
	VFNMADD231PD.BCST sinv<>+96(SB), k, x; \
	VMULPD x, x, z2; \
	VBROADCASTSD sinv<>+128(SB), s; \
	VFMADD213PD.BCST sinv<>+160(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+192(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+224(SB), z2, s; \
	VFMADD213PD.BCST sinv<>+256(SB), z2, s; \
	VMULPD x, s, s; \
	VBROADCASTSD sinv<>+288(SB), c; \
	VFMADD213PD.BCST sinv<>+320(SB), z2, c; \
	VFMADD213PD.BCST sinv<>+352(SB), z2, c; \
	VFMADD213PD.BCST sinv<>+384(SB), z2, c; \
	VFMADD213PD.BCST sinv<>+416(SB), z2, c; \
	VFMADD213PD.BCST sinv<>+256(SB), z2, c; \
	VCVTPD2DQ k, y; \
	VPADDD Y15, y, y; \
	VPMOVSXDQ y, q; \
	VPSLLQ $63, q, k; \
	VPMOVQ2M k, K2; \
	VBLENDMPD c, s, K2, s; \
	VPSRLQ $1, q, q; \
	VPSLLQ $63, q, q; \
	VPXORQ q, s, s; \
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
	MOVQ AX, X15
	VPBROADCASTD X15, Y15
	VPXORQ Z8, Z8, Z8
	KXORB K3, K3, K3
loop512:
	CMPQ CX, $16
	JB done512
	SIN8(0, Y12, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Y7)
	SIN8(32, Y13, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Y23)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop512
done512:
	KMOVB K3, AX
	MOVQ AX, slow+32(FP)
	VZEROUPPER
	RET
