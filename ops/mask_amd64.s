// Code in this file: AVX2 float32 and float64 comparisons into uint8
// masks (Compare, IsNaN) and float32 <-> float64 conversions (Cast), 32
// or 16 elements a step; the Go loops take the rest (mask.go).

//go:build amd64 && !purego

#include "textflag.h"

// VPERMD's dword order after the packs, then the bytes' 1
DATA maskc<>+0(SB)/4, $0
DATA maskc<>+4(SB)/4, $4
DATA maskc<>+8(SB)/4, $1
DATA maskc<>+12(SB)/4, $5
DATA maskc<>+16(SB)/4, $2
DATA maskc<>+20(SB)/4, $6
DATA maskc<>+24(SB)/4, $3
DATA maskc<>+28(SB)/4, $7
DATA maskc<>+32(SB)/4, $1
DATA maskc<>+36(SB)/4, $0x7fffffff // float32 |x|
DATA maskc<>+40(SB)/4, $0x7f800000 // float32 +Inf
DATA maskc<>+44(SB)/4, $0x80000000 // int32's indefinite
GLOBL maskc<>(SB), RODATA|NOPTR, $48

// PACKSTORE packs the all-ones or zero lanes of Y0…Y3 to 32 bytes (the
// packs work within 128-bit halves: VPERMD by Y14 puts the four-byte
// groups back in order), keeps their low bit (Y15) and stores them at DI
// with st.
#define PACKSTORE(st) \
	VPACKSSDW Y1, Y0, Y0; \
	VPACKSSDW Y3, Y2, Y2; \
	VPACKSSWB Y2, Y0, Y0; \
	VPERMD Y0, Y14, Y0; \
	VPAND Y15, Y0, Y0; \
	st Y0, (DI)

// CMPLOOP compares 32 float32 at SI with those at DX a step by VCMPPS's
// predicate imm and stores the 32 uint8 at DI (PACKSTORE, st VMOVDQU or,
// for a 32-byte aligned DI, VMOVNTDQ); then returns.
#define CMPLOOP(imm, top, st) \
top: \
	CMPQ CX, $32; \
	JB done; \
	VMOVUPS 0(SI), Y0; \
	VMOVUPS 32(SI), Y1; \
	VMOVUPS 64(SI), Y2; \
	VMOVUPS 96(SI), Y3; \
	VCMPPS $imm, 0(DX), Y0, Y0; \
	VCMPPS $imm, 32(DX), Y1, Y1; \
	VCMPPS $imm, 64(DX), Y2, Y2; \
	VCMPPS $imm, 96(DX), Y3, Y3; \
	PACKSTORE(st); \
	ADDQ $128, SI; \
	ADDQ $128, DX; \
	ADDQ $32, DI; \
	SUBQ $32, CX; \
	JMP top

// CLASSLOOP is CMPLOOP for |a| pred +Inf (Y13 |x|'s mask, Y12 +Inf):
// == for IsInf, < for IsFinite (false for NaN).
#define CLASSLOOP(imm, top, st) \
top: \
	CMPQ CX, $32; \
	JB done; \
	VANDPS 0(SI), Y13, Y0; \
	VANDPS 32(SI), Y13, Y1; \
	VANDPS 64(SI), Y13, Y2; \
	VANDPS 96(SI), Y13, Y3; \
	VCMPPS $imm, Y12, Y0, Y0; \
	VCMPPS $imm, Y12, Y1, Y1; \
	VCMPPS $imm, Y12, Y2, Y2; \
	VCMPPS $imm, Y12, Y3, Y3; \
	PACKSTORE(st); \
	ADDQ $128, SI; \
	ADDQ $32, DI; \
	SUBQ $32, CX; \
	JMP top

// func cmpF32(d unsafe.Pointer, a, b unsafe.Pointer, n int, pred int, nt bool)
// d[i] = 1 where a[i] pred b[i], else 0, for n a multiple of 32; pred 0
// ==, 1 != (true for NaN), 2 <, 3 <=, 4 unordered (either is NaN); 5
// |a| == +Inf, 6 |a| < +Inf (b unused). nt: non-temporal stores, d
// 32-byte aligned.
TEXT ·cmpF32(SB), NOSPLIT, $0-41
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ pred+32(FP), AX
	MOVBLZX nt+40(FP), BX
	VMOVDQU maskc<>+0(SB), Y14
	VPBROADCASTB maskc<>+32(SB), Y15
	VBROADCASTSS maskc<>+36(SB), Y13
	VBROADCASTSS maskc<>+40(SB), Y12
	CMPQ AX, $5
	JAE class
	TESTQ BX, BX
	JNZ ntpreds
	CMPQ AX, $1
	JEQ ne
	JA ltup
	CMPLOOP(0x00, eq, VMOVDQU)
ne:
	CMPLOOP(0x04, neloop, VMOVDQU)
ltup:
	CMPQ AX, $3
	JEQ le
	JA un
	CMPLOOP(0x11, lt, VMOVDQU)
le:
	CMPLOOP(0x12, leloop, VMOVDQU)
un:
	CMPLOOP(0x03, unloop, VMOVDQU)
ntpreds:
	CMPQ AX, $1
	JEQ ntne
	JA ntltup
	CMPLOOP(0x00, nteq, VMOVNTDQ)
ntne:
	CMPLOOP(0x04, ntneloop, VMOVNTDQ)
ntltup:
	CMPQ AX, $3
	JEQ ntle
	JA ntun
	CMPLOOP(0x11, ntlt, VMOVNTDQ)
ntle:
	CMPLOOP(0x12, ntleloop, VMOVNTDQ)
ntun:
	CMPLOOP(0x03, ntunloop, VMOVNTDQ)
class:
	TESTQ BX, BX
	JNZ ntclass
	CMPQ AX, $5
	JA fin
	CLASSLOOP(0x00, inf, VMOVDQU)
fin:
	CLASSLOOP(0x11, finloop, VMOVDQU)
ntclass:
	CMPQ AX, $5
	JA ntfin
	CLASSLOOP(0x00, ntinf, VMOVNTDQ)
ntfin:
	CLASSLOOP(0x11, ntfinloop, VMOVNTDQ)
done:
	SFENCE
	VZEROUPPER
	RET

// func cvtF32F64(d, a unsafe.Pointer, n int, nt bool)
// float64 of n float32s, n a multiple of 16. nt: non-temporal stores, d
// 32-byte aligned.
TEXT ·cvtF32F64(SB), NOSPLIT, $0-25
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVBLZX nt+24(FP), BX
	TESTQ BX, BX
	JNZ wntloop
wloop:
	CMPQ CX, $16
	JB wdone
	VCVTPS2PD 0(SI), Y0
	VCVTPS2PD 16(SI), Y1
	VCVTPS2PD 32(SI), Y2
	VCVTPS2PD 48(SI), Y3
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP wloop
wntloop:
	CMPQ CX, $16
	JB wntdone
	VCVTPS2PD 0(SI), Y0
	VCVTPS2PD 16(SI), Y1
	VCVTPS2PD 32(SI), Y2
	VCVTPS2PD 48(SI), Y3
	VMOVNTPD Y0, 0(DI)
	VMOVNTPD Y1, 32(DI)
	VMOVNTPD Y2, 64(DI)
	VMOVNTPD Y3, 96(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP wntloop
wntdone:
	SFENCE
wdone:
	VZEROUPPER
	RET

// func cvtF64F32(d, a unsafe.Pointer, n int)
// float32 of n float64s (rounded to nearest, as Go's conversion), n a
// multiple of 16.
TEXT ·cvtF64F32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
nloop:
	CMPQ CX, $16
	JB ndone
	VCVTPD2PSY 0(SI), X0
	VCVTPD2PSY 32(SI), X1
	VCVTPD2PSY 64(SI), X2
	VCVTPD2PSY 96(SI), X3
	VMOVUPS X0, 0(DI)
	VMOVUPS X1, 16(DI)
	VMOVUPS X2, 32(DI)
	VMOVUPS X3, 48(DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP nloop
ndone:
	VZEROUPPER
	RET

// TRUNCLOOP truncates 16 float32 at SI to int32 at DI a step (VCVTTPS2DQ),
// storing with st, and ORs into Y14 the lanes that came out as int32's
// indefinite value (Y15).
#define TRUNCLOOP(top, out, st) \
top: \
	CMPQ CX, $16; \
	JB out; \
	VCVTTPS2DQ 0(SI), Y0; \
	VCVTTPS2DQ 32(SI), Y1; \
	st Y0, 0(DI); \
	st Y1, 32(DI); \
	VPCMPEQD Y15, Y0, Y0; \
	VPCMPEQD Y15, Y1, Y1; \
	VPOR Y1, Y0, Y0; \
	VPOR Y0, Y14, Y14; \
	ADDQ $64, SI; \
	ADDQ $64, DI; \
	SUBQ $16, CX; \
	JMP top

// func cvtF32I32(d, a unsafe.Pointer, n int, nt bool) (slow int)
// int32 of n float32s truncated, n a multiple of 16; slow is nonzero
// when a lane came out as int32's indefinite value (its input was out of
// range or NaN, or −2^31): the caller redoes those lanes. nt:
// non-temporal stores, d 32-byte aligned.
TEXT ·cvtF32I32(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVBLZX nt+24(FP), BX
	VPBROADCASTD maskc<>+44(SB), Y15
	VPXOR Y14, Y14, Y14
	TESTQ BX, BX
	JNZ intloop
	TRUNCLOOP(iloop, idone, VMOVDQU)
intloop:
	TRUNCLOOP(intl, intdone, VMOVNTDQ)
intdone:
	SFENCE
idone:
	VPMOVMSKB Y14, AX
	MOVQ AX, slow+32(FP)
	VZEROUPPER
	RET

// func cvtI32F32(d, a unsafe.Pointer, n int)
// float32 of n int32s (rounded to nearest, as Go's conversion), n a
// multiple of 16.
TEXT ·cvtI32F32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
floop:
	CMPQ CX, $16
	JB fdone
	VCVTDQ2PS 0(SI), Y0
	VCVTDQ2PS 32(SI), Y1
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP floop
fdone:
	VZEROUPPER
	RET

// func aboveF32(p unsafe.Pointer, n int, t float32) int
// The first index below n where the float32 at p is not below t (≥ t, or
// NaN: t NGT x), looked for 32 a step; else where the last whole step
// ends.
TEXT ·aboveF32(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS t+16(FP), Y4
	XORQ AX, AX

above:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JGT none
	VCMPPS $0x0a, 0(SI)(AX*4), Y4, Y0
	VCMPPS $0x0a, 32(SI)(AX*4), Y4, Y1
	VCMPPS $0x0a, 64(SI)(AX*4), Y4, Y2
	VCMPPS $0x0a, 96(SI)(AX*4), Y4, Y3
	VORPS Y1, Y0, Y5
	VORPS Y3, Y2, Y6
	VORPS Y6, Y5, Y5
	VPTEST Y5, Y5
	JNZ found
	MOVQ DX, AX
	JMP above

found:
	VMOVMSKPS Y0, R8
	VMOVMSKPS Y1, R9
	VMOVMSKPS Y2, R10
	VMOVMSKPS Y3, R11
	SHLQ $8, R9
	SHLQ $16, R10
	SHLQ $24, R11
	ORQ R9, R8
	ORQ R11, R10
	ORQ R10, R8
	TZCNTQ R8, R8
	ADDQ R8, AX

none:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// VPSHUFB's order for cmpF64's packed bytes, within each 128-bit half
DATA c64shuf<>+0(SB)/8, $0x0706030205040100
DATA c64shuf<>+8(SB)/8, $0x0f0e0b0a0d0c0908
DATA c64shuf<>+16(SB)/8, $0x0706030205040100
DATA c64shuf<>+24(SB)/8, $0x0f0e0b0a0d0c0908
GLOBL c64shuf<>(SB), RODATA|NOPTR, $32

// CMP64LOOP compares 32 float64 at SI with those at DX a step by
// VCMPPD's predicate imm and stores the 32 uint8 at DI: three rounds of
// signed packs take each all-ones or zero quadword to a byte (the first
// two leave each twice, the third keeps one), VPERMD (Y14) and VPSHUFB
// (Y13) put the bytes back in order, Y15 keeps their low bit.
#define CMP64LOOP(imm, top) \
top: \
	CMPQ CX, $32; \
	JB done; \
	VMOVUPD 0(SI), Y0; \
	VMOVUPD 32(SI), Y1; \
	VMOVUPD 64(SI), Y2; \
	VMOVUPD 96(SI), Y3; \
	VMOVUPD 128(SI), Y4; \
	VMOVUPD 160(SI), Y5; \
	VMOVUPD 192(SI), Y6; \
	VMOVUPD 224(SI), Y7; \
	VCMPPD $imm, 0(DX), Y0, Y0; \
	VCMPPD $imm, 32(DX), Y1, Y1; \
	VCMPPD $imm, 64(DX), Y2, Y2; \
	VCMPPD $imm, 96(DX), Y3, Y3; \
	VCMPPD $imm, 128(DX), Y4, Y4; \
	VCMPPD $imm, 160(DX), Y5, Y5; \
	VCMPPD $imm, 192(DX), Y6, Y6; \
	VCMPPD $imm, 224(DX), Y7, Y7; \
	VPACKSSDW Y1, Y0, Y0; \
	VPACKSSDW Y3, Y2, Y2; \
	VPACKSSDW Y5, Y4, Y4; \
	VPACKSSDW Y7, Y6, Y6; \
	VPACKSSWB Y2, Y0, Y0; \
	VPACKSSWB Y6, Y4, Y4; \
	VPACKSSWB Y4, Y0, Y0; \
	VPERMD Y0, Y14, Y0; \
	VPSHUFB Y13, Y0, Y0; \
	VPAND Y15, Y0, Y0; \
	VMOVDQU Y0, (DI); \
	ADDQ $256, SI; \
	ADDQ $256, DX; \
	ADDQ $32, DI; \
	SUBQ $32, CX; \
	JMP top

// func cmpF64(d unsafe.Pointer, a, b unsafe.Pointer, n int, pred int)
// d[i] = 1 where a[i] pred b[i], else 0, for n a multiple of 32; pred
// as cmpF32's 0 to 3.
TEXT ·cmpF64(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ pred+32(FP), AX
	VMOVDQU maskc<>+0(SB), Y14
	VPBROADCASTB maskc<>+32(SB), Y15
	VMOVDQU c64shuf<>+0(SB), Y13
	CMPQ AX, $1
	JEQ ne
	JA ltup
	CMP64LOOP(0x00, eq)
ne:
	CMP64LOOP(0x04, neloop)
ltup:
	CMPQ AX, $3
	JEQ le
	CMP64LOOP(0x11, lt)
le:
	CMP64LOOP(0x12, leloop)
done:
	VZEROUPPER
	RET
