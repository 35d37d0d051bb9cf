//go:build race

package main

// raceEnabled: the race detector slows the stress tests tenfold; they run
// fewer steps under it.
const raceEnabled = true
