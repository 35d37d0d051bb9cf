package devkit

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGate: goroutines enter (nested a drawn number of times) and leave
// while another shuts the gate at a drawn moment. When Shut returns no
// entry is inside, and every Enter after it is refused.
func TestGate(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		var g Gate
		var inside, refused atomic.Int64
		var wg sync.WaitGroup
		shutAt := r.IntN(400)
		var steps atomic.Int64
		workers := 2 + r.IntN(6)
		for w := range workers {
			depth := 1 + r.IntN(3)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 + w {
					n := 0
					for n < depth && g.Enter() {
						inside.Add(1)
						n++
					}
					if n < depth {
						refused.Add(1)
					}
					steps.Add(1)
					for ; n > 0; n-- {
						inside.Add(-1)
						g.Leave()
					}
				}
			}()
		}
		total := 0
		for w := range workers {
			total += 50 + w
		}
		for steps.Load() < int64(min(shutAt, total)) && refused.Load() == 0 {
			runtime.Gosched()
		}
		g.Shut()
		if n := inside.Load(); n != 0 {
			t.Fatalf("seed %d: Shut returned with %d entries inside", seed, n)
		}
		if g.Enter() {
			t.Fatalf("seed %d: Enter after Shut let a call in", seed)
		}
		g.Shut() // idempotent
		wg.Wait()
		if !g.IsShut() {
			t.Fatalf("seed %d: not shut", seed)
		}
	}
}
