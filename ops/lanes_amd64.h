// Macros shared by the lane kernels (hyp_amd64.s, asin_amd64.s,
// tan_amd64.s, sinhcosh_amd64.s, exp64_amd64.s, sin64_amd64.s,
// log64_amd64.s, atan64_amd64.s, unary_amd64.s).

// C4 stores v four times at name+off: AVX2 FMA memory operands are whole
// vectors (the AVX-512 kernels broadcast the first copy).
#define C4(name, off, v) DATA name+(off)(SB)/8, v; DATA name+(off+8)(SB)/8, v; DATA name+(off+16)(SB)/8, v; DATA name+(off+24)(SB)/8, v

// ARGS loads func(d, a unsafe.Pointer, n int)'s arguments into DI, SI, CX.
#define ARGS \
	MOVQ d+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ n+16(FP), CX

// LOOP runs body (lanes at off(SI) to off(DI)) at offsets 0 and half, a
// step of 2·half bytes, while CX (elements) has a whole step; then
// returns.
#define LOOP(body, half, step) \
loop: \
	CMPQ CX, $step; \
	JB done; \
	body(0); \
	body(half); \
	ADDQ $(2*half), SI; \
	ADDQ $(2*half), DI; \
	SUBQ $step, CX; \
	JMP loop; \
done: \
	VZEROUPPER; \
	RET

// STORESIGN converts the four float64 lanes in r (x its X register) to
// float32, ORs in the sign bits of the inputs at off(SI) (X15 holds the
// sign bit), and stores them at off(DI); X4 is scratch. STORESIGN8 does
// eight from a Z register (y its Y register, Y15 the sign).
#define STORESIGN(off, r, x) \
	VCVTPD2PSY r, x; \
	VANDPS off(SI), X15, X4; \
	VORPS X4, x, x; \
	VMOVUPS x, off(DI)

#define STORESIGN8(off, r, y) \
	VCVTPD2PS r, y; \
	VANDPS off(SI), Y15, Y4; \
	VORPS Y4, y, y; \
	VMOVUPS y, off(DI)

// ONELOOP runs body at 0(SI) to 0(DI), a step of size bytes, while CX
// (elements) has a whole step; then returns.
#define ONELOOP(body, size, step) \
loop: \
	CMPQ CX, $step; \
	JB done; \
	body(0); \
	ADDQ $size, SI; \
	ADDQ $size, DI; \
	SUBQ $step, CX; \
	JMP loop; \
done: \
	VZEROUPPER; \
	RET

// UNTIL8 runs body over steps of eight float64s (64 bytes) while CX
// (elements) has a step and slow, which jumps to done where the step has
// a lane the kernel leaves to Go, lets it; then stores the elements done
// (BX held n) at ret+retoff(FP) and returns.
#define UNTIL8(slow, body, retoff) \
	MOVQ CX, BX; \
loop: \
	CMPQ CX, $8; \
	JB done; \
	slow; \
	body; \
	ADDQ $64, SI; \
	ADDQ $64, DI; \
	SUBQ $8, CX; \
	JMP loop; \
done: \
	SUBQ CX, BX; \
	MOVQ BX, ret+retoff(FP); \
	VZEROUPPER; \
	RET
