// Package ops holds operations on Arrays that follow residency, destination
// first: ops.Add(dst, a, b).
//
// # Where an op runs
//
// The rule: if the freshest copy of any operand is on a device, the op runs
// there; otherwise it runs on the host. This package implements the host
// side; the device side (OpenCL kernels) completes the rule later behind
// the same calls, so user code does not change. A host op takes each input
// with HostReadOnly and dst with Host, which is where automatic copies to
// host happen (and may fail: every op returns an error for transfer
// failures); dst is then newest on the host.
//
// # Shapes, views and broadcasting
//
// Operands are Arrays of any rank and layout: crops, slices, transposes and
// permutations, non-zero mins, any non-negative strides. Operands align by
// position from their min corner, dimension by dimension (dimension 0,
// the innermost, with dimension 0): their mins need not agree. Broadcasting
// is numpy's rule mirrored to this dimension order: an input may have fewer
// dimensions than dst (the missing ones are outer and repeat) and any input
// dimension of extent 1 repeats along dst's extent. dst itself never
// broadcasts: its shape is the result's shape. A shape that does not fit
// panics with an error wrapping array.ErrShape that names both shapes.
// Functions ending in Scalar take a Go value in place of an Array.
//
// dst may be the same Array as an input with the same layout (in place);
// other overlaps between dst and an input are undefined.
//
// # Types
//
// Elementwise ops, reductions, comparisons, Where, Copy, Fill, Iota and the
// casts take every array.Elem type. Float16 and BFloat16 compute in float32
// and round once per result. Integer arithmetic wraps; integer x/0 is 0.
// An op a type does not define (Sqrt of an int, Neg of a uint) returns an
// error wrapping ErrUnsupported. MatMul takes float32 and float64.
//
// # Accuracy of sums
//
// Float sums (Sum, SumAll, Mean, MeanAll) are pairwise: leaves of 256
// elements are added in 8 (Go) or 16 (AVX2) float64 lanes, and the leaves'
// sums join a binary pairwise tree, across rows and across workers too.
// Every float type accumulates in float64. The result is within
//
//	|s − Σx| ≤ (2·log2(n) + 40) · 2⁻⁵³ · Σ|x|
//
// of the exact sum before the final rounding to T (half an ulp of T),
// which TestSumAccuracy and TestReduceAllTypes check against float64
// references: float32 sums within 2⁻²⁴·Σ|x|, float64 within the bound
// above.
//
// # Speed
//
// Host kernels split work across GOMAXPROCS goroutines (a pool started on
// first use) above a size threshold, and allocate nothing per call in
// steady state. Dense float32/float64 add, sub, mul, div and sums use AVX2
// assembly, transposing copies AVX 8×8 blocks, and MatMul a packed
// micro-kernel with AVX-512 (or AVX2/FMA; RESIDENT_OPS_AVX512=0 forces
// AVX2), chosen at start-up with github.com/klauspost/cpuid/v2; Accel
// reports the choice. Large
// elementwise results are written with non-temporal stores. Everything else,
// and every kernel on other CPUs, runs portable Go: set
// RESIDENT_OPS_PORTABLE=1 (or build with -tags purego) to force it, as CI
// does in a second test run. Figures: bench/results/ops-host.txt, from
//
//	go test -run '^$' -bench . -benchmem ./ops
package ops
