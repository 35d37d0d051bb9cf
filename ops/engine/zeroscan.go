package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The engine reads memory whose first device use reads it, to tell zeros
// (tensor's fresh allocations: no upload) from host writes (one upload).
// gorgonia's tape machine makes its registers anew each run, and those
// that collect gradients are read first: 7.45 MB a step for the stock
// MLP at batch 1024, pages the kernel maps on first touch. Large scans
// (these, and the hashes of hostwrites.go) are split over the cores.

// scanChunk is the part each goroutine scans at a time.
const scanChunk = 512 << 10

// onCores runs fn over [0, n) in parts of size bytes, part i being
// [lo, hi) (the last shorter), on up to GOMAXPROCS goroutines; the parts
// do not depend on the number of cores.
func onCores(n, size int, fn func(i, lo, hi int)) {
	parts := (n + size - 1) / size
	procs := min(runtime.GOMAXPROCS(0), parts)
	run := func(g int) {
		for i := g; i < parts; i += procs {
			fn(i, i*size, min(n, (i+1)*size))
		}
	}
	if procs < 2 {
		run(0)
		return
	}
	var wg sync.WaitGroup
	for g := range procs {
		wg.Go(func() { run(g) })
	}
	wg.Wait()
}

// allZero reports whether every byte of p is zero.
func allZero(p []byte) bool {
	if len(p) < 2*scanChunk {
		return zeroWords(p, nil)
	}
	var nonzero atomic.Bool
	onCores(len(p), scanChunk, func(_, lo, hi int) {
		if !nonzero.Load() && !zeroWords(p[lo:hi], &nonzero) {
			nonzero.Store(true)
		}
	})
	return !nonzero.Load()
}

// zeroWords reports whether p is all zero, 64 bytes a step, stopping
// early once stop is set (by another part that found a nonzero byte).
func zeroWords(p []byte, stop *atomic.Bool) bool {
	n := len(p) / 64
	var w [][8]uint64
	if n > 0 {
		w = unsafe.Slice((*[8]uint64)(unsafe.Pointer(unsafe.SliceData(p))), n)
	}
	for i, b := range w {
		if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] != 0 {
			return false
		}
		if i&1023 == 1023 && stop != nil && stop.Load() {
			return true // the caller already knows
		}
	}
	for _, c := range p[n*64:] {
		if c != 0 {
			return false
		}
	}
	return true
}
