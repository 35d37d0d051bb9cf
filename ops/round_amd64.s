// Code in this file: AVX float32 rounding (VROUNDPS) for Floor, Ceil,
// Round and Trunc. Chosen at start-up with the other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"

// func roundF32(d, a unsafe.Pointer, n int, mode int)
// mode is VROUNDPS's immediate: 0 nearest (halves to even), 1 down, 2 up,
// 3 toward zero.
TEXT ·roundF32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ mode+24(FP), AX
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
