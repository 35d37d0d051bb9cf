//go:build race

package halide_test

// raceEnabled: the race detector inflates RSS, so RSS checks only log.
const raceEnabled = true
