//go:build amd64 && !purego

package ops

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// hasAVX2 reports AVX2 with FMA, the level the assembly kernels need.
var hasAVX2 = cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)

// hasAVX512 selects the AVX-512 kernels (matmul, sin and cos).
var hasAVX512 = cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512VL)

// The AVX2 kernels (vec_amd64.s). d = a op b over n elements; nt selects
// non-temporal stores (d is written past the caches).

//go:noescape
func addF32(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func subF32(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func mulF32(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func divF32(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func addF64(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func subF64(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func mulF64(d, a, b unsafe.Pointer, n int, nt bool)

//go:noescape
func divF64(d, a, b unsafe.Pointer, n int, nt bool)

// sumF64 and sumF32 add n elements in 32 float64 lanes (8 accumulators).
//
//go:noescape
func sumF64(p unsafe.Pointer, n int) float64

//go:noescape
func sumF32(p unsafe.Pointer, n int) float64

// absSumF32 is Σ|x| of n float32s in float64 lanes (n a multiple of 16),
// absMaxF32 the largest |x|'s bits (n a multiple of 32); absred_amd64.s.
//
//go:noescape
func absSumF32(p unsafe.Pointer, n int) float64

//go:noescape
func absMaxF32(p unsafe.Pointer, n int) uint32

// sumSqF32 is Σx² of n float32s in float64 lanes (n a multiple of 16),
// countNZF32 the number of nonzero ones, NaN included (n a multiple of
// 32); absred_amd64.s.
//
//go:noescape
func sumSqF32(p unsafe.Pointer, n int) float64

//go:noescape
func countNZF32(p unsafe.Pointer, n int) int

// maxF32v is the largest of n float32s, NaN if any is (n a multiple of
// 32); absred_amd64.s.
//
//go:noescape
func maxF32v(p unsafe.Pointer, n int) float32

// expSumF32 stores e^(a−m) of n float32s in d (which may be a; n a
// multiple of 8, of 16 for the AVX-512 form) with exp32's bits of the
// float32 difference and returns their sum in float64; scaleF32
// multiplies n float32s (a multiple of 32) by r. exp32_amd64.s.
//
//go:noescape
func expSumF32(d, a unsafe.Pointer, n int, m float32) float64

//go:noescape
func expSumF32AVX512(d, a unsafe.Pointer, n int, m float32) float64

//go:noescape
func scaleF32(d unsafe.Pointer, n int, r float32)

// gemm6x8F64 and gemm6x16F32 are the matmul micro-kernels: c, a 6×NR
// row-major tile, is overwritten with the product of k packed columns of A
// (6 values each) and k packed rows of B (NR values each).
//
//go:noescape
func gemm6x8F64(k int, a, b, c unsafe.Pointer)

//go:noescape
func gemm6x16F32(k int, a, b, c unsafe.Pointer)

// gemm6x16F64AVX512 and gemm6x32F32AVX512 are the AVX-512 micro-kernels:
// the same packed layout with twice the tile width.
//
//go:noescape
func gemm6x16F64AVX512(k int, a, b, c unsafe.Pointer)

//go:noescape
func gemm6x32F32AVX512(k int, a, b, c unsafe.Pointer)

// transpose8x8F32 writes the transpose of the 8×8 float32 block at src
// (rows srcStride bytes apart) to dst (rows dstStride bytes apart).
//
//go:noescape
func transpose8x8F32(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int)

// transposeStripF32 transposes 8 src rows of n floats (n a multiple of 8)
// into n dst rows of 8 floats; strides in bytes.
//
//go:noescape
func transposeStripF32(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int, n int)

// copyRows128NT copies 128 bytes per row, rows times, with non-temporal
// stores (dst rows 32-byte aligned); strides in bytes.
//
//go:noescape
func copyRows128NT(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int, rows int)

// roundF32 rounds n float32s from a into d with VROUNDPS's mode (0
// nearest even, 1 floor, 2 ceil, 3 trunc), with non-temporal stores when
// nt; roundF64 likewise n float64s (round_amd64.s).
//
//go:noescape
func roundF32(d, a unsafe.Pointer, n int, mode int, nt bool)

//go:noescape
func roundF64(d, a unsafe.Pointer, n int, mode int)

// bitsF64 stores a&and ^ xor of n float64s' bits in d (Abs, Neg; bitsF32
// for float32s); sqrtF32 and sqrtF64 their square roots; reluF32 and
// reluF64 max(a, 0), NaN kept, −0 to +0 (unary_amd64.s).
//
//go:noescape
func bitsF64(d, a unsafe.Pointer, n int, and, xor uint64)

//go:noescape
func sqrtF32(d, a unsafe.Pointer, n int)

//go:noescape
func sqrtF64(d, a unsafe.Pointer, n int)

//go:noescape
func reluF32(d, a unsafe.Pointer, n int)

//go:noescape
func reluF64(d, a unsafe.Pointer, n int)

// ntCopyF32 copies n float32s (a multiple of 32) to a 32-byte aligned d
// with non-temporal stores (unary_amd64.s).
//
//go:noescape
func ntCopyF32(d, a unsafe.Pointer, n int)

// sfence orders the non-temporal stores before it ahead of later stores.
func sfence()

// signF32 and signF64 store sign64 of n float32s or float64s in d
// (unary_amd64.s).
//
//go:noescape
func signF32(d, a unsafe.Pointer, n int)

//go:noescape
func signF64(d, a unsafe.Pointer, n int)

// logF32 is log32 of n float32s (a multiple of 8), eight a step, up to
// the first step with a lane log32 hands to math.Log; it returns the
// elements done (log_amd64.s).
//
//go:noescape
func logF32(d, a unsafe.Pointer, n int) int

// log1pF32 is logF32 for log1p32, stopping at a lane not in (−1, +Inf).
//
//go:noescape
func log1pF32(d, a unsafe.Pointer, n int) int

// logF32AVX512 and log1pF32AVX512 are logF32 and log1pF32 for n a
// multiple of 16 on AVX-512.
//
//go:noescape
func logF32AVX512(d, a unsafe.Pointer, n int) int

//go:noescape
func log1pF32AVX512(d, a unsafe.Pointer, n int) int

// sigmoidF32 computes 1/(1+e^−a) of n float32s, n a multiple of 8, in
// float64 lanes with exp64's algorithm; exp_amd64.s.
//
//go:noescape
func sigmoidF32(d, a unsafe.Pointer, n int)

// sigmoidF32AVX512 is sigmoidF32 for n a multiple of 16 on AVX-512 (F,
// DQ, VL): the same lanes' arithmetic, eight float64 lanes twice a step.
//
//go:noescape
func sigmoidF32AVX512(d, a unsafe.Pointer, n int)

// tanhF32 computes tanh of n float32s, n a multiple of 8, with tanh32's
// float32 operations (AVX2/FMA); tanh_amd64.s.
//
//go:noescape
func tanhF32(d, a unsafe.Pointer, n int)

// tanhF32AVX512 is tanhF32 for n a multiple of 16 on AVX-512.
//
//go:noescape
func tanhF32AVX512(d, a unsafe.Pointer, n int)

// exp32F32 computes e^x of n float32s, n a multiple of 8, with exp32's
// operations (AVX2/FMA). exp32_amd64.s.
//
//go:noescape
func exp32F32(d, a unsafe.Pointer, n int)

// exp32F32AVX512 is exp32F32 for n a multiple of 16 on AVX-512.
//
//go:noescape
func exp32F32AVX512(d, a unsafe.Pointer, n int)

// sinF32 computes sin (cos: 1) of n float32s, n a multiple of 4, in
// float64 lanes with sinCos32's algorithm. Lanes with |x| ≥ 2^20, NaN or
// Inf keep x in d, and slow is then nonzero: the caller redoes them
// (from a, which is x there even when d is a). sin_amd64.s.
//
//go:noescape
func sinF32(d, a unsafe.Pointer, n int, cos int) (slow int)

// sinF32AVX512 is sinF32 for n a multiple of 16 on AVX-512 (F, DQ, VL):
// the same lanes' arithmetic, eight float64 lanes twice a step.
//
//go:noescape
func sinF32AVX512(d, a unsafe.Pointer, n int, cos int) (slow int)

// powF32 computes a^b of n float32s, n a multiple of 4, in float64 lanes
// as pow32Go does, bit for bit; c is powConsts. Lanes where a is not a
// positive normal float32 or b is not finite keep a (b with keepb 1, for
// d that is b) in d and set their bit in masks, one byte per four lanes;
// slow, the OR of the bytes, says whether the caller has lanes to redo.
// pow_amd64.s.
//
//go:noescape
func powF32(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int, c *powTable) (slow int)

// powF32AVX512 is powF32 for n a multiple of 16 on AVX-512 (F, DQ, VL):
// the same results and masks, eight float64 lanes twice a step; it
// leaves the slow lanes of d as they were (keepb unused).
//
//go:noescape
func powF32AVX512(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int, c *powTable) (slow int)

// minMaxF32 and minMaxF64 compute d = min(a, b) (isMax: max), bit for bit
// what Go's min and max give on amd64 (NaN payloads, ±0); n a multiple of 8 (float64: 4), d
// 32-byte aligned when nt. minmax_amd64.s.
//
//go:noescape
func minMaxF32(d, a, b unsafe.Pointer, n int, isMax, nt bool)

//go:noescape
func minMaxF64(d, a, b unsafe.Pointer, n int, isMax, nt bool)

// expm1F32, sinhF32 and coshF32 compute expm1_32, sinh32 and cosh32 of n
// float32s, n a multiple of 8, every lane; the AVX512 ones take n a
// multiple of 16 (hyp_amd64.s, sinhcosh_amd64.s).
//
//go:noescape
func expm1F32(d, a unsafe.Pointer, n int)

//go:noescape
func sinhF32(d, a unsafe.Pointer, n int)

//go:noescape
func coshF32(d, a unsafe.Pointer, n int)

//go:noescape
func expm1F32AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func sinhF32AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func coshF32AVX512(d, a unsafe.Pointer, n int)

// asinF32, acosF32 and atanF32 compute asin32, acos32 and atan32 of n
// float32s, n a multiple of 8, every lane; the AVX512 ones take n a
// multiple of 16 (asin_amd64.s).
//
//go:noescape
func asinF32(d, a unsafe.Pointer, n int)

//go:noescape
func acosF32(d, a unsafe.Pointer, n int)

//go:noescape
func atanF32(d, a unsafe.Pointer, n int)

//go:noescape
func asinF32AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func acosF32AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func atanF32AVX512(d, a unsafe.Pointer, n int)

// tanF32 is tan32 of n float32s (a multiple of 8), eight a step, up to
// the first step with a lane tan32 hands to math.Tan; it returns the
// elements done (tan_amd64.s). tanF32AVX512 is the same on AVX-512.
//
//go:noescape
func tanF32(d, a unsafe.Pointer, n int) int

//go:noescape
func tanF32AVX512(d, a unsafe.Pointer, n int) int

// softplusF32 computes softplus32 of n float32s, n a multiple of 8, every
// lane; softplusF32AVX512 takes n a multiple of 16 (log_amd64.s).
//
//go:noescape
func softplusF32(d, a unsafe.Pointer, n int)

//go:noescape
func softplusF32AVX512(d, a unsafe.Pointer, n int)

// cmpF32 stores 1 where a[i] pred b[i], else 0, in n uint8s (a multiple
// of 32); pred as mask.go's cmpPred and pred* constants; nt:
// non-temporal stores to a 32-byte aligned d (mask_amd64.s).
//
//go:noescape
func cmpF32(d, a, b unsafe.Pointer, n int, pred int, nt bool)

// cmpF64 is cmpF32's predicates 0 to 3 over float64s, n a multiple of
// 32, plain stores (mask_amd64.s).
//
//go:noescape
func cmpF64(d, a, b unsafe.Pointer, n int, pred int)

// aboveF32 returns the index of the first of the n float32 at p that is
// ≥ t or a NaN, looked for 32 a step; where no whole step holds one, the
// last whole step's end (mask_amd64.s).
//
//go:noescape
func aboveF32(p unsafe.Pointer, n int, t float32) int

// cvtF32F64 and cvtF64F32 convert n elements (a multiple of 16) between
// float32 and float64, cvtF32F64 with non-temporal stores to a 32-byte
// aligned d where nt (mask_amd64.s).
//
//go:noescape
func cvtF32F64(d, a unsafe.Pointer, n int, nt bool)

//go:noescape
func cvtF64F32(d, a unsafe.Pointer, n int)

// cvtF32I32 truncates n float32s (a multiple of 16) to int32 (with
// non-temporal stores to a 32-byte aligned d where nt), reporting slow
// where a lane came out as math.MinInt32 (out of range, NaN, or −2^31:
// the caller redoes those); cvtI32F32 converts n int32s to
// float32 (mask_amd64.s).
//
//go:noescape
func cvtF32I32(d, a unsafe.Pointer, n int, nt bool) (slow int)

//go:noescape
func cvtI32F32(d, a unsafe.Pointer, n int)

// expF64 and expF64AVX512 compute expF64one of n float64s, n a multiple
// of 4 (AVX2) or 8 (AVX-512), every lane (exp64_amd64.s).
//
//go:noescape
func expF64(d, a unsafe.Pointer, n int)

//go:noescape
func expF64AVX512(d, a unsafe.Pointer, n int)

// tanhF64 and tanhF64AVX512 store tanhF64one of a in d, n a multiple of
// 4 and 8 (exp64_amd64.s); sigmoidF64 and sigmoidF64AVX512
// sigmoidF64one.
//
//go:noescape
func tanhF64(d, a unsafe.Pointer, n int)

//go:noescape
func tanhF64AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func sigmoidF64(d, a unsafe.Pointer, n int)

// sinhF64, coshF64 and expm1F64 (and their AVX512 forms) store
// sinhF64one, coshF64one and expm1F64one of a in d, n a multiple of 4
// and 8 (exp64_amd64.s).
//
//go:noescape
func sinhF64(d, a unsafe.Pointer, n int)

//go:noescape
func sinhF64AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func coshF64(d, a unsafe.Pointer, n int)

//go:noescape
func coshF64AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func expm1F64(d, a unsafe.Pointer, n int)

//go:noescape
func expm1F64AVX512(d, a unsafe.Pointer, n int)

// atanF64, asinF64 and acosF64 (and their AVX512 forms) store
// atanF64one, asinF64one and acosF64one of a in d, n a multiple of 4
// and 8 (atan64_amd64.s).
//
//go:noescape
func atanF64(d, a unsafe.Pointer, n int)

//go:noescape
func atanF64AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func asinF64(d, a unsafe.Pointer, n int)

//go:noescape
func asinF64AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func acosF64(d, a unsafe.Pointer, n int)

//go:noescape
func acosF64AVX512(d, a unsafe.Pointer, n int)

//go:noescape
func sigmoidF64AVX512(d, a unsafe.Pointer, n int)

// sinCosF64 and sinCosF64AVX512 compute sinCos64 of n float64s (n a
// multiple of 8; q = 2 and smask = 0 for Cos, 0 and the sign bit for Sin)
// up to a step of eight with a lane past 2^29, NaN or ±Inf, and return
// the elements done (sin64_amd64.s).
//
//go:noescape
func sinCosF64(d, a unsafe.Pointer, n int, q int32, smask uint64) int

//go:noescape
func sinCosF64AVX512(d, a unsafe.Pointer, n int, q int32, smask uint64) int

// tanF64 and tanF64AVX512 compute tan64 of n float64s (n a multiple of
// 8), stopping as sinCosF64 does; they return the elements done
// (sin64_amd64.s).
//
//go:noescape
func tanF64(d, a unsafe.Pointer, n int) int

//go:noescape
func tanF64AVX512(d, a unsafe.Pointer, n int) int

// log1pF64 and log1pF64AVX512 compute log1p64 of n float64s (n a
// multiple of 8), stopping before a step with a lane whose 1 + x is not
// a positive normal number; they return the elements done
// (log64_amd64.s).
//
//go:noescape
func log1pF64(d, a unsafe.Pointer, n int) int

//go:noescape
func log1pF64AVX512(d, a unsafe.Pointer, n int) int

// logF64 and logF64AVX512 compute package math's Log of n float64s (n a
// multiple of 8) up to a step of eight with a lane that is not a positive
// normal number, and return the elements done (log64_amd64.s).
//
//go:noescape
func logF64(d, a unsafe.Pointer, n int) int

//go:noescape
func logF64AVX512(d, a unsafe.Pointer, n int) int

// powF64 and powF64AVX512 compute pow64One of n float64s (n a multiple of
// 8) from a and b up to a step with a lane it leaves to package math, and
// return the elements done; c is pow64Consts (pow64_amd64.s).
//
//go:noescape
func powF64(d, a, b unsafe.Pointer, n int, c *pow64Table) int

//go:noescape
func powF64AVX512(d, a, b unsafe.Pointer, n int, c *pow64Table) int
