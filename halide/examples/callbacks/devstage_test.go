package callbacks_test

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/callbacks"
	"github.com/resident-go/resident/ops"
)

// devMode is what go_dev_add does: add k on the device (0), on the host
// (1), or fail after adding on the device (2).
var devMode atomic.Int32

// devSlice is what ExternSlice said of the stage's output (device memory
// only, or host memory Halide also gave it).
var devSlice atomic.Pointer[string]

func goDevAdd(x *halide.ExternCall) error {
	in, err := halide.ExternDeviceArray[int32](x, 1)
	if err != nil {
		return err
	}
	out, err := halide.ExternDeviceArray[int32](x, 3)
	if err != nil {
		return err
	}
	if _, err := halide.ExternDeviceArray[float32](x, 1); !errors.Is(err, halide.ErrExternBuffer) {
		return fmt.Errorf("an int32 buffer as float32: %v", err)
	}
	msg := "ok"
	if _, err := halide.ExternSlice[int32](x.Output()); err != nil {
		msg = err.Error()
	}
	devSlice.Store(&msg)
	k := int32(x.Int(2))
	switch devMode.Load() {
	case 1:
		iv, err := in.HostReadOnly()
		if err != nil {
			return err
		}
		ov, err := out.Host()
		if err != nil {
			return err
		}
		for i, v := range iv.Data() {
			ov.Data()[i] = v + k
		}
		return nil
	case 2:
		if err := ops.BinaryScalar(out, in, k, ops.OpAdd); err != nil {
			return err
		}
		return &halide.Error{Code: -27, Msg: "go_dev_add refuses on purpose"}
	}
	return ops.BinaryScalar(out, in, k, ops.OpAdd)
}

func init() { halide.RegisterExtern("go_dev_add", goDevAdd) }

// A Go extern stage declared DeviceAPI::OpenCL, in the style of Halide's
// define_extern_opencl aottest: it gets its buffers as Arrays on the
// call's device (ExternDeviceArray) and adds k with package ops there, on
// the pipeline's queue: a device-resident input and output move nothing
// (no H2D, no D2H) across the pipeline's kernels and the op. Written on
// the host instead, the stage's transfers are counted.
// A failing stage fails the call, and nothing is left allocated.
func TestExternStageOnDevice(t *testing.T) {
	dev, err := halide.DefaultDevice("OpenCL")
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	const w, h, k = 21, 11, int32(-7)
	for _, c := range []struct {
		name               string
		mode               int32
		h2d, d2h, launches int64
	}{
		{"device", 0, 0, 0, 2}, // the call (one Pace) and the op
		// The input read on the host, the output's host view made
		// current (Host), then uploaded after the stage.
		{"host", 1, 1, 2, 1},
		{"fails", 2, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			devMode.Store(c.mode)
			base := dev.Stats().AllocsLive
			in := array.NewWithMins[int32]([]int{-3, 5}, []int{w, h})
			iv, _ := in.Host()
			for y := 5; y < 5+h; y++ {
				for x := -3; x < -3+w; x++ {
					iv.Set(int32(x*1000+y*7-x*y), x, y)
				}
			}
			if err := in.CopyToDevice(dev); err != nil {
				t.Fatal(err)
			}
			out := array.NewWithMins[int32](array.Box(in.Dims()))
			s0 := dev.Stats()
			r0, w0 := halide.RuntimeTransfers()
			err := callbacks.Devstage(in, k, out)
			d := dev.Stats().Sub(s0)
			r1, w1 := halide.RuntimeTransfers()
			if r1 != r0 || w1 != w0 {
				t.Errorf("the runtime copied on its own: %d reads, %d writes", r1-r0, w1-w0)
			}
			if c.mode == 2 {
				if err == nil || !strings.Contains(err.Error(), "refuses on purpose") {
					t.Fatalf("a failing stage: %v", err)
				}
				if out.DeviceDirty() {
					t.Error("the failed call left its output device-dirty")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if d.H2DCalls != c.h2d || d.D2HCalls != c.d2h || d.Launches != c.launches {
					t.Errorf("during the call: %d H2D, %d D2H, %d launches; want %d, %d, %d", d.H2DCalls, d.D2HCalls, d.Launches, c.h2d, c.d2h, c.launches)
				}
				if out.Device() != device.Device(dev) || !out.DeviceDirty() {
					t.Errorf("output on %v (device-dirty %v), want resident on %s", out.Device(), out.DeviceDirty(), dev.Name())
				}
				ov, err := out.HostReadOnly()
				if err != nil {
					t.Fatal(err)
				}
				iv, _ := in.HostReadOnly()
				for y := 5; y < 5+h; y++ {
					for x := -3; x < -3+w; x++ {
						if got, want := ov.At(x, y), 2*iv.At(x, y)+k+1; got != want {
							t.Fatalf("output(%d, %d) = %d, want %d", x, y, got, want)
						}
					}
				}
			}
			if s := devSlice.Load(); s == nil || strings.Contains(*s, "bounds query") {
				t.Errorf("ExternSlice of the stage's output said %v", s)
			}
			in.Close()
			out.Close()
			if live := dev.Stats().AllocsLive; live != base {
				t.Errorf("after Close: %d allocations live, %d before", live, base)
			}
		})
	}
}

// The device stage's input computed on the host (DevstageHostin: twice
// has no GPU schedule, like make_a_root in Halide's define_extern_opencl
// test, whose C stage calls halide_copy_to_device itself): Halide hands
// go_dev_add a buffer with host memory and no device allocation, and
// ExternDeviceArray uploads it to the call's device for the stage. The
// upload is the call's one transfer, counted in the device's Stats (not
// the runtime's), and its allocation is gone when the call returns; under
// the transfer guard (process-wide, or the call's Options.Guard) the call
// fails with ErrTransferGuard before anything moves or leaks.
func TestExternStageHostInput(t *testing.T) {
	dev, err := halide.DefaultDevice("OpenCL")
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	devMode.Store(0)
	const w, h, k = 19, 13, int32(5)
	for _, c := range []struct {
		name          string
		global, guard bool
	}{
		{"upload", false, false},
		{"guard", true, false},
		{"call guard", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := dev.Stats().AllocsLive
			in := array.NewWithMins[int32]([]int{2, -4}, []int{w, h})
			iv, _ := in.Host()
			for y := -4; y < -4+h; y++ {
				for x := 2; x < 2+w; x++ {
					iv.Set(int32(x*31-y*y+x*y), x, y)
				}
			}
			// Current on both sides: the call itself moves nothing (twice
			// reads the host copy), so any transfer is the stage's.
			if err := in.CopyToDevice(dev); err != nil {
				t.Fatal(err)
			}
			out := array.NewWithMins[int32](array.Box(in.Dims()))
			if c.global {
				defer guard.Set(guard.Set(true))
			}
			s0 := dev.Stats()
			r0, w0 := halide.RuntimeTransfers()
			err := callbacks.DevstageHostinPipeline.CallWith(halide.Options{Device: dev, Guard: c.guard}, in, k, out)
			d := dev.Stats().Sub(s0)
			live := dev.Stats().AllocsLive
			if c.global {
				guard.Set(false)
			}
			if r1, w1 := halide.RuntimeTransfers(); r1 != r0 || w1 != w0 {
				t.Errorf("the runtime copied on its own: %d reads, %d writes", r1-r0, w1-w0)
			}
			if c.global || c.guard {
				if !errors.Is(err, device.ErrTransferGuard) || !errors.Is(err, halide.ErrTransferGuard) {
					t.Fatalf("under the guard: %v, want ErrTransferGuard", err)
				}
				if d.H2DCalls != 0 || d.D2HCalls != 0 {
					t.Errorf("under the guard: %d H2D, %d D2H, want none", d.H2DCalls, d.D2HCalls)
				}
				if out.DeviceDirty() {
					t.Error("the refused call left its output device-dirty")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				// One upload, of the stage's input, into a temporary
				// allocation freed when the stage returns. Allocations:
				// the output's, the temporary, and the stage's Array
				// over Halide's cl_mem for its output (Adopt counts).
				if d.H2DCalls != 1 || d.H2DBytes != int64(w*h*4) || d.D2HCalls != 0 || d.AllocsTotal != 3 {
					t.Errorf("during the call: %d H2D (%d bytes), %d D2H, %d allocations; want 1 (%d bytes), 0, 3", d.H2DCalls, d.H2DBytes, d.D2HCalls, d.AllocsTotal, w*h*4)
				}
				if live != base+2 {
					t.Errorf("after the call: %d allocations live, want %d (the input's and the output's)", live, base+2)
				}
				if out.Device() != device.Device(dev) || !out.DeviceDirty() {
					t.Errorf("output on %v (device-dirty %v), want resident on %s", out.Device(), out.DeviceDirty(), dev.Name())
				}
				ov, err := out.HostReadOnly()
				if err != nil {
					t.Fatal(err)
				}
				iv, _ := in.HostReadOnly()
				for y := -4; y < -4+h; y++ {
					for x := 2; x < 2+w; x++ {
						if got, want := ov.At(x, y), 2*iv.At(x, y)+k+1; got != want {
							t.Fatalf("output(%d, %d) = %d, want %d", x, y, got, want)
						}
					}
				}
			}
			in.Close()
			out.Close()
			if live := dev.Stats().AllocsLive; live != base {
				t.Errorf("after Close: %d allocations live, %d before", live, base)
			}
		})
	}
}
