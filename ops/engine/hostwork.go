package engine

import "sync/atomic"

// HostWork counts the engine's own passes over host memory and its host
// allocations since New: the host-side work of its operations besides
// the device calls. Read it before and after a run (Sub) to see what a
// training step costs on the host.
type HostWork struct {
	// Scanned: bytes read to find writes made behind the engine's back
	// (through Data) in memory whose first use reads it.
	Scanned int64
	// Cleared: bytes zeroed on the host (Alloc's Go memory; Memclr of
	// memory not yet used by an op).
	Cleared int64
	// Pinned: host allocations made by Alloc (Go memory, pinned while the
	// engine uses it). Mapped: lazily
	// backed host memory mapped for results of the engine's ops; Pooled:
	// results given memory the engine reclaimed instead.
	Pinned, Mapped, Pooled int64
	// Homed: copies home (each one of the device's D2H transfers) of Go
	// memory whose host copy could not be let go, made once the op that
	// wrote it is done (see "Writing" in the package documentation).
	Homed int64
}

// HostWork returns the counts so far.
func (e *Engine) HostWork() HostWork {
	w := &e.h.work
	return HostWork{Scanned: w.scanned.Load(), Cleared: w.cleared.Load(), Pinned: w.pinned.Load(), Mapped: w.mapped.Load(), Pooled: w.pooled.Load(), Homed: w.homed.Load()}
}

// Sub returns the counts accumulated between v and w.
func (w HostWork) Sub(v HostWork) HostWork {
	return HostWork{Scanned: w.Scanned - v.Scanned, Cleared: w.Cleared - v.Cleared, Pinned: w.Pinned - v.Pinned, Mapped: w.Mapped - v.Mapped, Pooled: w.Pooled - v.Pooled, Homed: w.Homed - v.Homed}
}

// hostWork is HostWork's counters.
type hostWork struct {
	scanned, cleared, pinned, mapped, pooled, homed atomic.Int64
}

// scanned counts p as scanned and returns it.
func (h *holdings) scanned(p []byte) []byte {
	h.work.scanned.Add(int64(len(p)))
	return p
}

// clear zeroes p, counted.
func (h *holdings) clear(p []byte) {
	h.work.cleared.Add(int64(len(p)))
	clear(p)
}
