package engine

// SetDevBudget sets the device bytes allocated between collections
// before the engine asks for them, and returns the old value.
func SetDevBudget(n int64) int64 {
	old := devBudget
	devBudget = n
	return old
}

// Relieved reports the collection pairs e asked for.
func Relieved(e *Engine) int64 { return e.h.press.forced.Load() }
