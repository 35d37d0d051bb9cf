package cuda

import (
	"sync"

	"github.com/resident-go/resident/internal/cu"
)

// primaries counts the Devices holding each GPU's primary context and
// numbers its lives: the last release ends a life, and the driver frees
// the context's events with it. A handle from an ended life may since
// name another Device's event, so it is never passed to the driver again.
var primaries struct {
	mu   sync.Mutex
	held map[cu.Device]int
	life map[cu.Device]uint64
}

// retainPrimary retains dev's primary context and returns its life.
func retainPrimary(dev cu.Device) (cu.Context, uint64, error) {
	p := &primaries
	p.mu.Lock()
	defer p.mu.Unlock()
	ctx, err := cu.PrimaryCtxRetain(dev)
	if err != nil {
		return 0, 0, err
	}
	if p.held == nil {
		p.held, p.life = map[cu.Device]int{}, map[cu.Device]uint64{}
	}
	p.held[dev]++
	return ctx, p.life[dev], nil
}

// releasePrimary drops one retain; the last one ends the life.
func releasePrimary(dev cu.Device) error {
	p := &primaries
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held[dev] > 0 {
		if p.held[dev]--; p.held[dev] == 0 {
			p.life[dev]++
		}
	}
	return cu.PrimaryCtxRelease(dev)
}

// inLife runs f, which may use handles made in life, only while dev's
// primary context is still in that life; no release ends it meanwhile.
func inLife(dev cu.Device, life uint64, f func()) bool {
	p := &primaries
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held[dev] == 0 || p.life[dev] != life {
		return false
	}
	f()
	return true
}
