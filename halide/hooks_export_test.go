package halide

// SetCallbacks turns a pipeline's callback entry point on or off, for tests
// of the fast entry point (WithCallbacks has no way back on purpose).
func SetCallbacks(p *Pipeline, on bool) { p.callsBack.Store(on) }
