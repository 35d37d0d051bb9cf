package ops

import (
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// kernelFamilies groups the element types by the device kernels they
// build on: signed, unsigned, float and half types differ in their OpenCL
// code, the types inside a family only in width.
var kernelFamilies = [][]string{
	{"int8", "int16", "int32", "int64"},
	{"uint8", "uint16", "uint32", "uint64"},
	{"float32", "float64"},
	{"float16", "bfloat16"},
}

// sampled returns t.Run for a device-kernel test's per-type subtests:
// under the race detector it runs one type of each of two kernel
// families, drawn for this run and test (package draw: another day draws
// others; -draw.all runs every type), elsewhere every type. Each type is a
// set of kernel builds, about 0.3 s each on PoCL with a cold cache, which
// is most of a fresh make test's time in ops.
func sampled(t *testing.T) func(name string, f func(*testing.T)) bool {
	t.Helper()
	keep := raceTypes(t)
	return func(name string, f func(*testing.T)) bool {
		if keep != nil && !keep[name] {
			return true
		}
		return t.Run(name, f)
	}
}

// raceTypes is the run's draw under the race detector, nil (every type)
// elsewhere.
func raceTypes(t *testing.T) map[string]bool {
	t.Helper()
	if !raceEnabled || draw.All() {
		return nil
	}
	r := draw.Rand(t)
	keep := map[string]bool{}
	for _, f := range r.Perm(len(kernelFamilies))[:2] {
		fam := kernelFamilies[f]
		keep[fam[r.IntN(len(fam))]] = true
	}
	return keep
}

// raceCases is n, or under the race detector short.
func raceCases(n, short int) int {
	if raceEnabled && !draw.All() {
		return min(n, short)
	}
	return n
}
