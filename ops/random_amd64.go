//go:build amd64 && !purego

package ops

import "unsafe"

// philoxBlocksAVX2 writes Philox blocks b … b+nb−1 of the key whose round
// keys are keys to dst, nb rounded down to a multiple of 8, 16 bytes a
// block: mode 0 the words, 1 four float32 uniforms, 2 two float64
// uniforms (RandUniform's). The counters are 64-bit: the caller keeps
// b+nb within the stream's blocks. nt: non-temporal stores, dst 32-byte
// aligned. random_amd64.s.
//
//go:noescape
func philoxBlocksAVX2(dst unsafe.Pointer, b uint64, nb int, keys *philoxKeys, mode int, nt bool)

// boxMullerAVX2 writes the float64 normals of n Box–Muller pairs (n
// rounded down to a multiple of 4), one Philox block (x, a) each, from w
// to dst, as normalBlocks' loop does, bit for bit. c is bmConsts.
// random_amd64.s.
//
//go:noescape
func boxMullerAVX2(dst, w unsafe.Pointer, n int, c *bmTable)

// boxMuller32AVX2 writes the float32 normals of n Box–Muller pairs (n
// rounded down to a multiple of 8), words (u, a) each, from w to dst,
// as boxMuller32 does, bit for bit. c is bm32Consts.
// random_normal32_amd64.s.
//
//go:noescape
func boxMuller32AVX2(dst, w unsafe.Pointer, n int, c *bm32Table)
