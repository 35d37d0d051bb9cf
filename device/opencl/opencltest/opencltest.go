package opencltest

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device/opencl"
)

// Halves opens the two halves of the OpenCL CPU device (PoCL's in CI) in
// one context (opencl.Split), closed when the test ends. It skips where
// the device cannot be split (ErrCannotSplit) and fails on other errors,
// so a broken group still fails the test.
func Halves(t testing.TB) (*opencl.Device, *opencl.Device) {
	t.Helper()
	devs, err := opencl.Split(opencl.Options{Type: opencl.DeviceCPU}, 2)
	if errors.Is(err, opencl.ErrCannotSplit) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, d := range devs {
			d.Close()
		}
	})
	return devs[0], devs[1]
}

// CPUAndGPU opens PoCL's CPU device and a GPU (the platform of
// $HL_OCL_PLATFORM_NAME, else any), each in its own context, closed when
// the test ends. It skips without either: CI has no GPU; the H200 machine
// has both.
func CPUAndGPU(t testing.TB) (cpu, gpu *opencl.Device) {
	t.Helper()
	cpu, err := opencl.Open(opencl.Options{Platform: "Portable", Type: opencl.DeviceCPU})
	if err != nil {
		t.Skipf("no PoCL CPU device: %v", err)
	}
	t.Cleanup(func() { cpu.Close() })
	gpu, err = opencl.Open(opencl.Options{Type: opencl.DeviceGPU})
	if err != nil {
		t.Skipf("no OpenCL GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	return cpu, gpu
}
