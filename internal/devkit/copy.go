package devkit

import "sync"

// CopyPiece is the smallest piece of a copy worth its own goroutine.
const CopyPiece = 256 << 10

// ParallelCopy is copy split over up to k goroutines: one core moves
// about half of what the memory bus can (staging Go memory into pinned
// memory is such a copy).
func ParallelCopy(dst, src []byte, k int) {
	n := len(src)
	k = min(k, n/CopyPiece)
	if k <= 1 {
		copy(dst, src)
		return
	}
	per := (n/k + 63) &^ 63
	var wg sync.WaitGroup
	for lo := per; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	copy(dst[:per], src[:per])
	wg.Wait()
}
