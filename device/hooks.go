package device

import "sync"

// CloseNotifier is implemented by devices that tell the holders of their
// allocations when they close, before any memory is freed, so holders can
// copy their data out and let go (package array does).
type CloseNotifier interface {
	// OnClose registers fn to run at the start of Close; cancel
	// unregisters it. fn must not call Close.
	OnClose(fn func()) (cancel func())
}

// CloseHooks is a CloseNotifier for Device implementations to embed. The
// zero value is ready to use.
type CloseHooks struct {
	mu   sync.Mutex
	next uint64
	fns  map[uint64]func()
}

// OnClose implements CloseNotifier.
func (h *CloseHooks) OnClose(fn func()) (cancel func()) {
	h.mu.Lock()
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

// RunCloseHooks runs and forgets every registered hook; Close calls it
// first. Hooks run without the lock, so they may cancel themselves.
func (h *CloseHooks) RunCloseHooks() {
	h.mu.Lock()
	fns := h.fns
	h.fns = nil
	h.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
