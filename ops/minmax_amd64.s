// Code in this file: AVX float32 and float64 Minimum and Maximum, bit for
// bit what Go's min and max compile to on amd64 (the compiler's rules:
// min(x, y) = m|MINSD(m, x) with m = MINSD(x, y), max(x, y) =
// −min(−x, −y)), NaN payloads and ±0 included. Chosen at start-up with
// the other kernels (cpu.go).

//go:build amd64 && !purego

#include "textflag.h"

DATA mmsign<>+0(SB)/8, $0x8000000080000000
DATA mmsign<>+8(SB)/8, $0x8000000000000000
GLOBL mmsign<>(SB), RODATA|NOPTR, $16

// func minMaxF32(d, a, b unsafe.Pointer, n int, isMax bool, nt bool)
// n is a multiple of 8; nt (non-temporal stores) needs d 32-byte aligned.
TEXT ·minMaxF32(SB), NOSPLIT, $0-34
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVBLZX isMax+32(FP), R8
	MOVBLZX nt+33(FP), R9
	VXORPS Y15, Y15, Y15
	TESTQ R8, R8
	JZ loop32
	VBROADCASTSS mmsign<>+0(SB), Y15 // max negates in and out
loop32:
	CMPQ CX, $8
	JB done32
	VXORPS (SI), Y15, Y0
	VXORPS (DX), Y15, Y1
	VMINPS Y1, Y0, Y2 // m = x < y ? x : y
	VMINPS Y0, Y2, Y3 // m < x ? m : x
	VORPS Y3, Y2, Y2
	VXORPS Y15, Y2, Y2
	TESTQ R9, R9
	JNZ nt32
	VMOVUPS Y2, (DI)
	JMP next32
nt32:
	VMOVNTPS Y2, (DI)
next32:
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop32
done32:
	TESTQ R9, R9
	JZ out32
	SFENCE
out32:
	VZEROUPPER
	RET

// func minMaxF64(d, a, b unsafe.Pointer, n int, isMax bool, nt bool)
// n is a multiple of 4; nt needs d 32-byte aligned.
TEXT ·minMaxF64(SB), NOSPLIT, $0-34
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVBLZX isMax+32(FP), R8
	MOVBLZX nt+33(FP), R9
	VXORPD Y15, Y15, Y15
	TESTQ R8, R8
	JZ loop64
	VBROADCASTSD mmsign<>+8(SB), Y15
loop64:
	CMPQ CX, $4
	JB done64
	VXORPD (SI), Y15, Y0
	VXORPD (DX), Y15, Y1
	VMINPD Y1, Y0, Y2
	VMINPD Y0, Y2, Y3
	VORPD Y3, Y2, Y2
	VXORPD Y15, Y2, Y2
	TESTQ R9, R9
	JNZ nt64
	VMOVUPD Y2, (DI)
	JMP next64
nt64:
	VMOVNTPD Y2, (DI)
next64:
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $4, CX
	JMP loop64
done64:
	TESTQ R9, R9
	JZ out64
	SFENCE
out64:
	VZEROUPPER
	RET
