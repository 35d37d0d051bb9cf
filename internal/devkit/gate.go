package devkit

import (
	"sync"
	"sync/atomic"

	"github.com/resident-go/resident/device"
)

// Gate is a device's one rule for work racing Close: every call that
// reaches the driver (allocation, transfer, build, launch, sync, a
// stream's command, a Halide call on the device's context) enters the
// gate first and leaves it when the driver no longer holds anything of
// the call; Close shuts the gate, which refuses later entries and waits
// for those inside, and only then releases programs, memory, queues and
// the context. A call is then either wholly before the release or
// refused with ErrClosed before it touches a handle. Entries nest (a
// call inside a call enters again) and never block; only Shut waits.
// The zero value is open.
type Gate struct {
	n    atomic.Int64 // shutBit | entries inside·2
	mu   sync.Mutex
	done chan struct{} // closed once shut and empty
}

const shutBit = 1

// Enter lets a call in; false once the gate is shut (the caller returns
// an error wrapping device.ErrClosed and touches nothing). Every true
// Enter is paired with one Leave.
func (g *Gate) Enter() bool {
	if g.n.Add(2)&shutBit != 0 {
		g.Leave()
		return false
	}
	return true
}

// Leave ends an entry.
func (g *Gate) Leave() {
	if g.n.Add(-2) == shutBit {
		g.signal()
	}
}

// Shut refuses new entries and waits for those inside to leave. It is
// idempotent; concurrent Shuts all wait. It must not be called from
// inside the gate (it would wait for itself).
func (g *Gate) Shut() {
	if g.n.Or(shutBit) == 0 {
		g.signal()
	}
	<-g.ch()
}

// IsShut reports whether Shut has begun.
func (g *Gate) IsShut() bool { return g.n.Load()&shutBit != 0 }

func (g *Gate) ch() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done == nil {
		g.done = make(chan struct{})
	}
	return g.done
}

// signal closes done once; an entry refused after the shut drains to
// shutBit again, so it may be called more than once.
func (g *Gate) signal() {
	c := g.ch()
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
}

// gates are the device packages' answers to GateOf, registered at init.
var gates []func(d device.Device) (*Gate, bool)

// RegisterGate makes GateOf answer for devices of type D (a device
// package's *Device) with gate(d). Called from init only.
func RegisterGate[D device.Device](gate func(d D) *Gate) {
	gates = append(gates, func(d device.Device) (*Gate, bool) {
		if x, ok := d.(D); ok {
			return gate(x), true
		}
		return nil, false
	})
}

// GateOf returns d's gate, for packages above the device that call its
// driver through native handles (package halide): nil for a device
// without one.
func GateOf(d device.Device) *Gate {
	for _, f := range gates {
		if g, ok := f(d); ok {
			return g
		}
	}
	return nil
}
