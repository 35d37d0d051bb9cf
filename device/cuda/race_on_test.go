//go:build race

package cuda_test

// raceEnabled: the race detector is on; the largest cases shrink.
const raceEnabled = true
