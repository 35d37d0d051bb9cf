//go:build !amd64 || purego

package ops

import "unsafe"

func philoxBlocksAVX2(dst unsafe.Pointer, b uint64, nb int, keys *philoxKeys, mode int, nt bool) {
	panic("ops: no assembly kernels")
}

func boxMullerAVX2(dst, w unsafe.Pointer, n int, c *bmTable) {
	panic("ops: no assembly kernels")
}

func boxMuller32AVX2(dst, w unsafe.Pointer, n int, c *bm32Table) {
	panic("ops: no assembly kernels")
}
