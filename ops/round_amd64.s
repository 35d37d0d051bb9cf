// Code in this file: AVX float32 rounding (VROUNDPS) for Floor, Ceil,
// Round and Trunc. Chosen at start-up with the other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"

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
	CMPQ AX, $1
	JEQ nt1
	CMPQ AX, $2
	JEQ nt2
	CMPQ AX, $3
	JEQ nt3
	JMP nt0
dispatch:
	CMPQ AX, $1
	JEQ loop1
	CMPQ AX, $2
	JEQ loop2
	CMPQ AX, $3
	JEQ loop3
loop0:
	CMPQ CX, $32
	JB tail0
	VROUNDPS $0, 0(SI), Y0
	VROUNDPS $0, 32(SI), Y1
	VROUNDPS $0, 64(SI), Y2
	VROUNDPS $0, 96(SI), Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop0
nt0:
	CMPQ CX, $32
	JB ntend0
	VROUNDPS $0, 0(SI), Y0
	VROUNDPS $0, 32(SI), Y1
	VROUNDPS $0, 64(SI), Y2
	VROUNDPS $0, 96(SI), Y3
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y1, 32(DI)
	VMOVNTPS Y2, 64(DI)
	VMOVNTPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP nt0
ntend0:
	SFENCE
	JMP tail0
tail0:
	TESTQ CX, CX
	JZ done
	VMOVSS (SI), X0
	VROUNDSS $0, X0, X0, X0
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP tail0
loop1:
	CMPQ CX, $32
	JB tail1
	VROUNDPS $1, 0(SI), Y0
	VROUNDPS $1, 32(SI), Y1
	VROUNDPS $1, 64(SI), Y2
	VROUNDPS $1, 96(SI), Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop1
nt1:
	CMPQ CX, $32
	JB ntend1
	VROUNDPS $1, 0(SI), Y0
	VROUNDPS $1, 32(SI), Y1
	VROUNDPS $1, 64(SI), Y2
	VROUNDPS $1, 96(SI), Y3
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y1, 32(DI)
	VMOVNTPS Y2, 64(DI)
	VMOVNTPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP nt1
ntend1:
	SFENCE
	JMP tail1
tail1:
	TESTQ CX, CX
	JZ done
	VMOVSS (SI), X0
	VROUNDSS $1, X0, X0, X0
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP tail1
loop2:
	CMPQ CX, $32
	JB tail2
	VROUNDPS $2, 0(SI), Y0
	VROUNDPS $2, 32(SI), Y1
	VROUNDPS $2, 64(SI), Y2
	VROUNDPS $2, 96(SI), Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop2
nt2:
	CMPQ CX, $32
	JB ntend2
	VROUNDPS $2, 0(SI), Y0
	VROUNDPS $2, 32(SI), Y1
	VROUNDPS $2, 64(SI), Y2
	VROUNDPS $2, 96(SI), Y3
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y1, 32(DI)
	VMOVNTPS Y2, 64(DI)
	VMOVNTPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP nt2
ntend2:
	SFENCE
	JMP tail2
tail2:
	TESTQ CX, CX
	JZ done
	VMOVSS (SI), X0
	VROUNDSS $2, X0, X0, X0
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP tail2
loop3:
	CMPQ CX, $32
	JB tail3
	VROUNDPS $3, 0(SI), Y0
	VROUNDPS $3, 32(SI), Y1
	VROUNDPS $3, 64(SI), Y2
	VROUNDPS $3, 96(SI), Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop3
nt3:
	CMPQ CX, $32
	JB ntend3
	VROUNDPS $3, 0(SI), Y0
	VROUNDPS $3, 32(SI), Y1
	VROUNDPS $3, 64(SI), Y2
	VROUNDPS $3, 96(SI), Y3
	VMOVNTPS Y0, 0(DI)
	VMOVNTPS Y1, 32(DI)
	VMOVNTPS Y2, 64(DI)
	VMOVNTPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP nt3
ntend3:
	SFENCE
	JMP tail3
tail3:
	TESTQ CX, CX
	JZ done
	VMOVSS (SI), X0
	VROUNDSS $3, X0, X0, X0
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP tail3
done:
	VZEROUPPER
	RET
