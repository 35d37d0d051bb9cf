//go:build race

package ops

// raceEnabled: the detector slows the tests' Go side (inputs, host
// references) several times while the kernels they check are the same,
// so the device-kernel tests draw fewer types and cases (sampled_test.go).
const raceEnabled = true
