package ops

import "testing"

// sampled returns t.Run for a device-kernel test's per-type subtests:
// under the race detector it runs only raceTypes (a sample of each kernel
// family), elsewhere every type.
func sampled(t *testing.T) func(name string, f func(*testing.T)) bool {
	return func(name string, f func(*testing.T)) bool {
		if raceTypes != nil && !raceTypes[name] {
			return true
		}
		return t.Run(name, f)
	}
}

// raceCases is n, or under the race detector short (see raceTypes).
func raceCases(n, short int) int {
	if raceEnabled {
		return min(n, short)
	}
	return n
}
