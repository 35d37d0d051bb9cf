//go:build !amd64 || purego

package ops

import "unsafe"

const (
	hasAVX2   = false
	hasAVX512 = false
)

// Stubs for the amd64 kernels: useAsm is false here, so none is called.

func addF32(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func subF32(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func mulF32(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func divF32(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func addF64(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func subF64(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func mulF64(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func divF64(d, a, b unsafe.Pointer, n int, nt bool)           { panic("ops: no assembly kernels") }
func sumF64(p unsafe.Pointer, n int) float64                  { panic("ops: no assembly kernels") }
func sumF32(p unsafe.Pointer, n int) float64                  { panic("ops: no assembly kernels") }
func absSumF32(p unsafe.Pointer, n int) float64               { panic("ops: no assembly kernels") }
func absMaxF32(p unsafe.Pointer, n int) uint32                { panic("ops: no assembly kernels") }
func maxF32v(p unsafe.Pointer, n int) float32                 { panic("ops: no assembly kernels") }
func sumSqF32(p unsafe.Pointer, n int) float64                { panic("ops: no assembly kernels") }
func countNZF32(p unsafe.Pointer, n int) int                  { panic("ops: no assembly kernels") }
func expSumF32(d, a unsafe.Pointer, n int, m float32) float64 { panic("ops: no assembly kernels") }
func expSumF32AVX512(d, a unsafe.Pointer, n int, m float32) float64 {
	panic("ops: no assembly kernels")
}
func scaleF32(d unsafe.Pointer, n int, r float32)            { panic("ops: no assembly kernels") }
func roundF32(d, a unsafe.Pointer, n int, mode int, nt bool) { panic("ops: no assembly kernels") }
func sigmoidF32(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func sqrtF32(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func reluF32(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func reluF64(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func logF32(d, a unsafe.Pointer, n int) int                  { panic("ops: no assembly kernels") }
func log1pF32(d, a unsafe.Pointer, n int) int                { panic("ops: no assembly kernels") }
func sigmoidF32AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func tanhF32(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func exp32F32(d, a unsafe.Pointer, n int)                    { panic("ops: no assembly kernels") }
func exp32F32AVX512(d, a unsafe.Pointer, n int)              { panic("ops: no assembly kernels") }
func tanhF32AVX512(d, a unsafe.Pointer, n int)               { panic("ops: no assembly kernels") }
func sinF32(d, a unsafe.Pointer, n int, cos int) int         { panic("ops: no assembly kernels") }
func sinF32AVX512(d, a unsafe.Pointer, n int, cos int) int   { panic("ops: no assembly kernels") }
func powF32(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int, c *powTable) int {
	panic("ops: no assembly kernels")
}
func powF32AVX512(d, a, b unsafe.Pointer, n int, masks unsafe.Pointer, keepb int, c *powTable) int {
	panic("ops: no assembly kernels")
}
func minMaxF32(d, a, b unsafe.Pointer, n int, isMax, nt bool) {
	panic("ops: no assembly kernels")
}

func minMaxF64(d, a, b unsafe.Pointer, n int, isMax, nt bool) {
	panic("ops: no assembly kernels")
}

func gemm6x8F64(k int, a, b, c unsafe.Pointer)  { panic("ops: no assembly kernels") }
func gemm6x16F32(k int, a, b, c unsafe.Pointer) { panic("ops: no assembly kernels") }

func transpose8x8F32(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int) {
	panic("ops: no assembly kernels")
}

func transposeStripF32(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int, n int) {
	panic("ops: no assembly kernels")
}

func copyRows128NT(dst unsafe.Pointer, dstStride int, src unsafe.Pointer, srcStride int, rows int) {
	panic("ops: no assembly kernels")
}

func gemm6x16F64AVX512(k int, a, b, c unsafe.Pointer)     { panic("ops: no assembly kernels") }
func gemm6x32F32AVX512(k int, a, b, c unsafe.Pointer)     { panic("ops: no assembly kernels") }
func expm1F32(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func expF64(d, a unsafe.Pointer, n int)                   { panic("ops: no assembly kernels") }
func expF64AVX512(d, a unsafe.Pointer, n int)             { panic("ops: no assembly kernels") }
func tanhF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func tanhF64AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func sigmoidF64(d, a unsafe.Pointer, n int)               { panic("ops: no assembly kernels") }
func sigmoidF64AVX512(d, a unsafe.Pointer, n int)         { panic("ops: no assembly kernels") }
func sinhF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func sinhF64AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func coshF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func coshF64AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func expm1F64(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func expm1F64AVX512(d, a unsafe.Pointer, n int)           { panic("ops: no assembly kernels") }
func atanF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func atanF64AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func asinF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func asinF64AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func acosF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func acosF64AVX512(d, a unsafe.Pointer, n int)            { panic("ops: no assembly kernels") }
func bitsF64(d, a unsafe.Pointer, n int, and, xor uint64) { panic("ops: no assembly kernels") }
func roundF64(d, a unsafe.Pointer, n int, mode int)       { panic("ops: no assembly kernels") }
func sqrtF64(d, a unsafe.Pointer, n int)                  { panic("ops: no assembly kernels") }
func logF64(d, a unsafe.Pointer, n int) int               { panic("ops: no assembly kernels") }
func logF64AVX512(d, a unsafe.Pointer, n int) int         { panic("ops: no assembly kernels") }
func tanF64(d, a unsafe.Pointer, n int) int               { panic("ops: no assembly kernels") }
func tanF64AVX512(d, a unsafe.Pointer, n int) int         { panic("ops: no assembly kernels") }
func log1pF64(d, a unsafe.Pointer, n int) int             { panic("ops: no assembly kernels") }
func log1pF64AVX512(d, a unsafe.Pointer, n int) int       { panic("ops: no assembly kernels") }
func sinCosF64(d, a unsafe.Pointer, n int, q int32, smask uint64) int {
	panic("ops: no assembly kernels")
}
func sinCosF64AVX512(d, a unsafe.Pointer, n int, q int32, smask uint64) int {
	panic("ops: no assembly kernels")
}
func sinhF32(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func coshF32(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func expm1F32AVX512(d, a unsafe.Pointer, n int)                { panic("ops: no assembly kernels") }
func sinhF32AVX512(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func coshF32AVX512(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func asinF32(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func acosF32(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func atanF32(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func asinF32AVX512(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func acosF32AVX512(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func atanF32AVX512(d, a unsafe.Pointer, n int)                 { panic("ops: no assembly kernels") }
func tanF32(d, a unsafe.Pointer, n int) int                    { panic("ops: no assembly kernels") }
func tanF32AVX512(d, a unsafe.Pointer, n int) int              { panic("ops: no assembly kernels") }
func signF32(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func signF64(d, a unsafe.Pointer, n int)                       { panic("ops: no assembly kernels") }
func logF32AVX512(d, a unsafe.Pointer, n int) int              { panic("ops: no assembly kernels") }
func log1pF32AVX512(d, a unsafe.Pointer, n int) int            { panic("ops: no assembly kernels") }
func ntCopyF32(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func sfence()                                                  { panic("ops: no assembly kernels") }
func softplusF32(d, a unsafe.Pointer, n int)                   { panic("ops: no assembly kernels") }
func softplusF32AVX512(d, a unsafe.Pointer, n int)             { panic("ops: no assembly kernels") }
func cmpF32(d, a, b unsafe.Pointer, n int, pred int, nt bool)  { panic("ops: no assembly kernels") }
func cmpF64(d, a, b unsafe.Pointer, n int, pred int)           { panic("ops: no assembly kernels") }
func aboveF32(p unsafe.Pointer, n int, t float32) int          { panic("ops: no assembly kernels") }
func cvtF32F64(d, a unsafe.Pointer, n int, nt bool)            { panic("ops: no assembly kernels") }
func cvtF64F32(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func cvtF32I32(d, a unsafe.Pointer, n int, nt bool) (slow int) { panic("ops: no assembly kernels") }
func cvtI32F32(d, a unsafe.Pointer, n int)                     { panic("ops: no assembly kernels") }
func powF64(d, a, b unsafe.Pointer, n int, c *pow64Table) int  { panic("ops: no assembly kernels") }
func powF64AVX512(d, a, b unsafe.Pointer, n int, c *pow64Table) int {
	panic("ops: no assembly kernels")
}
