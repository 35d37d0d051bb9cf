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
// are split over the cores.

// scanChunk is the least each goroutine scans.
const scanChunk = 512 << 10

// allZero reports whether every byte of p is zero.
func allZero(p []byte) bool {
	k := min(runtime.GOMAXPROCS(0), len(p)/scanChunk)
	if k < 2 {
		return zeroWords(p, nil)
	}
	var nonzero atomic.Bool
	var wg sync.WaitGroup
	per := (len(p)/k + 4095) &^ 4095 // page-aligned parts
	for lo := 0; lo < len(p); lo += per {
		part := p[lo:min(lo+per, len(p))]
		wg.Go(func() {
			if !zeroWords(part, &nonzero) {
				nonzero.Store(true)
			}
		})
	}
	wg.Wait()
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
