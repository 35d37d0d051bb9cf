package halide

// Test hooks.
var (
	LoopInC                 = (*Pipeline).loopInC
	ContextAcquires         = contextAcquires
	ReusesDeviceAllocations = reusesAllocations
)
