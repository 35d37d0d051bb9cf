package ops

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resident-go/resident/internal/draw"
)

// TestParallelEnds: parallel returns only after every chunk of its call
// has run, exactly once, whichever goroutine finishes last and however
// long it takes: chunk times are drawn from nothing to past spinFor, so
// callers return from their poll and from parking, on several goroutines
// sharing the helpers, and grains from both sides of cheapGrain, so
// chunks go to home workers first or to any worker; a call that returned early, or a wake-up meant for another
// call, shows as a chunk unfinished at return, and a chunk claimed twice
// (a late helper taking a later call's) as one run twice.
func TestParallelEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 11))
	var wg sync.WaitGroup
	for g := range 4 {
		seed := r.Uint64()
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			for c := range 150 {
				j := getJob()
				var ran [maxChunks]atomic.Int32
				slow := r.IntN(4) // 0: no waits; else a drawn chunk sleeps up to 3·spinFor
				j.body = func(j *job, chunk, lo, hi int) {
					if slow > 0 && chunk%slow == 0 {
						time.Sleep(time.Duration(quarters(chunk, c)) * spinFor / 4)
					}
					ran[chunk].Add(1)
				}
				total, grain := 2+r.IntN(1<<12), 1+r.IntN(64) // no home chunks
				if r.IntN(2) == 0 {                           // home chunks
					grain = cheapGrain
					total = grain * (2 + r.IntN(14))
				}
				n := j.parallel(total, grain)
				for k := range n {
					if got := ran[k].Load(); got != 1 {
						t.Errorf("goroutine %d call %d: chunk %d of %d ran %d times when parallel returned", g, c, k, n, got)
						return
					}
				}
				putJob(j)
			}
		}()
	}
	wg.Wait()
}

// quarters is a chunk's sleep in quarters of spinFor, 0 to 12, from its
// chunk and call numbers (chunks run on several goroutines, which cannot
// share a *rand.Rand).
func quarters(chunk, call int) int { return (chunk*7 + call*13) % 13 }
