// Code in this file: AVX float32 and float64 Abs and Neg (sign-bit masks,
// bitsF64; float32 pairs go through it as float64s), Sqrt (VSQRTPS,
// correctly rounded as float64's square root rounded to float32 is;
// VSQRTPD) and Relu. Chosen at start-up with the other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"

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

// func reluF32(d, a unsafe.Pointer, n int)
// max(a, 0) with a as VMAXPS's second source, which it returns when
// either is NaN or both are zeros; adding +0 then turns −0 into +0 (as
// relu64 gives) and leaves the rest, NaN included, as they are.
TEXT ·reluF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VXORPS Y4, Y4, Y4
rloop:
	CMPQ CX, $32
	JB rtail
	VMAXPS 0(SI), Y4, Y0
	VMAXPS 32(SI), Y4, Y1
	VMAXPS 64(SI), Y4, Y2
	VMAXPS 96(SI), Y4, Y3
	VADDPS Y4, Y0, Y0
	VADDPS Y4, Y1, Y1
	VADDPS Y4, Y2, Y2
	VADDPS Y4, Y3, Y3
	STORE32
	JMP rloop
rtail:
	TESTQ CX, CX
	JZ rdone
	VMOVSS (SI), X1
	VMAXSS X1, X4, X0
	VADDSS X4, X0, X0
	STORE1(VMOVSS, 4)
	JMP rtail
rdone:
	VZEROUPPER
	RET

// SIGN turns the float32 lanes of r into sign64's results: ±1 by the sign
// bit, 0 where r is ±0, r itself where NaN. Y4, Y5, Y6 hold 0, the sign
// bit and 1; t and m are scratch.
#define SIGN(r, t, m) \
	VANDPS Y5, r, t; \
	VORPS Y6, t, t; \
	VCMPPS $4, Y4, r, m; \
	VANDPS m, t, t; \
	VCMPPS $3, r, r, m; \
	VBLENDVPS m, r, t, r

// func signF32(d, a unsafe.Pointer, n int)
TEXT ·signF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VXORPS Y4, Y4, Y4
	MOVL $0x80000000, AX
	MOVD AX, X5
	VBROADCASTSS X5, Y5
	MOVL $0x3f800000, AX
	MOVD AX, X6
	VBROADCASTSS X6, Y6
gloop:
	CMPQ CX, $32
	JB gtail
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	SIGN(Y0, Y7, Y8)
	SIGN(Y1, Y9, Y10)
	SIGN(Y2, Y11, Y12)
	SIGN(Y3, Y13, Y14)
	STORE32
	JMP gloop
gtail:
	TESTQ CX, CX
	JZ gdone
	VMOVSS (SI), X0
	SIGN(Y0, Y7, Y8)
	STORE1(VMOVSS, 4)
	JMP gtail
gdone:
	VZEROUPPER
	RET

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
