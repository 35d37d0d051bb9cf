package callbacks_test

import (
	"errors"
	"fmt"
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
		if err := ops.AddScalar(out, in, k); err != nil {
			return err
		}
		return &halide.Error{Code: -27, Msg: "go_dev_add refuses on purpose"}
	}
	return ops.AddScalar(out, in, k)
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
	dev, err := halide.OpenCLDevice()
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
