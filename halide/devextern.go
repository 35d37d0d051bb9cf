package halide

// #include "shim.h"
// #include "HalideRuntimeOpenCL.h"
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// devArray is one Array ExternDeviceArray made: settled after the stage.
type devArray struct {
	b     *C.struct_halide_buffer_t
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
// The buffer must be dense (Halide allocates a stage's buffers so) and at
// offset 0 of its cl_mem; a host stage's buffer, or a host pipeline's, is
// an error wrapping ErrExternBuffer that names ExternArray.
func ExternDeviceArray[T array.Elem](x *ExternCall, i int) (*array.Array[T], error) {
	b := x.Buffer(i)
	if t := array.TypeOf[T](); t != b.Type() {
		return nil, fmt.Errorf("%w: a %s buffer viewed as %s", ErrExternBuffer, b.Type(), t)
	}
	switch {
	case b.BoundsQuery():
		return nil, fmt.Errorf("%w: a bounds query has no memory (check ExternCall.BoundsQuery)", ErrExternBuffer)
	case x.dev == nil:
		return nil, fmt.Errorf("%w: extern stage %s runs in a call without an OpenCL device (a host pipeline): use ExternArray", ErrExternBuffer, x.name)
	case b.b.device == 0 || b.b.device_interface != C.halide_opencl_device_interface():
		return nil, fmt.Errorf("%w: argument %d of %s has no OpenCL allocation: declare the stage with DeviceAPI::OpenCL in define_extern, or use ExternArray for a host stage", ErrExternBuffer, i, x.name)
	}
	uc := x.uc()
	if off := C.halide_opencl_get_crop_offset(uc, b.b); off != 0 {
		return nil, fmt.Errorf("%w: argument %d of %s is a device crop (offset %d bytes): not supported", ErrExternBuffer, i, x.name, off)
	}
	region := b.Dims()
	dense := 1
	for d, dim := range region {
		if dim.Extent > 1 && dim.Stride != dense {
			return nil, fmt.Errorf("%w: argument %d of %s is not dense (dimension %d has stride %d, want %d): not supported", ErrExternBuffer, i, x.name, d, dim.Stride, dense)
		}
		dense *= max(dim.Extent, 1)
	}
	adopter, ok := x.dev.(interface {
		Adopt(mem uintptr, bytes int, retain bool) (device.Allocation, error)
	})
	if !ok {
		return nil, fmt.Errorf("%w: the call's device %s cannot adopt a cl_mem", ErrExternBuffer, x.dev.Name())
	}
	if b.b.flags&C.halide_buffer_flag_host_dirty != 0 && b.b.host != nil {
		// Halide makes a device stage's inputs current on the device
		// before it runs; should one still be newer on the host, the
		// runtime uploads it (not counted in Stats).
		if rc := C.halide_copy_to_device(uc, b.b, C.halide_opencl_device_interface()); rc != 0 {
			return nil, fmt.Errorf("%w: copying argument %d of %s to the device failed (halide error %d)", ErrExternBuffer, i, x.name, int(rc))
		}
	}
	a := array.NewWithMins[T](array.Box(region))
	size := int(unsafe.Sizeof(*new(T)))
	// A reference of the Array's own to Halide's cl_mem, dropped at Close.
	alloc, err := adopter.Adopt(uintptr(C.halide_opencl_get_cl_mem(uc, b.b)), dense*size, true)
	if err == nil {
		err = a.DeviceAdopt(x.dev, alloc)
	}
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("%w: argument %d of %s: %w", ErrExternBuffer, i, x.name, err)
	}
	a.SetDeviceDirty(true) // the device copy is the truth; the host's is blank
	x.devs = append(x.devs, devArray{
		b: b.b, out: b.b == x.Output().b, a: a,
		state: func() (bool, bool) { return a.HostDirty(), a.DeviceDirty() },
		push:  func() error { return a.CopyToDevice(x.dev) },
	})
	return a, nil
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
			d.b.flags = d.b.flags&^C.halide_buffer_flag_host_dirty | C.halide_buffer_flag_device_dirty
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
	var r, w C.int64_t
	C.gohl_runtime_transfers(&r, &w)
	return int64(r), int64(w)
}
