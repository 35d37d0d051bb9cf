package cl

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Kernel is a cl_kernel. Setting arguments is not safe for concurrent use on
// one Kernel (OpenCL's rule); create a Kernel per goroutine instead.
type Kernel struct {
	h    uintptr
	name string
}

// Local is a kernel argument that reserves that many bytes of __local memory.
type Local int

// KernelOf is a Kernel over a cl_kernel another runtime made (Halide's),
// for recording it: the caller keeps the reference, so never Release it.
func KernelOf(h uintptr) *Kernel { return &Kernel{h: h, name: "(foreign)"} }

// Handle returns the raw cl_kernel.
func (k *Kernel) Handle() uintptr { return k.h }

// Name returns the kernel function's name.
func (k *Kernel) Name() string { return k.name }

// Release drops the kernel. Releasing twice is a no-op (not concurrently).
func (k *Kernel) Release() error { return releaseHandle(kindKernel, &k.h) }

// NumArgs returns the kernel's number of arguments.
func (k *Kernel) NumArgs() (int, error) {
	n, err := infoUint("clGetKernelInfo", kindKernel, k.h, 0, kernelNumArgs)
	return int(n), err
}

// WorkGroupSize returns the largest work-group size k can run with on d.
func (k *Kernel) WorkGroupSize(d DeviceID) (int, error) {
	n, err := infoUint("clGetKernelWorkGroupInfo", kindKernelWorkGroup, k.h, d.id, kernelWorkGroupSize)
	return int(n), err
}

// SetArgs sets arguments 0, 1, … in order; see SetArg.
func (k *Kernel) SetArgs(args ...any) error {
	for i, a := range args {
		if err := k.SetArg(i, a); err != nil {
			return err
		}
	}
	return nil
}

// SetArg sets argument i. Accepted: *Buffer; a device.Allocation of a
// Device with Offset 0 (for a crop, pass SubBuffer's handle as a Mem, or the
// root and the offset as a scalar); Mem (a raw cl_mem); Local (local memory
// bytes); fixed-size integers and floats; []byte (raw bytes, e.g. a struct
// or vector). Any other type, including int and uint whose OpenCL size is
// ambiguous, panics with ErrArgType.
func (k *Kernel) SetArg(i int, v any) error {
	if i < 0 {
		return fmt.Errorf("opencl: SetArg(%d) on %s: %w", i, k.name, &Error{Op: "clSetKernelArg", Code: -49})
	}
	switch v := v.(type) {
	case *Buffer:
		return k.setMem(i, v.h)
	case Mem:
		return k.setMem(i, uintptr(v))
	case device.Buffer:
		return k.setMem(i, uintptr(v))
	case device.Local:
		return k.set(i, int(v), nil)
	case device.Allocation:
		if v.Offset() != 0 {
			return fmt.Errorf("opencl: SetArg(%d) on %s: allocation at offset %d: pass a sub-buffer (Device.SubBuffer) or the root with the offset: %w", i, k.name, v.Offset(), &Error{Op: "clSetKernelArg", Code: -50})
		}
		return k.setMem(i, v.Native())
	case Local:
		return k.set(i, int(v), nil)
	case int8:
		return k.set(i, 1, unsafe.Pointer(&v))
	case uint8:
		return k.set(i, 1, unsafe.Pointer(&v))
	case int16:
		return k.set(i, 2, unsafe.Pointer(&v))
	case uint16:
		return k.set(i, 2, unsafe.Pointer(&v))
	case int32:
		return k.set(i, 4, unsafe.Pointer(&v))
	case uint32:
		return k.set(i, 4, unsafe.Pointer(&v))
	case float32:
		return k.set(i, 4, unsafe.Pointer(&v))
	case int64:
		return k.set(i, 8, unsafe.Pointer(&v))
	case uint64:
		return k.set(i, 8, unsafe.Pointer(&v))
	case float64:
		return k.set(i, 8, unsafe.Pointer(&v))
	case []byte:
		if len(v) == 0 {
			return fmt.Errorf("opencl: SetArg(%d) on %s: empty []byte: %w", i, k.name, &Error{Op: "clSetKernelArg", Code: -51})
		}
		return k.set(i, len(v), unsafe.Pointer(&v[0]))
	}
	panic(fmt.Errorf("%w: argument %d of %s is a %T: use *Buffer, Mem, Local, int32, uint32, int64, float32, … or []byte", ErrArgType, i, k.name, v))
}

// Mem is a raw cl_mem handle as a kernel argument.
type Mem uintptr

func (k *Kernel) setMem(i int, h uintptr) error {
	return k.set(i, int(unsafe.Sizeof(h)), unsafe.Pointer(&h))
}

func (k *Kernel) set(i, size int, p unsafe.Pointer) error {
	if err := check("clSetKernelArg", clSetKernelArg(k.h, i, size, p)); err != nil {
		return fmt.Errorf("opencl: argument %d of %s: %w", i, k.name, err)
	}
	return nil
}
