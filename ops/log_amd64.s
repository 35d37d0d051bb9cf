// Code in this file: float32 Log in float64 lanes with log32's
// operations (log32.go), eight elements a step on AVX2/FMA: each fused
// multiply-add here is one of log32's math.FMA, so results match the Go
// loop's bit for bit (TestLogKernels).

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// The series' coefficients four times each (the fused multiply-adds read
// them as 256-bit operands: AVX2 has no broadcast operand), then the
// constants the kernel broadcasts into registers.
DATA logc<>+0(SB)/8, $0x3fb3b13b13b13b14 // 1/13
DATA logc<>+8(SB)/8, $0x3fb3b13b13b13b14
DATA logc<>+16(SB)/8, $0x3fb3b13b13b13b14
DATA logc<>+24(SB)/8, $0x3fb3b13b13b13b14
DATA logc<>+32(SB)/8, $0x3fb745d1745d1746 // 1/11
DATA logc<>+40(SB)/8, $0x3fb745d1745d1746
DATA logc<>+48(SB)/8, $0x3fb745d1745d1746
DATA logc<>+56(SB)/8, $0x3fb745d1745d1746
DATA logc<>+64(SB)/8, $0x3fbc71c71c71c71c // 1/9
DATA logc<>+72(SB)/8, $0x3fbc71c71c71c71c
DATA logc<>+80(SB)/8, $0x3fbc71c71c71c71c
DATA logc<>+88(SB)/8, $0x3fbc71c71c71c71c
DATA logc<>+96(SB)/8, $0x3fc2492492492492 // 1/7
DATA logc<>+104(SB)/8, $0x3fc2492492492492
DATA logc<>+112(SB)/8, $0x3fc2492492492492
DATA logc<>+120(SB)/8, $0x3fc2492492492492
DATA logc<>+128(SB)/8, $0x3fc999999999999a // 1/5
DATA logc<>+136(SB)/8, $0x3fc999999999999a
DATA logc<>+144(SB)/8, $0x3fc999999999999a
DATA logc<>+152(SB)/8, $0x3fc999999999999a
DATA logc<>+160(SB)/8, $0x3fd5555555555555 // 1/3
DATA logc<>+168(SB)/8, $0x3fd5555555555555
DATA logc<>+176(SB)/8, $0x3fd5555555555555
DATA logc<>+184(SB)/8, $0x3fd5555555555555
DATA logc<>+192(SB)/8, $0x3ff6a09e667f3bcd // √2
DATA logc<>+200(SB)/8, $0x3fe62e42fefa39ef // ln2
DATA logc<>+208(SB)/8, $0x000fffffffffffff // mantissa
DATA logc<>+216(SB)/8, $0x3ff0000000000000 // 1
DATA logc<>+224(SB)/8, $0x4330000000000000 // 2^52
DATA logc<>+232(SB)/8, $0x43300000000003ff // 2^52 + 1023
DATA logc<>+240(SB)/8, $0x3fe0000000000000 // 0.5
DATA logc<>+248(SB)/8, $0x4000000000000000 // 2
DATA logc<>+256(SB)/4, $0x7f800000 // +Inf (float32)
DATA logc<>+260(SB)/4, $0xbf800000 // -1 (float32)
DATA logc<>+264(SB)/8, $0x7fffffffffffffff // |x|
DATA logc<>+272(SB)/8, $0x3e20000000000000 // 2^-29
// Softplus's: its exp's reduction and series, the series of log1p for
// small e, and the rest.
C4(logc<>, 288, $0x3ff71547652b82fe) // log2e
C4(logc<>, 320, $0x3fe62e42fee00000) // ln2hi
C4(logc<>, 352, $0x3dea39ef35793c76) // ln2lo
C4(logc<>, 384, $0x3e927e4fb7789f5c) // 1/10!
C4(logc<>, 416, $0x3ec71de3a556c734) // 1/9!
C4(logc<>, 448, $0x3efa01a01a01a01a) // 1/8!
C4(logc<>, 480, $0x3f2a01a01a01a01a) // 1/7!
C4(logc<>, 512, $0x3f56c16c16c16c17) // 1/6!
C4(logc<>, 544, $0x3f81111111111111) // 1/5!
C4(logc<>, 576, $0x3fa5555555555555) // 1/4!
C4(logc<>, 608, $0x3fc5555555555555) // 1/3!
C4(logc<>, 640, $0x3fe0000000000000) // 1/2!
C4(logc<>, 672, $0x3ff0000000000000) // 1
C4(logc<>, 704, $0x3fd5555555555555) // 1/3
C4(logc<>, 736, $0xbfe0000000000000) // −1/2
C4(logc<>, 768, $0x3f50000000000000) // 2^−10
C4(logc<>, 800, $1023)
C4(logc<>, 832, $0xc05b800000000000) // −110
C4(logc<>, 864, $0x4338000000000000) // 0x1.8p52
C4(logc<>, 896, $0x8000000000000000) // the sign bit
GLOBL logc<>(SB), RODATA|NOPTR, $928

// LOG4 turns the four float64 lanes of x into log32's float64 result in
// x; e, m, s, z, p free.
#define LOG4(x, e, m, s, z, p) \
	VPSRLQ $52, x, e; \
	VPOR Y10, e, e; \
	VSUBPD Y11, e, e; \
	VANDPD Y12, x, m; \
	VORPD Y13, m, m; \
	VCMPPD $0x1e, Y14, m, s; \
	VMULPD Y15, m, z; \
	VBLENDVPD s, z, m, m; \
	VANDPD Y13, s, s; \
	VADDPD s, e, e; \
	VSUBPD Y13, m, m; \
	VADDPD Y9, m, s; \
	VDIVPD s, m, s; \
	VMULPD s, s, z; \
	VMOVUPD logc<>+0(SB), p; \
	VFMADD213PD logc<>+32(SB), z, p; \
	VFMADD213PD logc<>+64(SB), z, p; \
	VFMADD213PD logc<>+96(SB), z, p; \
	VFMADD213PD logc<>+128(SB), z, p; \
	VFMADD213PD logc<>+160(SB), z, p; \
	VMULPD z, p, p; \
	VADDPD s, s, x; \
	VFMADD231PD p, x, x; \
	VFMADD231PD Y8, e, x

// LOGCONST loads the constants LOG4 reads from registers.
#define LOGCONST \
	VBROADCASTSD logc<>+200(SB), Y8; \
	VBROADCASTSD logc<>+248(SB), Y9; \
	VBROADCASTSD logc<>+224(SB), Y10; \
	VBROADCASTSD logc<>+232(SB), Y11; \
	VBROADCASTSD logc<>+208(SB), Y12; \
	VBROADCASTSD logc<>+216(SB), Y13; \
	VBROADCASTSD logc<>+192(SB), Y14; \
	VBROADCASTSD logc<>+240(SB), Y15

// func logF32(d, a unsafe.Pointer, n int) int
// n a multiple of 8. Stops before the first step with a lane that is not
// in (0, +Inf) (zero, negative, +Inf, NaN: log32 hands those to
// math.Log) and returns the elements done.
TEXT ·logF32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ DX, DX
	LOGCONST
	VBROADCASTSS logc<>+256(SB), Y7
	VXORPS Y6, Y6, Y6
loop:
	CMPQ DX, CX
	JAE done
	VMOVUPS (SI)(DX*4), Y0
	VCMPPS $0x1e, Y6, Y0, Y1
	VCMPPS $0x11, Y7, Y0, Y2
	VANDPS Y2, Y1, Y1
	VMOVMSKPS Y1, AX
	CMPQ AX, $0xff
	JNE done
	VCVTPS2PD X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD X2, Y2
	LOG4(Y1, Y0, Y3, Y4, Y5, Y6)
	LOG4(Y2, Y0, Y3, Y4, Y5, Y6)
	VXORPS Y6, Y6, Y6
	VCVTPD2PSY Y1, X1
	VCVTPD2PSY Y2, X2
	VINSERTF128 $1, X2, Y1, Y1
	VMOVUPS Y1, (DI)(DX*4)
	ADDQ $8, DX
	JMP loop
done:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET

// LOG1P4 turns the four float32 at mem into log1p32's results, stored at
// out: log(1+x), x where |x| < 2^−29.
#define LOG1P4(mem, out) \
	VCVTPS2PD mem, Y1; \
	VADDPD Y13, Y1, Y2; \
	LOG4(Y2, Y4, Y5, Y6, Y7, Y0); \
	VBROADCASTSD logc<>+264(SB), Y3; \
	VANDPD Y3, Y1, Y3; \
	VBROADCASTSD logc<>+272(SB), Y4; \
	VCMPPD $0x11, Y4, Y3, Y4; \
	VBLENDVPD Y4, Y1, Y2, Y2; \
	VCVTPD2PSY Y2, X2; \
	VMOVUPS X2, out

// func log1pF32(d, a unsafe.Pointer, n int) int
// logF32 for Log1p: stops before a step with a lane not in (−1, +Inf).
TEXT ·log1pF32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ DX, DX
	LOGCONST
ploop:
	CMPQ DX, CX
	JAE pdone
	VMOVUPS (SI)(DX*4), Y0
	VBROADCASTSS logc<>+260(SB), Y6
	VBROADCASTSS logc<>+256(SB), Y7
	VCMPPS $0x1e, Y6, Y0, Y1
	VCMPPS $0x11, Y7, Y0, Y2
	VANDPS Y2, Y1, Y1
	VMOVMSKPS Y1, AX
	CMPQ AX, $0xff
	JNE pdone
	LOG1P4(0(SI)(DX*4), 0(DI)(DX*4))
	LOG1P4(16(SI)(DX*4), 16(DI)(DX*4))
	ADDQ $8, DX
	JMP ploop
pdone:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET

// LOG8 is LOG4 in eight lanes on AVX-512 (F, DQ, VL): the constants in
// Z8–Z15, the coefficients broadcast, K2 the lanes with m > √2.
#define LOG8(x, e, m, s, z, p) \
	VPSRLQ $52, x, e; \
	VPORQ Z10, e, e; \
	VSUBPD Z11, e, e; \
	VANDPD Z12, x, m; \
	VORPD Z13, m, m; \
	VCMPPD $0x1e, Z14, m, K2; \
	VMULPD Z15, m, K2, m; \
	VADDPD Z13, e, K2, e; \
	VSUBPD Z13, m, m; \
	VADDPD Z9, m, s; \
	VDIVPD s, m, s; \
	VMULPD s, s, z; \
	VBROADCASTSD logc<>+0(SB), p; \
	VFMADD213PD.BCST logc<>+32(SB), z, p; \
	VFMADD213PD.BCST logc<>+64(SB), z, p; \
	VFMADD213PD.BCST logc<>+96(SB), z, p; \
	VFMADD213PD.BCST logc<>+128(SB), z, p; \
	VFMADD213PD.BCST logc<>+160(SB), z, p; \
	VMULPD z, p, p; \
	VADDPD s, s, x; \
	VFMADD231PD p, x, x; \
	VFMADD231PD Z8, e, x

#define LOGCONST8 \
	VBROADCASTSD logc<>+200(SB), Z8; \
	VBROADCASTSD logc<>+248(SB), Z9; \
	VBROADCASTSD logc<>+224(SB), Z10; \
	VBROADCASTSD logc<>+232(SB), Z11; \
	VBROADCASTSD logc<>+208(SB), Z12; \
	VBROADCASTSD logc<>+216(SB), Z13; \
	VBROADCASTSD logc<>+192(SB), Z14; \
	VBROADCASTSD logc<>+240(SB), Z15

// func logF32AVX512(d, a unsafe.Pointer, n int) int
// logF32 for n a multiple of 16, sixteen lanes a step.
TEXT ·logF32AVX512(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ DX, DX
	LOGCONST8
	VBROADCASTSS logc<>+256(SB), Z7
	VPXORD Z6, Z6, Z6
loop512:
	CMPQ DX, CX
	JAE done512
	VMOVUPS (SI)(DX*4), Z0
	VCMPPS $0x1e, Z6, Z0, K1
	VCMPPS $0x11, Z7, Z0, K3
	KANDW K3, K1, K1
	KMOVW K1, AX
	CMPL AX, $0xffff
	JNE done512
	VCVTPS2PD (SI)(DX*4), Z1
	VCVTPS2PD 32(SI)(DX*4), Z2
	LOG8(Z1, Z16, Z17, Z18, Z19, Z20)
	LOG8(Z2, Z21, Z22, Z23, Z24, Z25)
	VCVTPD2PS Z1, Y1
	VCVTPD2PS Z2, Y2
	VMOVUPS Y1, (DI)(DX*4)
	VMOVUPS Y2, 32(DI)(DX*4)
	ADDQ $16, DX
	JMP loop512
done512:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET

// LOG1P8 is LOG1P4 for the eight float32 at mem, stored at out.
#define LOG1P8(mem, out) \
	VCVTPS2PD mem, Z1; \
	VADDPD Z13, Z1, Z2; \
	LOG8(Z2, Z16, Z17, Z18, Z19, Z20); \
	VANDPD.BCST logc<>+264(SB), Z1, Z3; \
	VCMPPD.BCST $0x11, logc<>+272(SB), Z3, K3; \
	VMOVAPD Z1, K3, Z2; \
	VCVTPD2PS Z2, Y2; \
	VMOVUPS Y2, out

// func log1pF32AVX512(d, a unsafe.Pointer, n int) int
// log1pF32 for n a multiple of 16.
TEXT ·log1pF32AVX512(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ DX, DX
	LOGCONST8
	VBROADCASTSS logc<>+260(SB), Z6
	VBROADCASTSS logc<>+256(SB), Z7
ploop512:
	CMPQ DX, CX
	JAE pdone512
	VMOVUPS (SI)(DX*4), Z0
	VCMPPS $0x1e, Z6, Z0, K1
	VCMPPS $0x11, Z7, Z0, K3
	KANDW K3, K1, K1
	KMOVW K1, AX
	CMPL AX, $0xffff
	JNE pdone512
	LOG1P8(0(SI)(DX*4), 0(DI)(DX*4))
	LOG1P8(32(SI)(DX*4), 32(DI)(DX*4))
	ADDQ $16, DX
	JMP ploop512
pdone512:
	MOVQ DX, ret+24(FP)
	VZEROUPPER
	RET

// SOFTPLUS is softplus32 for the four float32 at off(SI), stored at
// off(DI): max(x, 0) + log1p(e), e = e^−|x| (clamped at e^−110) by
// Horner's Taylor series, log1p(e) as log(1+e) (LOG4) or, for e < 2^−10,
// e·(1 − e/2 + e²/3). The LOGCONST registers are set.
#define SOFTPLUS(off) \
	VCVTPS2PD off(SI), Y0; \
	VORPD logc<>+896(SB), Y0, Y1; \
	VXORPD Y2, Y2, Y2; \
	VMAXPD Y0, Y2, Y0; \
	VMOVUPD logc<>+832(SB), Y2; \
	VMAXPD Y1, Y2, Y1; \
	VMOVUPD logc<>+864(SB), Y3; \
	VMOVAPD Y3, Y4; \
	VFMADD231PD logc<>+288(SB), Y1, Y4; \
	VSUBPD Y3, Y4, Y3; \
	VFNMADD231PD logc<>+320(SB), Y3, Y1; \
	VFNMADD231PD logc<>+352(SB), Y3, Y1; \
	VMOVUPD logc<>+384(SB), Y2; \
	VFMADD213PD logc<>+416(SB), Y1, Y2; \
	VFMADD213PD logc<>+448(SB), Y1, Y2; \
	VFMADD213PD logc<>+480(SB), Y1, Y2; \
	VFMADD213PD logc<>+512(SB), Y1, Y2; \
	VFMADD213PD logc<>+544(SB), Y1, Y2; \
	VFMADD213PD logc<>+576(SB), Y1, Y2; \
	VFMADD213PD logc<>+608(SB), Y1, Y2; \
	VFMADD213PD logc<>+640(SB), Y1, Y2; \
	VFMADD213PD logc<>+672(SB), Y1, Y2; \
	VFMADD213PD logc<>+672(SB), Y1, Y2; \
	VPADDQ logc<>+800(SB), Y4, Y4; \
	VPSLLQ $52, Y4, Y4; \
	VMULPD Y4, Y2, Y1; \
	VADDPD Y13, Y1, Y3; \
	LOG4(Y3, Y2, Y4, Y5, Y6, Y7); \
	VMOVUPD logc<>+704(SB), Y2; \
	VFMADD213PD logc<>+736(SB), Y1, Y2; \
	VFMADD213PD Y13, Y1, Y2; \
	VMULPD Y2, Y1, Y2; \
	VCMPPD $0x11, logc<>+768(SB), Y1, Y4; \
	VBLENDVPD Y4, Y2, Y3, Y3; \
	VADDPD Y3, Y0, Y0; \
	VCVTPD2PSY Y0, X0; \
	VMOVUPS X0, off(DI)

// SOFTPLUS8 is SOFTPLUS for eight float32 on AVX-512, in Z16–Z24 (LOG8
// and LOGCONST8's registers below them), K3 the small-e lanes.
#define SOFTPLUS8(off) \
	VCVTPS2PD off(SI), Z16; \
	VORPD.BCST logc<>+896(SB), Z16, Z17; \
	VPXORQ Z18, Z18, Z18; \
	VMAXPD Z16, Z18, Z16; \
	VBROADCASTSD logc<>+832(SB), Z18; \
	VMAXPD Z17, Z18, Z17; \
	VBROADCASTSD logc<>+864(SB), Z19; \
	VMOVAPD Z19, Z20; \
	VFMADD231PD.BCST logc<>+288(SB), Z17, Z20; \
	VSUBPD Z19, Z20, Z19; \
	VFNMADD231PD.BCST logc<>+320(SB), Z19, Z17; \
	VFNMADD231PD.BCST logc<>+352(SB), Z19, Z17; \
	VBROADCASTSD logc<>+384(SB), Z18; \
	VFMADD213PD.BCST logc<>+416(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+448(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+480(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+512(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+544(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+576(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+608(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+640(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+672(SB), Z17, Z18; \
	VFMADD213PD.BCST logc<>+672(SB), Z17, Z18; \
	VPADDQ.BCST logc<>+800(SB), Z20, Z20; \
	VPSLLQ $52, Z20, Z20; \
	VMULPD Z20, Z18, Z17; \
	VADDPD Z13, Z17, Z19; \
	LOG8(Z19, Z20, Z21, Z22, Z23, Z24); \
	VBROADCASTSD logc<>+704(SB), Z18; \
	VFMADD213PD.BCST logc<>+736(SB), Z17, Z18; \
	VFMADD213PD Z13, Z17, Z18; \
	VMULPD Z18, Z17, Z18; \
	VCMPPD.BCST $0x11, logc<>+768(SB), Z17, K3; \
	VMOVAPD Z18, K3, Z19; \
	VADDPD Z19, Z16, Z16; \
	VCVTPD2PS Z16, Y16; \
	VMOVUPS Y16, off(DI)

// func softplusF32(d, a unsafe.Pointer, n int)
// n a multiple of 8; every lane is done here (NaN and ±Inf too).
TEXT ·softplusF32(SB), NOSPLIT, $0-24
	ARGS
	LOGCONST
	LOOP(SOFTPLUS, 16, 8)

// func softplusF32AVX512(d, a unsafe.Pointer, n int)
// softplusF32 for n a multiple of 16 on AVX-512.
TEXT ·softplusF32AVX512(SB), NOSPLIT, $0-24
	ARGS
	LOGCONST8
	LOOP(SOFTPLUS8, 32, 16)
