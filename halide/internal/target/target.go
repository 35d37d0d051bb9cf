package target

import (
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Portable is the CPU part of every committed object: x86-64 with AVX2,
// FMA and F16C runs on every x86 server of the last decade, including the
// Skylake-AVX512 hosts of the GPU machines. Objects built for
// "host" on an AVX-512 FP16 build machine die there with SIGILL.
const Portable = "x86-64-linux-sse41-avx-avx2-fma-f16c"

// CUDA is the GPU part of committed CUDA objects: PTX for compute
// capability 7.0 (Volta), which the driver compiles at load time for the
// GPU it runs on, newer ones included. Without a capability Halide 14
// emits PTX ISA 3.2 for sm_20 (checked with strings on the object).
const CUDA = "cuda-cuda_capability_70"

// Features lists the Halide 14 x86 feature names the CPU supports, in the
// order Halide's own host detection adds them.
func Features(c cpuid.CPUInfo) []string {
	var f []string
	if c.Supports(cpuid.SSE4) {
		f = append(f, "sse41")
	}
	if !c.Supports(cpuid.AVX) {
		return f
	}
	f = append(f, "avx")
	if c.Supports(cpuid.F16C) {
		f = append(f, "f16c")
	}
	if c.Supports(cpuid.FMA3) {
		f = append(f, "fma")
	}
	if !c.Supports(cpuid.AVX2) {
		return f
	}
	f = append(f, "avx2")
	if !c.Supports(cpuid.AVX512F, cpuid.AVX512CD) {
		return f
	}
	f = append(f, "avx512")
	if c.Supports(cpuid.AVX512ER, cpuid.AVX512PF) {
		f = append(f, "avx512_knl")
	}
	if !c.Supports(cpuid.AVX512VL, cpuid.AVX512BW, cpuid.AVX512DQ) {
		return f
	}
	f = append(f, "avx512_skylake")
	if !c.Supports(cpuid.AVX512IFMA, cpuid.AVX512VBMI) {
		return f
	}
	f = append(f, "avx512_cannonlake")
	if c.Supports(cpuid.AVX512VNNI, cpuid.AVX512BF16) {
		f = append(f, "avx512_sapphirerapids")
	}
	return f
}

// Host returns the Halide target for the CPU this process runs on, e.g.
// "x86-64-linux-sse41-avx-f16c-fma-avx2-avx512-avx512_skylake".
func Host() string {
	return strings.Join(append([]string{"x86-64-linux"}, Features(cpuid.CPU)...), "-")
}
