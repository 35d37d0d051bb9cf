package engine_test

import (
	"runtime/debug"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/ops/engine"
)

// TestDevicePressure: Go memory adopted for one op and dropped, as
// gorgonia's registers are every run, gives its device copy back though
// the collector never runs on its own (GOGC off): past the budget the
// engine runs the two collections a copy needs, so live allocations stay
// bounded and later adoptions reuse cached blocks. With the collector off
// and no such step every one of the 400 copies would stay live.
func TestDevicePressure(t *testing.T) {
	e, dev := testEngine(t)
	const n, size = 400, 1 << 16 // float32: 256 KiB each, 100 MiB in all
	old := engine.SetDevBudget(4 << 20)
	defer engine.SetDevBudget(old)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	a := onDevice(t, e, make([]float32, size), size)
	before := dev.Stats()
	for i := range n {
		func() {
			reg := tensor.New(tensor.WithShape(size), tensor.WithBacking(make([]float32, size)))
			tensor.WithEngine(e)(reg)
			_, err := tensor.Add(a, a, tensor.WithReuse(reg))
			must(t, err)
			if i%97 == 0 { // a result is right, read where it lives
				for _, v := range hostVals[float32](t, reg) {
					if v != 0 {
						t.Fatalf("step %d: a+a of zeros read %v", i, v)
					}
				}
			}
		}()
		if live := dev.Stats().AllocsLive - before.AllocsLive; live > 64 {
			t.Fatalf("step %d: %d device allocations live (%d relieved); want at most 64 of 256 KiB under a 4 MiB budget", i, live, engine.Relieved(e))
		}
	}
	m := dev.Stats().Sub(before)
	t.Logf("%d adoptions: %d collection pairs, cache hits %d, misses %d", n, engine.Relieved(e), m.CacheHits, m.CacheMisses)
	if engine.Relieved(e) == 0 {
		t.Fatal("the engine never ran a collection")
	}
	if m.CacheHits < n/2 {
		t.Fatalf("%d of %d device allocations came from the cache; want most", m.CacheHits, n)
	}
}
