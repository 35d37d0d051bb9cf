// Code in this file: AVX float32 and float64 Abs and Neg (sign-bit masks,
// bitsF64; float32 pairs go through it as float64s), Sqrt (VSQRTPS,
// correctly rounded as float64's square root rounded to float32 is;
// VSQRTPD) and Relu. Chosen at start-up with the other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// STORE4 stores Y0…Y3 (128 bytes: elems results) at DI with mv and steps
// past them; STORE1 stores X0's one (size bytes).
#define STORE4(mv, elems) \
	mv Y0, 0(DI); \
	mv Y1, 32(DI); \
	mv Y2, 64(DI); \
	mv Y3, 96(DI); \
	ADDQ $128, SI; \
	ADDQ $128, DI; \
	SUBQ $elems, CX

#define STORE1(mv, size) \
	mv X0, (DI); \
	ADDQ $size, SI; \
	ADDQ $size, DI; \
	DECQ CX

#define STORE32 STORE4(VMOVUPS, 32)
#define STORE16D STORE4(VMOVUPD, 16)

// func sqrtF32(d, a unsafe.Pointer, n int)
TEXT ·sqrtF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
sloop:
	CMPQ CX, $32
	JB stail
	VSQRTPS 0(SI), Y0
	VSQRTPS 32(SI), Y1
	VSQRTPS 64(SI), Y2
	VSQRTPS 96(SI), Y3
	STORE32
	JMP sloop
stail:
	TESTQ CX, CX
	JZ sdone
	VMOVSS (SI), X0
	VSQRTSS X0, X0, X0
	STORE1(VMOVSS, 4)
	JMP stail
sdone:
	VZEROUPPER
	RET

// RELU is max(a, 0) of n elements (elems a step of 128 bytes, then one
// at a time): a is VMAXPS's or VMAXPD's second source, which it returns
// when either is NaN or both are zeros; adding +0 then turns −0 into +0
// (as relu64 gives) and leaves the rest, NaN included, as they are.
#define RELU(maxp, addp, maxs, adds, mv, st, size) \
	ARGS; \
	VXORPS Y4, Y4, Y4; \
rloop: \
	CMPQ CX, $(128/size); \
	JB rtail; \
	maxp 0(SI), Y4, Y0; \
	maxp 32(SI), Y4, Y1; \
	maxp 64(SI), Y4, Y2; \
	maxp 96(SI), Y4, Y3; \
	addp Y4, Y0, Y0; \
	addp Y4, Y1, Y1; \
	addp Y4, Y2, Y2; \
	addp Y4, Y3, Y3; \
	STORE4(st, 128/size); \
	JMP rloop; \
rtail: \
	TESTQ CX, CX; \
	JZ rdone; \
	mv (SI), X1; \
	maxs X1, X4, X0; \
	adds X4, X0, X0; \
	STORE1(mv, size); \
	JMP rtail; \
rdone: \
	VZEROUPPER; \
	RET

// func reluF32(d, a unsafe.Pointer, n int)
TEXT ·reluF32(SB), NOSPLIT, $0-24
	RELU(VMAXPS, VADDPS, VMAXSS, VADDSS, VMOVSS, VMOVUPS, 4)

// func reluF64(d, a unsafe.Pointer, n int)
TEXT ·reluF64(SB), NOSPLIT, $0-24
	RELU(VMAXPD, VADDPD, VMAXSD, VADDSD, VMOVSD, VMOVUPD, 8)

// SIGN turns the lanes of r into sign64's results: ±1 by the sign bit, 0
// where r is ±0, r itself where NaN (and, or, cmp, blend: the PS or PD
// forms). Y4, Y5, Y6 hold 0, the sign bit and 1; t and m are scratch.
#define SIGN(and, or, cmp, blend, r, t, m) \
	and Y5, r, t; \
	or Y6, t, t; \
	cmp $4, Y4, r, m; \
	and m, t, t; \
	cmp $3, r, r, m; \
	blend m, r, t, r

// SIGNS is sign64 of n elements, 128 bytes a step, then one at a time
// (bc broadcasts one element; sb and one are the sign bit's and 1's).
#define SIGNS(and, or, cmp, blend, bc, mv, st, size, sb, one) \
	ARGS; \
	VXORPS Y4, Y4, Y4; \
	MOVQ $sb, AX; \
	MOVQ AX, X5; \
	bc X5, Y5; \
	MOVQ $one, AX; \
	MOVQ AX, X6; \
	bc X6, Y6; \
gloop: \
	CMPQ CX, $(128/size); \
	JB gtail; \
	VMOVUPS 0(SI), Y0; \
	VMOVUPS 32(SI), Y1; \
	VMOVUPS 64(SI), Y2; \
	VMOVUPS 96(SI), Y3; \
	SIGN(and, or, cmp, blend, Y0, Y7, Y8); \
	SIGN(and, or, cmp, blend, Y1, Y9, Y10); \
	SIGN(and, or, cmp, blend, Y2, Y11, Y12); \
	SIGN(and, or, cmp, blend, Y3, Y13, Y14); \
	STORE4(st, 128/size); \
	JMP gloop; \
gtail: \
	TESTQ CX, CX; \
	JZ gdone; \
	mv (SI), X0; \
	SIGN(and, or, cmp, blend, Y0, Y7, Y8); \
	STORE1(mv, size); \
	JMP gtail; \
gdone: \
	VZEROUPPER; \
	RET

// func signF32(d, a unsafe.Pointer, n int)
TEXT ·signF32(SB), NOSPLIT, $0-24
	SIGNS(VANDPS, VORPS, VCMPPS, VBLENDVPS, VBROADCASTSS, VMOVSS, VMOVUPS, 4, 0x80000000, 0x3f800000)

// func signF64(d, a unsafe.Pointer, n int)
TEXT ·signF64(SB), NOSPLIT, $0-24
	SIGNS(VANDPD, VORPD, VCMPPD, VBLENDVPD, VBROADCASTSD, VMOVSD, VMOVUPD, 8, 0x8000000000000000, 0x3ff0000000000000)

// func ntCopyF32(d, a unsafe.Pointer, n int)
// Copies n float32s (a multiple of 32) to a 32-byte aligned d with
// non-temporal stores: d's lines are not read first. No fence: the
// caller calls sfence once after its last copy.
TEXT ·ntCopyF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
cloop:
	CMPQ CX, $32
	JB cdone
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y1, 32(DI)
	VMOVNTPS Y2, 64(DI)
	VMOVNTPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP cloop
cdone:
	VZEROUPPER
	RET

// func sfence()
TEXT ·sfence(SB), NOSPLIT, $0-0
	SFENCE
	RET

// func bitsF64(d, a unsafe.Pointer, n int, and, xor uint64)
// bitsF32 for float64s: d = a&and ^ xor, sixteen a step, then one at a
// time.
TEXT ·bitsF64(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD and+24(FP), Y4
	VBROADCASTSD xor+32(FP), Y5
qloop:
	CMPQ CX, $16
	JB qtail
	VANDPD 0(SI), Y4, Y0
	VANDPD 32(SI), Y4, Y1
	VANDPD 64(SI), Y4, Y2
	VANDPD 96(SI), Y4, Y3
	VXORPD Y5, Y0, Y0
	VXORPD Y5, Y1, Y1
	VXORPD Y5, Y2, Y2
	VXORPD Y5, Y3, Y3
	STORE16D
	JMP qloop
qtail:
	TESTQ CX, CX
	JZ qdone
	VMOVSD (SI), X0
	VANDPD X4, X0, X0
	VXORPD X5, X0, X0
	STORE1(VMOVSD, 8)
	JMP qtail
qdone:
	VZEROUPPER
	RET

// func sqrtF64(d, a unsafe.Pointer, n int)
TEXT ·sqrtF64(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
dloop:
	CMPQ CX, $16
	JB dtail
	VSQRTPD 0(SI), Y0
	VSQRTPD 32(SI), Y1
	VSQRTPD 64(SI), Y2
	VSQRTPD 96(SI), Y3
	STORE16D
	JMP dloop
dtail:
	TESTQ CX, CX
	JZ ddone
	VMOVSD (SI), X0
	VSQRTSD X0, X0, X0
	STORE1(VMOVSD, 8)
	JMP dtail
ddone:
	VZEROUPPER
	RET
