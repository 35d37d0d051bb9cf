package halide_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// cudaMockTests are the tests the mock runs; each must pass, none skip.
var cudaMockTests = []string{"TestCUDAOnMock", "TestCUDAFailureLeaksNothing", "TestCUDAWrongDevice"}

// TestCUDAMock runs the CUDA tests that launch no kernel against the mock
// libcuda in a child process, where there is no GPU: the whole path from
// Arrays to the driver through Halide's CUDA runtime, on the Device's
// context (the mock refuses any other) and stream (it refuses the NULL
// stream a launch gets without our halide_cuda_get_stream).
func TestCUDAMock(t *testing.T) {
	cudatest.InMock(t, false, cudaMockTests, nil)
}

// TestCUDAOnMock (mock only): a call reaches cuLaunchKernel with the
// Device's context current and its stream (the mock's answer to that
// launch is CUDA_ERROR_NOT_SUPPORTED; to the NULL stream it would be
// CUDA_ERROR_INVALID_HANDLE), its failure leaves the Arrays as they were
// and frees the call's temporaries, and the Device's Close unloads the
// modules the runtime loaded on its context (each holds mock memory).
func TestCUDAOnMock(t *testing.T) {
	if !cudatest.InChild() {
		t.Skip("runs on the mock only (TestCUDAMock)")
	}
	func() {
		d, err := cuda.Open(cuda.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		const w, h = 64, 16
		in, out := array.New[uint8](w, h), array.New[uint8](w, h)
		defer in.Close()
		defer out.Close()
		iv, _ := in.Host()
		copy(iv.Data(), pattern(w, h))
		before, acq := d.Stats(), halide.CUDAAcquires(d)
		rr, rw := halide.CUDARuntimeTransfers()
		err = brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, in, uint8(1), out)
		if err == nil || !strings.Contains(err.Error(), "cuLaunchKernel") || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_SUPPORTED") {
			t.Fatalf("call on the mock: %v, want the launch's CUDA_ERROR_NOT_SUPPORTED (the Device's context and stream)", err)
		}
		if halide.CUDAAcquires(d) <= acq {
			t.Error("the runtime never acquired the Device's context")
		}
		if r, w := halide.CUDARuntimeTransfers(); r != rr || w != rw {
			t.Errorf("the runtime copied by itself: %d reads, %d writes", r-rr, w-rw)
		}
		if s := d.Stats().Sub(before); s.H2DCalls != 1 || s.D2HCalls != 0 {
			t.Errorf("the failed call: %v, want only the input's upload", s)
		}
		if out.DeviceDirty() || in.DeviceDirty() {
			t.Errorf("a failed call marked Arrays written: out %v, in %v", out.DeviceDirty(), in.DeviceDirty())
		}
		// Host-only values: the temporaries go, the Go memory stays.
		live := d.Stats().AllocsLive
		data := make([]uint8, w*h)
		for i := range data {
			data[i] = 7
		}
		err = brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, array.FromSlice(pattern(w, h), w, h), uint8(1), array.FromSlice(data, w, h))
		if err == nil {
			t.Fatal("host-only call on the mock succeeded")
		}
		if n := d.Stats().AllocsLive; n != live {
			t.Errorf("%d allocations live after a failed host-only call, want %d", n, live)
		}
		for i, x := range data {
			if x != 7 {
				t.Fatalf("a failed call wrote the host-only output: element %d is %d", i, x)
			}
		}
		// A second Device on the GPU shares its primary context, and so the
		// runtime's modules: closing it leaves them for the first (each
		// module holds 64 bytes of mock memory).
		free1, _, _ := d.MemInfo()
		func() {
			d2, err := cuda.Open(cuda.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d2.Close()
			x, y := array.New[uint8](w, h), array.New[uint8](w, h)
			defer x.Close()
			defer y.Close()
			if err := brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d2}, x, uint8(1), y); err == nil || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_SUPPORTED") {
				t.Errorf("call on a second Device: %v, want the launch's error", err)
			}
		}()
		if free2, _, _ := d.MemInfo(); free2 != free1 {
			t.Errorf("closing a second Device of the context changed the first's memory by %d bytes: the runtime's modules went with it", free2-free1)
		}
		// A closed Device refuses the call before anything moves.
		func() {
			d3, err := cuda.Open(cuda.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x, y := array.New[uint8](w, h), array.New[uint8](w, h)
			defer x.Close()
			defer y.Close()
			brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d3}, x, uint8(1), y) // uploads x, then the launch fails
			if err := d3.Close(); err != nil {
				t.Fatal(err)
			}
			err = brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d3}, x, uint8(1), y)
			if !errors.Is(err, halide.ErrDeviceClosed) || !errors.Is(err, cuda.ErrClosed) {
				t.Errorf("call on a closed Device: %v, want ErrDeviceClosed wrapping cuda.ErrClosed", err)
			}
			if x.Device() != nil || y.Device() != nil {
				t.Errorf("after Close and a refused call the Arrays are on %v, %v", x.Device(), y.Device())
			}
		}()
		// Crops at odd offsets bind as pointers into the root.
		err = brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, in.Crop(0, 3, w-5), uint8(1), out.Crop(0, 3, w-5))
		if err == nil || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_SUPPORTED") {
			t.Errorf("call on crops: %v, want the launch's error", err)
		}
	}()
	// Closed: the Arrays, then the Device (its close hook releases the
	// runtime's modules on the context). Nothing is left in mock memory.
	cudatest.NoLeak(t, "device memory, a module, a stream or an event")
	d, err := cuda.Open(cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var he *halide.Error
	if err := brighter.BrighterCudaPipeline.CallWith(halide.Options{Device: d}, array.New[uint8](4, 4), uint8(1), array.New[uint8](4, 4)); !errors.As(err, &he) {
		t.Errorf("a call on a fresh Device after another closed: %v, want the launch's *halide.Error", err)
	}
}
