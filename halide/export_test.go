package halide

// Test hooks.
var (
	LoopInC                 = (*Pipeline).loopInC
	ContextAcquires         = func() int { return contextAcquires(nil) }
	DeviceAcquires          = contextAcquires
	ReusesDeviceAllocations = reusesAllocations
)

var CallAcrossClose = (*Pipeline).callAcrossClose

var CallMismatched = (*Pipeline).callMismatched
