//go:build race

package ops

const raceEnabled = true

// raceTypes are the element types the device-kernel tests run under the
// race detector: one of each kernel family (signed, unsigned, float,
// half). The detector slows their Go side (inputs, host references)
// several times while the kernels they check are the same; make test's
// second ops pass, without -race, runs every type (sampled).
var raceTypes = map[string]bool{"int8": true, "uint32": true, "float32": true, "float16": true}
