package device

// CloseNotifier is implemented by devices that tell the holders of their
// allocations when they close, before any memory is freed, so holders can
// copy their data out and let go (package array does).
type CloseNotifier interface {
	// OnClose registers fn to run at the start of Close; cancel
	// unregisters it. fn must not call Close.
	OnClose(fn func()) (cancel func())
}
