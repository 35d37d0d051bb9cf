// Code in this file: AVX2/FMA float32 Pow, e^(b·log a) in float64 lanes
// with math32.go's log64 and exp64. Lanes where a is not positive and
// finite or b is not finite come out wrong: the caller redoes them (pow32).

//go:build amd64 && !purego

#include "textflag.h"

// each constant in four lanes (FMA memory operands are whole vectors)
DATA powv<>+0(SB)/8, $0x000fffffffffffff
DATA powv<>+8(SB)/8, $0x000fffffffffffff
DATA powv<>+16(SB)/8, $0x000fffffffffffff
DATA powv<>+24(SB)/8, $0x000fffffffffffff
DATA powv<>+32(SB)/8, $0x0006a09e667f3bcd
DATA powv<>+40(SB)/8, $0x0006a09e667f3bcd
DATA powv<>+48(SB)/8, $0x0006a09e667f3bcd
DATA powv<>+56(SB)/8, $0x0006a09e667f3bcd
DATA powv<>+64(SB)/8, $0x3ff0000000000000
DATA powv<>+72(SB)/8, $0x3ff0000000000000
DATA powv<>+80(SB)/8, $0x3ff0000000000000
DATA powv<>+88(SB)/8, $0x3ff0000000000000
DATA powv<>+96(SB)/8, $0x4338000000000000
DATA powv<>+104(SB)/8, $0x4338000000000000
DATA powv<>+112(SB)/8, $0x4338000000000000
DATA powv<>+120(SB)/8, $0x4338000000000000
DATA powv<>+128(SB)/8, $0x4338000000000000
DATA powv<>+136(SB)/8, $0x4338000000000000
DATA powv<>+144(SB)/8, $0x4338000000000000
DATA powv<>+152(SB)/8, $0x4338000000000000
DATA powv<>+160(SB)/8, $1023
DATA powv<>+168(SB)/8, $1023
DATA powv<>+176(SB)/8, $1023
DATA powv<>+184(SB)/8, $1023
DATA powv<>+192(SB)/8, $0x3ff0000000000000
DATA powv<>+200(SB)/8, $0x3ff0000000000000
DATA powv<>+208(SB)/8, $0x3ff0000000000000
DATA powv<>+216(SB)/8, $0x3ff0000000000000
DATA powv<>+224(SB)/8, $0x3fe62e42fefa39ef
DATA powv<>+232(SB)/8, $0x3fe62e42fefa39ef
DATA powv<>+240(SB)/8, $0x3fe62e42fefa39ef
DATA powv<>+248(SB)/8, $0x3fe62e42fefa39ef
DATA powv<>+256(SB)/8, $0x3fb3b13b13b13b14
DATA powv<>+264(SB)/8, $0x3fb3b13b13b13b14
DATA powv<>+272(SB)/8, $0x3fb3b13b13b13b14
DATA powv<>+280(SB)/8, $0x3fb3b13b13b13b14
DATA powv<>+288(SB)/8, $0x3fb745d1745d1746
DATA powv<>+296(SB)/8, $0x3fb745d1745d1746
DATA powv<>+304(SB)/8, $0x3fb745d1745d1746
DATA powv<>+312(SB)/8, $0x3fb745d1745d1746
DATA powv<>+320(SB)/8, $0x3fbc71c71c71c71c
DATA powv<>+328(SB)/8, $0x3fbc71c71c71c71c
DATA powv<>+336(SB)/8, $0x3fbc71c71c71c71c
DATA powv<>+344(SB)/8, $0x3fbc71c71c71c71c
DATA powv<>+352(SB)/8, $0x3fc2492492492492
DATA powv<>+360(SB)/8, $0x3fc2492492492492
DATA powv<>+368(SB)/8, $0x3fc2492492492492
DATA powv<>+376(SB)/8, $0x3fc2492492492492
DATA powv<>+384(SB)/8, $0x3fc999999999999a
DATA powv<>+392(SB)/8, $0x3fc999999999999a
DATA powv<>+400(SB)/8, $0x3fc999999999999a
DATA powv<>+408(SB)/8, $0x3fc999999999999a
DATA powv<>+416(SB)/8, $0x3fd5555555555555
DATA powv<>+424(SB)/8, $0x3fd5555555555555
DATA powv<>+432(SB)/8, $0x3fd5555555555555
DATA powv<>+440(SB)/8, $0x3fd5555555555555
DATA powv<>+448(SB)/8, $0x4000000000000000
DATA powv<>+456(SB)/8, $0x4000000000000000
DATA powv<>+464(SB)/8, $0x4000000000000000
DATA powv<>+472(SB)/8, $0x4000000000000000
DATA powv<>+480(SB)/8, $0xc05b800000000000
DATA powv<>+488(SB)/8, $0xc05b800000000000
DATA powv<>+496(SB)/8, $0xc05b800000000000
DATA powv<>+504(SB)/8, $0xc05b800000000000
DATA powv<>+512(SB)/8, $0x4086280000000000
DATA powv<>+520(SB)/8, $0x4086280000000000
DATA powv<>+528(SB)/8, $0x4086280000000000
DATA powv<>+536(SB)/8, $0x4086280000000000
DATA powv<>+544(SB)/8, $0x3ff71547652b82fe
DATA powv<>+552(SB)/8, $0x3ff71547652b82fe
DATA powv<>+560(SB)/8, $0x3ff71547652b82fe
DATA powv<>+568(SB)/8, $0x3ff71547652b82fe
DATA powv<>+576(SB)/8, $0x3fe62e42fee00000
DATA powv<>+584(SB)/8, $0x3fe62e42fee00000
DATA powv<>+592(SB)/8, $0x3fe62e42fee00000
DATA powv<>+600(SB)/8, $0x3fe62e42fee00000
DATA powv<>+608(SB)/8, $0x3dea39ef35793c76
DATA powv<>+616(SB)/8, $0x3dea39ef35793c76
DATA powv<>+624(SB)/8, $0x3dea39ef35793c76
DATA powv<>+632(SB)/8, $0x3dea39ef35793c76
DATA powv<>+640(SB)/8, $0x3efa01a01a01a01a
DATA powv<>+648(SB)/8, $0x3efa01a01a01a01a
DATA powv<>+656(SB)/8, $0x3efa01a01a01a01a
DATA powv<>+664(SB)/8, $0x3efa01a01a01a01a
DATA powv<>+672(SB)/8, $0x3f2a01a01a01a01a
DATA powv<>+680(SB)/8, $0x3f2a01a01a01a01a
DATA powv<>+688(SB)/8, $0x3f2a01a01a01a01a
DATA powv<>+696(SB)/8, $0x3f2a01a01a01a01a
DATA powv<>+704(SB)/8, $0x3f56c16c16c16c17
DATA powv<>+712(SB)/8, $0x3f56c16c16c16c17
DATA powv<>+720(SB)/8, $0x3f56c16c16c16c17
DATA powv<>+728(SB)/8, $0x3f56c16c16c16c17
DATA powv<>+736(SB)/8, $0x3f81111111111111
DATA powv<>+744(SB)/8, $0x3f81111111111111
DATA powv<>+752(SB)/8, $0x3f81111111111111
DATA powv<>+760(SB)/8, $0x3f81111111111111
DATA powv<>+768(SB)/8, $0x3fa5555555555555
DATA powv<>+776(SB)/8, $0x3fa5555555555555
DATA powv<>+784(SB)/8, $0x3fa5555555555555
DATA powv<>+792(SB)/8, $0x3fa5555555555555
DATA powv<>+800(SB)/8, $0x3fc5555555555555
DATA powv<>+808(SB)/8, $0x3fc5555555555555
DATA powv<>+816(SB)/8, $0x3fc5555555555555
DATA powv<>+824(SB)/8, $0x3fc5555555555555
DATA powv<>+832(SB)/8, $0x3fe0000000000000
DATA powv<>+840(SB)/8, $0x3fe0000000000000
DATA powv<>+848(SB)/8, $0x3fe0000000000000
DATA powv<>+856(SB)/8, $0x3fe0000000000000
DATA powv<>+864(SB)/8, $0x7fffffffffffffff
DATA powv<>+872(SB)/8, $0x7fffffffffffffff
DATA powv<>+880(SB)/8, $0x7fffffffffffffff
DATA powv<>+888(SB)/8, $0x7fffffffffffffff
DATA powv<>+896(SB)/8, $0x47efffffe0000000
DATA powv<>+904(SB)/8, $0x47efffffe0000000
DATA powv<>+912(SB)/8, $0x47efffffe0000000
DATA powv<>+920(SB)/8, $0x47efffffe0000000
DATA powv<>+928(SB)/8, $0x3ff6a09e667f3bcd
DATA powv<>+936(SB)/8, $0x3ff6a09e667f3bcd
DATA powv<>+944(SB)/8, $0x3ff6a09e667f3bcd
DATA powv<>+952(SB)/8, $0x3ff6a09e667f3bcd
GLOBL powv<>(SB), RODATA|NOPTR, $960

// func powF32(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int) (slow int)
// n is a multiple of 4. A lane off the fast path (a not a positive
// finite float32, b not finite) keeps a's value in d (b's with keepb 1,
// so d may be a or b) and sets its bit in masks[i/4] (one byte per four
// lanes); slow is the OR of those bytes.
TEXT ·powF32(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ masks+32(FP), R8
	MOVQ keepb+40(FP), AX
	NEGQ AX
	MOVQ AX, X14
	VPBROADCASTD X14, X14 // all ones: keep b's
	XORQ R9, R9
	VXORPD Y9, Y9, Y9
loop:
	CMPQ CX, $4
	JB done
	VMOVUPS 0(SI), X12
	VMOVUPS 0(DX), X13
	VCVTPS2PD X12, Y0
	// the fast lanes: 0 < a <= MaxFloat32 and |b| <= MaxFloat32
	VCMPPD $0x1e, Y9, Y0, Y10
	VCMPPD $0x12, powv<>+896(SB), Y0, Y11
	VANDPD Y11, Y10, Y10
	VCVTPS2PD X13, Y11
	VANDPD powv<>+864(SB), Y11, Y11
	VCMPPD $0x12, powv<>+896(SB), Y11, Y11
	VANDPD Y11, Y10, Y10
	VMOVMSKPD Y10, AX
	XORQ $15, AX
	MOVB AX, (R8)
	ORQ AX, R9
	INCQ R8
	// x = m·2^e, m in [√½, √2)
	VPAND powv<>+0(SB), Y0, Y1
	VMOVDQU powv<>+32(SB), Y2
	VPCMPGTQ Y2, Y1, Y2 // all ones where the fraction exceeds √2's
	VPSRLQ $52, Y0, Y3
	VPSUBQ powv<>+160(SB), Y3, Y3
	VPSUBQ Y2, Y3, Y3 // e
	VPSLLQ $52, Y2, Y2
	VPADDQ powv<>+64(SB), Y2, Y2
	VPOR Y2, Y1, Y1 // m
	VPADDQ powv<>+96(SB), Y3, Y3
	VSUBPD powv<>+128(SB), Y3, Y3 // float64(e)
	VSUBPD powv<>+192(SB), Y1, Y4
	VADDPD powv<>+192(SB), Y1, Y5
	VDIVPD Y5, Y4, Y4 // s
	VMULPD Y4, Y4, Y5 // s²
	VMOVUPD powv<>+256(SB), Y6
	VFMADD213PD powv<>+288(SB), Y5, Y6
	VFMADD213PD powv<>+320(SB), Y5, Y6
	VFMADD213PD powv<>+352(SB), Y5, Y6
	VFMADD213PD powv<>+384(SB), Y5, Y6
	VFMADD213PD powv<>+416(SB), Y5, Y6
	VFMADD213PD powv<>+192(SB), Y5, Y6
	VMULPD powv<>+448(SB), Y4, Y4
	VMULPD Y4, Y6, Y6
	VFMADD231PD powv<>+224(SB), Y3, Y6 // log a
	VCVTPS2PD X13, Y0
	VMULPD Y6, Y0, Y0 // y = b·log a
	// e^y as exp64
	VMAXPD powv<>+480(SB), Y0, Y0 // y is finite on the fast path: no NaN to keep
	VMINPD powv<>+512(SB), Y0, Y0
	VMULPD powv<>+544(SB), Y0, Y1
	VROUNDPD $0, Y1, Y1
	VFNMADD231PD powv<>+576(SB), Y1, Y0
	VFNMADD231PD powv<>+608(SB), Y1, Y0
	VMOVUPD powv<>+640(SB), Y2
	VFMADD213PD powv<>+672(SB), Y0, Y2
	VFMADD213PD powv<>+704(SB), Y0, Y2
	VFMADD213PD powv<>+736(SB), Y0, Y2
	VFMADD213PD powv<>+768(SB), Y0, Y2
	VFMADD213PD powv<>+800(SB), Y0, Y2
	VFMADD213PD powv<>+832(SB), Y0, Y2
	VFMADD213PD powv<>+192(SB), Y0, Y2
	VFMADD213PD powv<>+192(SB), Y0, Y2
	VCVTPD2DQY Y1, X3
	VPMOVSXDQ X3, Y3
	VPADDQ powv<>+160(SB), Y3, Y3
	VPSLLQ $52, Y3, Y3
	VMULPD Y3, Y2, Y2
	VCVTPD2PSY Y2, X2
	VEXTRACTF128 $1, Y10, X11
	VSHUFPS $0x88, X11, X10, X11 // the fast lanes as float32 lanes
	VBLENDVPS X14, X13, X12, X15 // what a slow lane keeps
	VBLENDVPS X11, X2, X15, X2
	VMOVUPS X2, 0(DI)
	ADDQ $16, SI
	ADDQ $16, DX
	ADDQ $16, DI
	SUBQ $4, CX
	JMP loop
done:
	MOVQ R9, slow+48(FP)
	VZEROUPPER
	RET

// POW8 is powF32's loop body for eight lanes on AVX-512 (F, DQ, VL):
// float32s at off(SI) and off(DX) to off(DI), the slow lanes' bits in the
// bytes at moff(R8) and moff+1(R8) (four lanes a byte) and ORed into
// R9. Z9 is zero, K4 all ones when a slow lane keeps b. Each constant is
// broadcast from powv's first lane of it. VGETMANTPD, VGETEXPPD and a
// masked halving give powF32's m and e (the same values), and VSCALEFPD
// its product by 2^k (exact, as 2^k is a normal double there).
#define POW8(off, moff, ya, yb, x, m, e, s, s2, p, kf, kt, ym) \
	VMOVUPS off(SI), ya; \
	VMOVUPS off(DX), yb; \
	VCVTPS2PD ya, x; \
	VCMPPD $0x1e, Z9, x, kf; \
	VCMPPD.BCST $0x12, powv<>+896(SB), x, kt; \
	KANDB kt, kf, kf; \
	VCVTPS2PD yb, m; \
	VANDPD.BCST powv<>+864(SB), m, m; \
	VCMPPD.BCST $0x12, powv<>+896(SB), m, kt; \
	KANDB kt, kf, kf; \
	KNOTB kf, kt; \
	KMOVB kt, AX; \
	ORQ AX, R9; \
	MOVQ AX, BX; \
	ANDQ $15, BX; \
	MOVB BX, moff(R8); \
	SHRQ $4, AX; \
	MOVB AX, moff+1(R8); \
	VGETMANTPD $0, x, m; \
	VGETEXPPD x, e; \
	VCMPPD.BCST $0x1e, powv<>+928(SB), m, kt; \
	VMULPD.BCST powv<>+832(SB), m, kt, m; \
	VADDPD.BCST powv<>+64(SB), e, kt, e; \
	VSUBPD.BCST powv<>+192(SB), m, s; \
	VADDPD.BCST powv<>+192(SB), m, s2; \
	VDIVPD s2, s, s; \
	VMULPD s, s, s2; \
	VBROADCASTSD powv<>+256(SB), p; \
	VFMADD213PD.BCST powv<>+288(SB), s2, p; \
	VFMADD213PD.BCST powv<>+320(SB), s2, p; \
	VFMADD213PD.BCST powv<>+352(SB), s2, p; \
	VFMADD213PD.BCST powv<>+384(SB), s2, p; \
	VFMADD213PD.BCST powv<>+416(SB), s2, p; \
	VFMADD213PD.BCST powv<>+192(SB), s2, p; \
	VMULPD.BCST powv<>+448(SB), s, s; \
	VMULPD s, p, p; \
	VFMADD231PD.BCST powv<>+224(SB), e, p; \
	VCVTPS2PD yb, x; \
	VMULPD p, x, x; \
	VMAXPD.BCST powv<>+480(SB), x, x; \
	VMINPD.BCST powv<>+512(SB), x, x; \
	VMULPD.BCST powv<>+544(SB), x, e; \
	VRNDSCALEPD $0, e, e; \
	VFNMADD231PD.BCST powv<>+576(SB), e, x; \
	VFNMADD231PD.BCST powv<>+608(SB), e, x; \
	VBROADCASTSD powv<>+640(SB), p; \
	VFMADD213PD.BCST powv<>+672(SB), x, p; \
	VFMADD213PD.BCST powv<>+704(SB), x, p; \
	VFMADD213PD.BCST powv<>+736(SB), x, p; \
	VFMADD213PD.BCST powv<>+768(SB), x, p; \
	VFMADD213PD.BCST powv<>+800(SB), x, p; \
	VFMADD213PD.BCST powv<>+832(SB), x, p; \
	VFMADD213PD.BCST powv<>+192(SB), x, p; \
	VFMADD213PD.BCST powv<>+192(SB), x, p; \
	VSCALEFPD e, p, p; \
	VCVTPD2PS p, ym; \
	VBLENDMPS yb, ya, K4, ya; \
	VBLENDMPS ym, ya, kf, ym; \
	VMOVUPS ym, off(DI)

// func powF32AVX512(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int) (slow int)
// powF32 for n a multiple of 16, two chains of eight lanes a step (the
// masks as powF32 writes them: one byte per four lanes).
TEXT ·powF32AVX512(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ masks+32(FP), R8
	MOVQ keepb+40(FP), AX
	NEGQ AX
	KMOVB AX, K4 // all ones: keep b's
	XORQ R9, R9
	VPXORQ Z9, Z9, Z9
loop512:
	CMPQ CX, $16
	JB done512
	POW8(0, 0, Y12, Y13, Z0, Z1, Z3, Z4, Z5, Z6, K1, K2, Y7)
	POW8(32, 2, Y28, Y29, Z16, Z17, Z19, Z20, Z21, Z22, K5, K6, Y23)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	ADDQ $4, R8
	SUBQ $16, CX
	JMP loop512
done512:
	MOVQ R9, slow+48(FP)
	VZEROUPPER
	RET
