//go:build race

package engine_test

// raceEnabled: the race detector slows the stress tests tenfold.
const raceEnabled = true
