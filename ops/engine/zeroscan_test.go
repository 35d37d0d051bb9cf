package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestAllZero: one nonzero byte anywhere — drawn positions, every part's
// edges, the unaligned tail — is found, at sizes under and over the
// parallel split, from offsets that leave p unaligned.
func TestAllZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(draw.Seed(t), 7))
	for _, n := range []int{0, 1, 63, 64, 65, 4095, scanChunk - 1, 2*scanChunk + 77, 5*scanChunk + 4096 + 3} {
		buf := make([]byte, n+8)
		for _, off := range []int{0, 3} {
			p := buf[off : off+n]
			if !allZero(p) {
				t.Fatalf("%d zero bytes at offset %d: not all zero", n, off)
			}
			at := []int{}
			if n > 0 {
				at = append(at, 0, n-1, n/2, rng.IntN(n))
				for e := 4096; e < n; e += 4096 * (1 + rng.IntN(64)) {
					at = append(at, e-1, e)
				}
			}
			for _, i := range at {
				p[i] = byte(1 + rng.IntN(255))
				if allZero(p) {
					t.Fatalf("%d bytes at offset %d with byte %d set (%d): all zero", n, off, i, p[i])
				}
				p[i] = 0
			}
		}
	}
}

// BenchmarkAllZero: the scan of fresh memory (pages first touched by
// the scan, as gorgonia's new registers are) and of touched memory, at
// the stock MLP's 7.45 MB a step; split over the cores and, the peer, in
// one goroutine.
//
//	go test -run '^$' -bench AllZero ./ops/engine
func BenchmarkAllZero(b *testing.B) {
	const n = 7450624
	for _, c := range []struct {
		fresh bool
		split string
		scan  func([]byte) bool
	}{
		{true, "cores", allZero}, {true, "one", func(p []byte) bool { return zeroWords(p, nil) }},
		{false, "cores", allZero}, {false, "one", func(p []byte) bool { return zeroWords(p, nil) }},
	} {
		fresh := c.fresh
		b.Run(fmt.Sprintf("fresh=%v/%s", fresh, c.split), func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			p := make([]byte, n)
			for b.Loop() {
				if fresh {
					b.StopTimer()
					p = make([]byte, n)
					b.StartTimer()
				}
				if !c.scan(p) {
					b.Fatal("not zero")
				}
			}
		})
	}
}
