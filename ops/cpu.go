package ops

import "os"

// PortableEnv names the environment variable that, when set to anything
// but "" or "0" at start-up, turns the assembly kernels off so the portable
// Go loops run everywhere (CI runs the tests both ways).
const PortableEnv = "RESIDENT_OPS_PORTABLE"

// useAsm selects the AVX2/FMA kernels for dense float32 and float64. It is
// fixed at start-up from cpuid and PortableEnv.
var useAsm = hasAVX2 && !portableRequested()

// useAVX512 selects the AVX-512 kernels (matmul, sin and cos) where the
// CPU has them (ops' tests and benchmarks take -avx512=false to compare
// with the AVX2 ones).
var useAVX512 = useAsm && hasAVX512

func portableRequested() bool {
	v := os.Getenv(PortableEnv)
	return v != "" && v != "0"
}

// Accel names the host kernels chosen at start-up: "avx2+fma" (the
// assembly kernels), "avx2+fma, avx512 matmul" (with AVX-512 GEMM
// micro-kernels) or
// "portable" (Go loops, on CPUs without AVX2/FMA, other architectures, the
// purego build tag, or with RESIDENT_OPS_PORTABLE=1).
func Accel() string {
	if !useAsm {
		return "portable"
	}
	if useAVX512 {
		return "avx2+fma, avx512 matmul"
	}
	return "avx2+fma"
}
