package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops/engine"
)

// Device memory stays flat under Vanilla, Momentum, RMSProp and AdaGrad.
// Adam and BarzilaiBorwein are not here: they Clone every step and hand
// the clones to tensor.ReturnTensor, which drops Alloc'd memory without
// Free, and the engine cannot tell which Dense owns such memory (see the
// engine's doc), so their device memory grows (Adam 8 allocations a step
// at two layers, BarzilaiBorwein about 12).
func TestSolversLiveMemory(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	for k := range 6 {
		name, mk := drawSolver(rng, k)
		if name == "Adam" || name == "BarzilaiBorwein" {
			continue
		}
		r := solverRun{solver: name, make: mk, sizes: []int{2 + rng.IntN(6), 2 + rng.IntN(6), 2 + rng.IntN(3)}, batch: 1 + rng.IntN(4),
			seed: rng.Uint64(), goMem: rng.IntN(2) == 0, f64: name == "BarzilaiBorwein" || rng.IntN(3) == 0, live: true}
		t.Run(name, func(t *testing.T) {
			e := engine.New(sim.NewCompute("live", 1<<30))
			defer e.Close()
			got := runSolver(t, r, e, 40)
			// Cleanups run after a collection, not in it, and the sweep
			// of recycled Denses every few allocations: a step's count
			// varies by a few. A leak of one allocation a step raises
			// the floor by 30.
			early, late := slices.MaxFunc(got.live[:10], cmpLive), slices.MinFunc(got.live[30:], cmpLive)
			if late[0] > early[0]+10 {
				t.Fatalf("%v: live device allocations were at most %v in steps 1-10 and at least %v in steps 31-40: %v", r, early, late, got.live)
			}
		})
	}
}

func cmpLive(a, b [2]int64) int { return int(a[0] - b[0]) }
