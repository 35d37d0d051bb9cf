// Code in this file: float32 Norm's L1 and max reductions and the
// maximum of LogSumExp and Softmax (stats_fast.go) over whole vectors,
// AVX2.

//go:build amd64 && !purego

#include "textflag.h"

DATA absred<>+0(SB)/8, $0x7fffffffffffffff // float64 |x| mask
DATA absred<>+8(SB)/4, $0x7fffffff // float32 |x| mask
DATA absred<>+12(SB)/4, $0xff800000 // float32 −Inf
DATA absred<>+16(SB)/4, $0x7fc00000 // float32 NaN
GLOBL absred<>(SB), RODATA|NOPTR, $20

// func absSumF32(p unsafe.Pointer, n int) float64
// n a multiple of 16: Σ|x| in float64 lanes, four accumulators of four.
TEXT ·absSumF32(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD absred<>+0(SB), Y15
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
sumloop:
	CMPQ CX, $16
	JB sumdone
	VCVTPS2PD 0(SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VANDPD Y15, Y4, Y4
	VANDPD Y15, Y5, Y5
	VANDPD Y15, Y6, Y6
	VANDPD Y15, Y7, Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP sumloop
sumdone:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func absMaxF32(p unsafe.Pointer, n int) uint32
// n a multiple of 32: the largest |x| as bits, whose unsigned order is
// the value order (a NaN above +Inf), four accumulators of eight.
TEXT ·absMaxF32(SB), NOSPLIT, $0-20
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VPBROADCASTD absred<>+8(SB), Y15
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
maxloop:
	CMPQ CX, $32
	JB maxdone
	VPAND 0(SI), Y15, Y4
	VPAND 32(SI), Y15, Y5
	VPAND 64(SI), Y15, Y6
	VPAND 96(SI), Y15, Y7
	VPMAXUD Y4, Y0, Y0
	VPMAXUD Y5, Y1, Y1
	VPMAXUD Y6, Y2, Y2
	VPMAXUD Y7, Y3, Y3
	ADDQ $128, SI
	SUBQ $32, CX
	JMP maxloop
maxdone:
	VPMAXUD Y1, Y0, Y0
	VPMAXUD Y3, Y2, Y2
	VPMAXUD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	MOVL X0, ret+16(FP)
	VZEROUPPER
	RET

// func maxF32v(p unsafe.Pointer, n int) float32
// n a multiple of 32: the largest x, NaN if any is (VMAXPS drops a NaN
// in its first operand, so unordered compares collect them apart), four
// accumulators of eight.
TEXT ·maxF32v(SB), NOSPLIT, $0-20
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS absred<>+12(SB), Y0
	VMOVAPS Y0, Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y0, Y3
	VXORPS Y8, Y8, Y8
mloop:
	CMPQ CX, $32
	JB mdone
	VMOVUPS 0(SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VCMPPS $3, Y5, Y4, Y9
	VCMPPS $3, Y7, Y6, Y10
	VORPS Y9, Y8, Y8
	VORPS Y10, Y8, Y8
	VMAXPS Y4, Y0, Y0
	VMAXPS Y5, Y1, Y1
	VMAXPS Y6, Y2, Y2
	VMAXPS Y7, Y3, Y3
	ADDQ $128, SI
	SUBQ $32, CX
	JMP mloop
mdone:
	VMAXPS Y1, Y0, Y0
	VMAXPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VMAXPS X1, X0, X0
	VPTEST Y8, Y8
	JZ mret
	VMOVSS absred<>+16(SB), X0
mret:
	MOVSS X0, ret+16(FP)
	VZEROUPPER
	RET
