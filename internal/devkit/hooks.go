package devkit

import (
	"slices"
	"sync"
)

// CloseHooks implements device.CloseNotifier for a Device; hold one. The
// zero value is ready to use.
type CloseHooks struct {
	mu     sync.Mutex
	next   uint64
	fns    map[uint64]func()
	closed bool
}

// OnClose implements device.CloseNotifier. After RunCloseHooks, fn runs at once.
func (h *CloseHooks) OnClose(fn func()) (cancel func()) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		fn()
		return func() {}
	}
	defer h.mu.Unlock()
	if h.fns == nil {
		h.fns = make(map[uint64]func())
	}
	id := h.next
	h.next++
	h.fns[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.fns, id)
		h.mu.Unlock()
	}
}

// RunCloseHooks runs every registered hook once, last registered first,
// and makes later OnClose calls run at once; Close calls it first. Hooks
// run without the lock, so they may cancel themselves.
func (h *CloseHooks) RunCloseHooks() {
	h.mu.Lock()
	fns := h.fns
	h.fns, h.closed = nil, true
	h.mu.Unlock()
	ids := make([]uint64, 0, len(fns))
	for id := range fns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i := len(ids) - 1; i >= 0; i-- {
		fns[ids[i]]()
	}
}
