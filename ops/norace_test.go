//go:build !race

package ops

const raceEnabled = false

var raceTypes map[string]bool // every type runs
