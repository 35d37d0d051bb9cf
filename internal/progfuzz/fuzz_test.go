package progfuzz

import (
	"testing"
)

// FuzzProgram runs a random program over the whole library and checks
// every live Array against a host-only model after each step.
func FuzzProgram(f *testing.F) {
	openDevices()
	if clDev == nil {
		f.Logf("no OpenCL device (%v): OpenCL pipelines, ops.On and the engine are left out", devErr)
	}
	f.Fuzz(func(t *testing.T, data []byte) { run(t, data) })
}
