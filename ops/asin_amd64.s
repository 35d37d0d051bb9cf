// Code in this file: float32 Asin, Acos and Atan in float64 lanes with
// asin32.go's operations (the same reductions, polynomials and fused
// multiply-adds), so results match the Go loops' bit for bit
// (TestAsinKernels): AVX2/FMA kernels four lanes a body, AVX-512 ones
// eight. Every lane is done here, NaN and ±Inf too.

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

C4(asv<>, 0, $0x7fffffffffffffff)   // |x|
C4(asv<>, 32, $0x3f9e1ede4f453f71)  // asinP[0]
C4(asv<>, 64, $0x3f75e7ae0b401630)  // asinP[1]
C4(asv<>, 96, $0x3f93cd8fb1acbe31)  // asinP[2]
C4(asv<>, 128, $0x3f96a870d05d47b4) // asinP[3]
C4(asv<>, 160, $0x3f9f20aed9949778) // asinP[4]
C4(asv<>, 192, $0x3fa6db5c5190b7fe) // asinP[5]
C4(asv<>, 224, $0x3fb333334e3ae7d1) // asinP[6]
C4(asv<>, 256, $0x3fc55555554e7a2f) // asinP[7]
C4(asv<>, 288, $0xbfaf1ed80f1f50ce) // atanR[0]
C4(asv<>, 320, $0x3fbb1ec2e564a631) // atanR[1]
C4(asv<>, 352, $0xbfc23b522b8b39ab) // atanR[2]
C4(asv<>, 384, $0x3fc99919618bf076) // atanR[3]
C4(asv<>, 416, $0xbfd5555492814eaa) // atanR[4]
C4(asv<>, 448, $0x3fe0000000000000) // ½
C4(asv<>, 480, $0xc000000000000000) // −2
C4(asv<>, 512, $0x3ff921fb54442d18) // π/2
C4(asv<>, 544, $0x3fe921fb54442d18) // π/4
C4(asv<>, 576, $0x400921fb54442d18) // π
C4(asv<>, 608, $0x3fda827999fcef32) // √2−1
C4(asv<>, 640, $0x4003504f333f9de6) // √2+1
C4(asv<>, 672, $0xbff0000000000000) // −1
C4(asv<>, 704, $0x4000000000000000) // 2
C4(asv<>, 736, $0x3ff0000000000000) // 1
DATA asv<>+768(SB)/4, $0x80000000   // float32 sign
GLOBL asv<>(SB), RODATA|NOPTR, $776

// SETUP loads the arguments, Y12 = 1 and Y15 = the float32 sign bit
// (SETUP512: Z12, Z15).
#define SETUP \
	ARGS; \
	VBROADCASTSD asv<>+736(SB), Y12; \
	VBROADCASTSS asv<>+768(SB), Y15

#define SETUP512 \
	ARGS; \
	VBROADCASTSD asv<>+736(SB), Z12; \
	VBROADCASTSS asv<>+768(SB), Z15

// ASINCORE is asinCore of |x| for x at off(SI): a in Y5, big in Y2, x's
// sign bits in Y0.
#define ASINCORE(off) \
	VCVTPS2PD off(SI), Y0; \
	VANDPD asv<>+0(SB), Y0, Y1; \
	VXORPD Y1, Y0, Y0; \
	VCMPPD $0x1e, asv<>+448(SB), Y1, Y2; \
	VMULPD Y1, Y1, Y3; \
	VSUBPD Y1, Y12, Y4; \
	VMULPD asv<>+448(SB), Y4, Y4; \
	VBLENDVPD Y2, Y4, Y3, Y3; \
	VSQRTPD Y3, Y4; \
	VBLENDVPD Y2, Y4, Y1, Y1; \
	VMOVUPD asv<>+32(SB), Y5; \
	VFMADD213PD asv<>+64(SB), Y3, Y5; \
	VFMADD213PD asv<>+96(SB), Y3, Y5; \
	VFMADD213PD asv<>+128(SB), Y3, Y5; \
	VFMADD213PD asv<>+160(SB), Y3, Y5; \
	VFMADD213PD asv<>+192(SB), Y3, Y5; \
	VFMADD213PD asv<>+224(SB), Y3, Y5; \
	VFMADD213PD asv<>+256(SB), Y3, Y5; \
	VMULPD Y3, Y1, Y6; \
	VFMADD213PD Y1, Y6, Y5

// Asin: π/2 − 2a where big, x's sign ORed in.
#define ASIN(off) \
	ASINCORE(off); \
	VMOVUPD asv<>+512(SB), Y7; \
	VFMADD231PD asv<>+480(SB), Y5, Y7; \
	VBLENDVPD Y2, Y7, Y5, Y5; \
	STORESIGN(off, Y5, X5)

// Acos: c1·a + c0, c1 = (big ? 2 : −1) with x's sign, c0 = big ? (x < 0
// ? π : 0) : π/2.
#define ACOS(off) \
	ASINCORE(off); \
	VMOVUPD asv<>+672(SB), Y6; \
	VBLENDVPD Y2, asv<>+704(SB), Y6, Y6; \
	VXORPD Y0, Y6, Y6; \
	VXORPD Y7, Y7, Y7; \
	VBLENDVPD Y0, asv<>+576(SB), Y7, Y7; \
	VMOVUPD asv<>+512(SB), Y4; \
	VBLENDVPD Y2, Y7, Y4, Y7; \
	VFMADD213PD Y7, Y6, Y5; \
	VCVTPD2PSY Y5, X5; \
	VMOVUPS X5, off(DI)

// Atan: u = num/den and the base by t's interval, base + u + u·z·R(z).
#define ATAN(off) \
	VCVTPS2PD off(SI), Y0; \
	VANDPD asv<>+0(SB), Y0, Y1; \
	VCMPPD $0x1e, asv<>+608(SB), Y1, Y2; \
	VCMPPD $0x1e, asv<>+640(SB), Y1, Y3; \
	VSUBPD Y12, Y1, Y4; \
	VBLENDVPD Y2, Y4, Y1, Y4; \
	VBLENDVPD Y3, asv<>+672(SB), Y4, Y4; \
	VADDPD Y12, Y1, Y5; \
	VBLENDVPD Y2, Y5, Y12, Y5; \
	VBLENDVPD Y3, Y1, Y5, Y5; \
	VANDPD asv<>+544(SB), Y2, Y6; \
	VBLENDVPD Y3, asv<>+512(SB), Y6, Y6; \
	VDIVPD Y5, Y4, Y4; \
	VMULPD Y4, Y4, Y5; \
	VMOVUPD asv<>+288(SB), Y7; \
	VFMADD213PD asv<>+320(SB), Y5, Y7; \
	VFMADD213PD asv<>+352(SB), Y5, Y7; \
	VFMADD213PD asv<>+384(SB), Y5, Y7; \
	VFMADD213PD asv<>+416(SB), Y5, Y7; \
	VMULPD Y5, Y4, Y5; \
	VFMADD213PD Y4, Y5, Y7; \
	VADDPD Y6, Y7, Y7; \
	STORESIGN(off, Y7, X7)

// The bodies in eight lanes on AVX-512 (F, DQ, VL): masks in K1–K3 and
// masked moves where the AVX2 ones blend.
#define ASINCORE8(off) \
	VCVTPS2PD off(SI), Z0; \
	VANDPD.BCST asv<>+0(SB), Z0, Z1; \
	VXORPD Z1, Z0, Z0; \
	VCMPPD.BCST $0x1e, asv<>+448(SB), Z1, K1; \
	VMULPD Z1, Z1, Z3; \
	VSUBPD Z1, Z12, Z4; \
	VMULPD.BCST asv<>+448(SB), Z4, K1, Z3; \
	VSQRTPD Z3, K1, Z1; \
	VBROADCASTSD asv<>+32(SB), Z5; \
	VFMADD213PD.BCST asv<>+64(SB), Z3, Z5; \
	VFMADD213PD.BCST asv<>+96(SB), Z3, Z5; \
	VFMADD213PD.BCST asv<>+128(SB), Z3, Z5; \
	VFMADD213PD.BCST asv<>+160(SB), Z3, Z5; \
	VFMADD213PD.BCST asv<>+192(SB), Z3, Z5; \
	VFMADD213PD.BCST asv<>+224(SB), Z3, Z5; \
	VFMADD213PD.BCST asv<>+256(SB), Z3, Z5; \
	VMULPD Z3, Z1, Z6; \
	VFMADD213PD Z1, Z6, Z5

#define ASIN8(off) \
	ASINCORE8(off); \
	VBROADCASTSD asv<>+512(SB), Z7; \
	VFMADD231PD.BCST asv<>+480(SB), Z5, Z7; \
	VMOVAPD Z7, K1, Z5; \
	STORESIGN8(off, Z5, Y5)

#define ACOS8(off) \
	ASINCORE8(off); \
	VBROADCASTSD asv<>+672(SB), Z6; \
	VBROADCASTSD asv<>+704(SB), K1, Z6; \
	VXORPD Z0, Z6, Z6; \
	VPMOVQ2M Z0, K2; \
	KANDB K1, K2, K3; \
	VBROADCASTSD asv<>+512(SB), Z7; \
	VXORPD Z7, Z7, K1, Z7; \
	VBROADCASTSD asv<>+576(SB), K3, Z7; \
	VFMADD213PD Z7, Z6, Z5; \
	VCVTPD2PS Z5, Y5; \
	VMOVUPS Y5, off(DI)

#define ATAN8(off) \
	VCVTPS2PD off(SI), Z0; \
	VANDPD.BCST asv<>+0(SB), Z0, Z1; \
	VCMPPD.BCST $0x1e, asv<>+608(SB), Z1, K1; \
	VCMPPD.BCST $0x1e, asv<>+640(SB), Z1, K2; \
	VMOVAPD Z1, Z4; \
	VSUBPD Z12, Z1, K1, Z4; \
	VBROADCASTSD asv<>+672(SB), K2, Z4; \
	VMOVAPD Z12, Z5; \
	VADDPD Z12, Z1, K1, Z5; \
	VMOVAPD Z1, K2, Z5; \
	VBROADCASTSD.Z asv<>+544(SB), K1, Z6; \
	VBROADCASTSD asv<>+512(SB), K2, Z6; \
	VDIVPD Z5, Z4, Z4; \
	VMULPD Z4, Z4, Z5; \
	VBROADCASTSD asv<>+288(SB), Z7; \
	VFMADD213PD.BCST asv<>+320(SB), Z5, Z7; \
	VFMADD213PD.BCST asv<>+352(SB), Z5, Z7; \
	VFMADD213PD.BCST asv<>+384(SB), Z5, Z7; \
	VFMADD213PD.BCST asv<>+416(SB), Z5, Z7; \
	VMULPD Z5, Z4, Z5; \
	VFMADD213PD Z4, Z5, Z7; \
	VADDPD Z6, Z7, Z7; \
	STORESIGN8(off, Z7, Y7)

// func asinF32(d, a unsafe.Pointer, n int)
// n a multiple of 8; the AVX-512 kernels take n a multiple of 16.
TEXT ·asinF32(SB), NOSPLIT, $0-24
	SETUP
	LOOP(ASIN, 16, 8)

// func acosF32(d, a unsafe.Pointer, n int)
TEXT ·acosF32(SB), NOSPLIT, $0-24
	SETUP
	LOOP(ACOS, 16, 8)

// func atanF32(d, a unsafe.Pointer, n int)
TEXT ·atanF32(SB), NOSPLIT, $0-24
	SETUP
	LOOP(ATAN, 16, 8)

// func asinF32AVX512(d, a unsafe.Pointer, n int)
TEXT ·asinF32AVX512(SB), NOSPLIT, $0-24
	SETUP512
	LOOP(ASIN8, 32, 16)

// func acosF32AVX512(d, a unsafe.Pointer, n int)
TEXT ·acosF32AVX512(SB), NOSPLIT, $0-24
	SETUP512
	LOOP(ACOS8, 32, 16)

// func atanF32AVX512(d, a unsafe.Pointer, n int)
TEXT ·atanF32AVX512(SB), NOSPLIT, $0-24
	SETUP512
	LOOP(ATAN8, 32, 16)
