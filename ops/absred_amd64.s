// Code in this file: float32 Norm's reductions, CountNonzero and the
// maximum of LogSumExp and Softmax (stats_fast.go) over whole vectors,
// AVX2.

//go:build amd64 && !purego

#include "textflag.h"

DATA absred<>+0(SB)/8, $0x7fffffffffffffff // float64 |x| mask
DATA absred<>+8(SB)/4, $0x7fffffff // float32 |x| mask
DATA absred<>+12(SB)/4, $0xff800000 // float32 −Inf
DATA absred<>+16(SB)/4, $0x7fc00000 // float32 NaN
GLOBL absred<>(SB), RODATA|NOPTR, $20

// ZERO4PD clears the float64 accumulators Y0…Y3.
#define ZERO4PD \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3

// SUM4PD adds the float64 lanes of Y0…Y3 into X0's low lane.
#define SUM4PD \
	VADDPD Y1, Y0, Y0; \
	VADDPD Y3, Y2, Y2; \
	VADDPD Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPD X1, X0, X0; \
	VHADDPD X0, X0, X0

// func absSumF32(p unsafe.Pointer, n int) float64
// n a multiple of 16: Σ|x| in float64 lanes, four accumulators of four.
TEXT ·absSumF32(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD absred<>+0(SB), Y15
	ZERO4PD
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
	SUM4PD
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func sumSqF32(p unsafe.Pointer, n int) float64
// n a multiple of 16: Σx² in float64 lanes, each square fused into its
// add, four accumulators of four.
TEXT ·sumSqF32(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ZERO4PD
sqloop:
	CMPQ CX, $16
	JB sqdone
	VCVTPS2PD 0(SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP sqloop
sqdone:
	SUM4PD
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func countNZF32(p unsafe.Pointer, n int) int
// n a multiple of 32: how many x ≠ 0 (NaN counts, −0 does not), the
// compares' all-ones masks subtracted into four int32 counters of eight.
TEXT ·countNZF32(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPS Y15, Y15, Y15
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
cntloop:
	CMPQ CX, $32
	JB cntdone
	VCMPPS $4, 0(SI), Y15, Y4
	VCMPPS $4, 32(SI), Y15, Y5
	VCMPPS $4, 64(SI), Y15, Y6
	VCMPPS $4, 96(SI), Y15, Y7
	VPSUBD Y4, Y0, Y0
	VPSUBD Y5, Y1, Y1
	VPSUBD Y6, Y2, Y2
	VPSUBD Y7, Y3, Y3
	ADDQ $128, SI
	SUBQ $32, CX
	JMP cntloop
cntdone:
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPADDD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	MOVQ AX, ret+16(FP)
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
