// Package tune is the hook to package ops' per-device tuning, for a
// program that measures tilings on its own GPU and keeps the fastest (the
// bench module's opsbench -tune is one). Tuning changes speed; results
// only where a split-K changes the order of float sums (last bits).
// Package ops fills Gemm at init, so a program that uses it imports ops
// too; until then its functions are nil.
//
// Try it on the default OpenCL device with
//
//	cd bench && go run ./cmd/opsbench -n 20 -gemm 256 -time 50ms
package tune

import "github.com/resident-go/resident/device"

// Gemm is MatMul's tiling per device. A tiling is {TM, TN, TK, RM, RN,
// V}: a work-group computes a TM×TN tile of the product in TK-deep steps;
// V picks the kernel: 0 the portable one (each work-item an RM×RN block),
// 1 the portable one with aligned local vector reads and its prefetching
// form on edge tiles too, 2 and 3 float64 on NVIDIA's tensor cores
// through inline PTX (mma m8n8k4, m16n8k4; RM×RN is then a warp's block).
// elemBytes is 4 for float32, 8 for float64.
var Gemm struct {
	// Get returns the tiling MatMul uses on d for elements of elemBytes.
	Get func(d device.Kernels, elemBytes int) [6]int
	// Set sets it, for every shape (no split-K); an invalid tiling is an
	// error wrapping array.ErrShape.
	Set func(d device.Kernels, elemBytes int, c [6]int) error
	// Unset drops the tiling set: MatMul picks per shape again
	// (ops.Tuning.Gemm).
	Unset func(d device.Kernels, elemBytes int)
	// Split splits every product's K into parts summed after (split-K;
	// 0 drops it). Like a tiling, it changes the order of the sums, so
	// float results may differ in the last bits.
	Split func(d device.Kernels, elemBytes, parts int)
	// Choice describes what MatMul runs for an m×n×k product (tiling and
	// split-K factor), once the shape's class was chosen; "" before.
	Choice func(d device.Kernels, elemBytes, m, n, k int) string
	// Source returns the program source and build options of tiling c
	// (to build it with a compiler's verbose flags).
	Source func(d device.Kernels, elemBytes int, c [6]int) (src, options string)
	// PTX turns the inline-PTX kernels on d on or off (on: where the
	// device is NVIDIA's; a tiling that asks for them then runs them).
	PTX func(d device.Kernels, on bool)
	// PTXState says whether MatMul on d would run the inline-PTX kernel of
	// the float64 tiling's variant (m8n8k4 unless it is 3) and, when that
	// kernel failed to build, the error that made it fall back.
	PTXState func(d device.Kernels) (usable bool, err error)
}
