//go:build !race

package halide_test

const raceEnabled = false
