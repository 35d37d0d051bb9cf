package halide

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// devArray is one Array ExternDeviceArray made: settled after the stage.
type devArray struct {
	b     *rt.Buffer
	out   bool
	a     interface{ Close() error }
	state func() (hostDirty, deviceDirty bool)
	push  func() error // the host copy to the device (CopyToDevice)
}

// ExternDeviceArray views buffer argument i of an extern stage declared
// with DeviceAPI::OpenCL as an Array on the pipeline call's OpenCL
// device: its device copy is the buffer's own cl_mem (no copy), current,
// so ops on it run on the device, on the queue the pipeline runs on, in
// order with the pipeline's kernels. Its host copy is memory of its own,
// filled only if the stage reads it on the host (a counted download).
// After the stage the bridge tells Halide where the output's newest data
// is: on the device, or, if the stage wrote it on the host, uploaded
// first (counted). The Array is valid only during the stage's call: the
// bridge closes it after (its device allocation goes back to Halide).
//
// An input Halide computed on the host (a producer without a GPU
// schedule) has host memory and no device allocation, and one whose host
// copy is newer is marked host-dirty: the bridge uploads it, the step
// Halide's own C stages take with halide_copy_to_device. The upload, and
// for the first kind a temporary allocation freed after the stage, are
// counted in the device's Stats; under the transfer guard (RESIDENT_TRANSFER_GUARD,
// the device's own, or the call's Options.Guard) it is refused instead,
// with an *Error of Code ErrTransferGuard that wraps
// device.ErrTransferGuard: return it, and the call fails with it.
//
// The buffer must be dense (Halide allocates a stage's buffers so) and at
// offset 0 of its cl_mem; a host stage's buffer, or a host pipeline's, is
// an error wrapping ErrExternBuffer that names ExternArray.
func ExternDeviceArray[T array.Elem](x *ExternCall, i int) (*array.Array[T], error) {
	b := x.Buffer(i)
	if t := array.TypeOf[T](); t != b.Type() {
		return nil, fmt.Errorf("%w: a %s buffer viewed as %s", ErrExternBuffer, b.Type(), t)
	}
	out := b.b == x.Output().b
	onHost := b.b.Device == 0 && b.b.Host != nil // computed on the host, no allocation
	switch {
	case b.BoundsQuery():
		return nil, fmt.Errorf("%w: a bounds query has no memory (check ExternCall.BoundsQuery)", ErrExternBuffer)
	case x.dev == nil:
		return nil, fmt.Errorf("%w: extern stage %s runs in a call without an OpenCL device (a host pipeline): use ExternArray", ErrExternBuffer, x.name)
	case onHost && !out:
		// Uploaded below.
	case b.b.Device == 0 || b.b.DeviceInterface != rt.OpenCLDeviceInterface():
		return nil, fmt.Errorf("%w: argument %d of %s has no OpenCL allocation: declare the stage with DeviceAPI::OpenCL in define_extern, or use ExternArray for a host stage", ErrExternBuffer, i, x.name)
	}
	uc := x.uc()
	if !onHost {
		if off := rt.OpenCLCropOffset(uc, b.b); off != 0 {
			return nil, fmt.Errorf("%w: argument %d of %s is a device crop (offset %d bytes): not supported", ErrExternBuffer, i, x.name, off)
		}
	}
	region := b.Dims()
	dense := 1
	for d, dim := range region {
		if dim.Extent > 1 && dim.Stride != dense {
			return nil, fmt.Errorf("%w: argument %d of %s is not dense (dimension %d has stride %d, want %d): not supported", ErrExternBuffer, i, x.name, d, dim.Stride, dense)
		}
		dense *= max(dim.Extent, 1)
	}
	// Halide makes a device stage's inputs current on the device before
	// it runs only when a GPU stage produced them; one it computed on the
	// host, or whose host copy is newer, the stage uploads itself.
	upload := onHost || b.b.Flags&rt.HostDirty != 0 && b.b.Host != nil && !out
	if upload {
		why := "whose host copy Halide marked newer"
		if onHost {
			why = "which Halide computed on the host (a GPU schedule for its producer keeps it on the device)"
		}
		if err := x.checkGuard(fmt.Sprintf("upload of argument %d of extern stage %s, %s", i, x.name, why)); err != nil {
			return nil, err
		}
	}
	adopter, ok := x.dev.(interface {
		Adopt(mem uintptr, bytes int, retain bool) (device.Allocation, error)
	})
	if !ok && !onHost {
		return nil, fmt.Errorf("%w: the call's device %s cannot adopt a cl_mem", ErrExternBuffer, x.dev.Name())
	}
	a := array.NewWithMins[T](array.Box(region))
	if upload {
		// The host copy is Halide's: the Array's host memory gets it,
		// and CopyToDevice uploads it, counted.
		hv, err := a.Host()
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("%w: argument %d of %s: %w", ErrExternBuffer, i, x.name, err)
		}
		copy(hv.Data(), unsafe.Slice((*T)(b.Host()), dense))
	}
	var err error
	if !onHost {
		// A reference of the Array's own to Halide's cl_mem, dropped at
		// Close. Adopting leaves the Array's host copy the newer one.
		size := int(unsafe.Sizeof(*new(T)))
		var alloc device.Allocation
		alloc, err = adopter.Adopt(rt.OpenCLMem(uc, b.b), dense*size, true)
		if err == nil {
			err = a.DeviceAdopt(x.dev, alloc)
		}
	}
	if err == nil && upload {
		// Into Halide's cl_mem, or a temporary of the Array's own.
		if err = a.CopyToDevice(x.dev); err == nil && !onHost {
			b.b.Flags &^= rt.HostDirty // the device copy holds it now
		}
	}
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("%w: argument %d of %s: %w", ErrExternBuffer, i, x.name, err)
	}
	if !upload {
		a.SetDeviceDirty(true) // the device copy is the truth; the host's is blank
	}
	x.devs = append(x.devs, devArray{
		b: b.b, out: out, a: a,
		state: func() (bool, bool) { return a.HostDirty(), a.DeviceDirty() },
		push:  func() error { return a.CopyToDevice(x.dev) },
	})
	return a, nil
}

// checkGuard refuses a transfer the stage would make on its own when the
// transfer guard is on: process-wide, the call's device's, or the call's.
func (x *ExternCall) checkGuard(what string) error {
	err := checkAutomatic(x.dev, what)
	if err == nil && x.guard {
		err = guardError(what)
	}
	if err != nil {
		return &Error{Code: int(ErrTransferGuard), Msg: err.Error(), err: err}
	}
	return nil
}

// settle tells Halide where the stage left the output, when the stage
// took it with ExternDeviceArray and succeeded (ok; outDone), and closes
// the stage's device Arrays.
func (x *ExternCall) settle(ok bool) (outDone bool, err error) {
	var errs []error
	for _, d := range x.devs {
		if ok && d.out {
			if host, _ := d.state(); host {
				// Written on the host: the device copy must hold it.
				if err := d.push(); err != nil {
					errs = append(errs, fmt.Errorf("extern stage %s: uploading the output written on the host: %w", x.name, err))
				}
			}
			d.b.Flags = d.b.Flags&^rt.HostDirty | rt.DeviceDirty
			outDone = true
		}
		if err := d.a.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	x.devs = nil
	return outDone, errors.Join(errs...)
}

// RuntimeTransfers counts the copies the Halide runtime itself made
// between host and OpenCL devices since the process started (reads:
// device to host, writes: host to device): those of pipelines called
// from C, of PassCBuffer arguments, of host extern stages in GPU
// pipelines. The library's own transfers are counted in each device's
// Stats instead; together they are every copy.
func RuntimeTransfers() (reads, writes int64) {
	return rt.RuntimeTransfers()
}
