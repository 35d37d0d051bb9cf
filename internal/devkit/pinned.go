package devkit

import (
	"sort"
	"sync"
)

// Pinned is a block of pinned (page-locked) host memory: Range is its
// first byte's address and its length.
type Pinned interface {
	comparable
	Range() (start uintptr, n int)
}

// PinnedSet finds the pinned block a host slice lies in, so a transfer
// from it can skip staging. Safe for concurrent use; the zero value is
// ready.
type PinnedSet[T Pinned] struct {
	mu     sync.RWMutex
	blocks []T // sorted by start
	closed bool
}

func startOf[T Pinned](b T) uintptr { s, _ := b.Range(); return s }

// Add records b; false when the set is closed (the caller frees b).
func (p *PinnedSet[T]) Add(b T) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	s := startOf(b)
	i := sort.Search(len(p.blocks), func(i int) bool { return startOf(p.blocks[i]) >= s })
	var zero T
	p.blocks = append(p.blocks, zero)
	copy(p.blocks[i+1:], p.blocks[i:])
	p.blocks[i] = b
	return true
}

// Remove drops b; last is true when b was the last block of a closed set
// (the caller then releases what the blocks kept alive).
func (p *PinnedSet[T]) Remove(b T) (removed, last bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.blocks {
		if x == b {
			p.blocks = append(p.blocks[:i], p.blocks[i+1:]...)
			return true, p.closed && len(p.blocks) == 0
		}
	}
	return false, false
}

// Contains reports whether [start, start+n) lies inside one block.
func (p *PinnedSet[T]) Contains(start uintptr, n int) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	i := sort.Search(len(p.blocks), func(i int) bool { return startOf(p.blocks[i]) > start }) - 1
	if i < 0 {
		return false
	}
	s, m := p.blocks[i].Range()
	return start+uintptr(n) <= s+uintptr(m)
}

// Close refuses new blocks and reports whether some are still in use.
func (p *PinnedSet[T]) Close() (inUse bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	return len(p.blocks) > 0
}

// Closed reports whether Close has run.
func (p *PinnedSet[T]) Closed() bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.closed
}
