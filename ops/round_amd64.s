// Code in this file: AVX rounding (VROUNDPS, VROUNDPD) for Floor, Ceil,
// Round and Trunc of float32 and float64. Chosen at start-up with the
// other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"

// STEP rounds 128 bytes at SI into DI (op: VROUNDPS or VROUNDPD, m its
// mode, st the store) and steps past them.
#define STEP(op, m, st) \
	op $m, 0(SI), Y0; \
	op $m, 32(SI), Y1; \
	op $m, 64(SI), Y2; \
	op $m, 96(SI), Y3; \
	st Y0, 0(DI); \
	st Y1, 32(DI); \
	st Y2, 64(DI); \
	st Y3, 96(DI); \
	ADDQ $128, SI; \
	ADDQ $128, DI

// ONE rounds the element at SI into DI (op: VROUNDSS or VROUNDSD, mv the
// move, size its bytes) and steps past it.
#define ONE(op, m, mv, size) \
	mv (SI), X0; \
	op $m, X0, X0, X0; \
	mv X0, (DI); \
	ADDQ $size, SI; \
	ADDQ $size, DI; \
	DECQ CX

// RLOOP rounds elems (128 bytes) a step (op, m, st as STEP's) while CX
// has a whole step, then goes to exit.
#define RLOOP(op, m, st, elems, loop, exit) \
loop: \
	CMPQ CX, $elems; \
	JB exit; \
	STEP(op, m, st); \
	SUBQ $elems, CX; \
	JMP loop

// RTAIL rounds the last elements one at a time (ONE's arguments), then
// goes to done.
#define RTAIL(op, m, mv, size, tail) \
tail: \
	TESTQ CX, CX; \
	JZ done; \
	ONE(op, m, mv, size); \
	JMP tail

// PICK jumps to l1, l2 or l3 for mode AX 1, 2 or 3 (0 falls through).
#define PICK(l1, l2, l3) \
	CMPQ AX, $1; \
	JEQ l1; \
	CMPQ AX, $2; \
	JEQ l2; \
	CMPQ AX, $3; \
	JEQ l3

// MODE32 is float32 rounding with mode m: loop (plain stores), nt
// (non-temporal stores, then a fence) and tail (one at a time), which
// returns.
#define MODE32(m, loop, nt, ntend, tail) \
	RLOOP(VROUNDPS, m, VMOVUPS, 32, loop, tail); \
	RLOOP(VROUNDPS, m, VMOVNTPS, 32, nt, ntend); \
ntend: \
	SFENCE; \
	RTAIL(VROUNDSS, m, VMOVSS, 4, tail)

// MODE64 is float64 rounding with mode m, sixteen a step, then one at a
// time; it returns.
#define MODE64(m, loop, tail) \
	RLOOP(VROUNDPD, m, VMOVUPD, 16, loop, tail); \
	RTAIL(VROUNDSD, m, VMOVSD, 8, tail)

// func roundF32(d, a unsafe.Pointer, n int, mode int, nt bool)
// mode is VROUNDPS's immediate: 0 nearest (halves to even), 1 down, 2 up,
// 3 toward zero. nt: non-temporal stores once d is 32-byte aligned (the
// elements before go one at a time).
TEXT ·roundF32(SB), NOSPLIT, $0-33
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ mode+24(FP), AX
	MOVBLZX nt+32(FP), R9
	TESTQ R9, R9
	JZ dispatch
head:
	TESTQ $31, DI
	JZ aligned
	TESTQ CX, CX
	JZ done
	VMOVSS (SI), X0
	CMPQ AX, $1
	JEQ h1
	CMPQ AX, $2
	JEQ h2
	CMPQ AX, $3
	JEQ h3
	VROUNDSS $0, X0, X0, X0
	JMP hs
h1:
	VROUNDSS $1, X0, X0, X0
	JMP hs
h2:
	VROUNDSS $2, X0, X0, X0
	JMP hs
h3:
	VROUNDSS $3, X0, X0, X0
hs:
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP head
aligned:
	PICK(nt1, nt2, nt3)
	JMP nt0
dispatch:
	PICK(loop1, loop2, loop3)
	MODE32(0, loop0, nt0, ntend0, tail0)
	MODE32(1, loop1, nt1, ntend1, tail1)
	MODE32(2, loop2, nt2, ntend2, tail2)
	MODE32(3, loop3, nt3, ntend3, tail3)
done:
	VZEROUPPER
	RET

// func roundF64(d, a unsafe.Pointer, n int, mode int)
// roundF32's modes for float64s, without the non-temporal path.
TEXT ·roundF64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ mode+24(FP), AX
	PICK(loop1, loop2, loop3)
	MODE64(0, loop0, tail0)
	MODE64(1, loop1, tail1)
	MODE64(2, loop2, tail2)
	MODE64(3, loop3, tail3)
done:
	VZEROUPPER
	RET
