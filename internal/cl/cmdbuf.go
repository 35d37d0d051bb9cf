package cl

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// CommandBuffer is a cl_khr_command_buffer: commands recorded once and
// enqueued as one (its provisional versions 0.9.0 to 0.9.4, whose entry
// points this binding declares; CommandBuffers says whether a device has
// one of them). Commands run in recording order.
type CommandBuffer struct {
	h      uintptr
	sync   uint32
	synced bool
}

// CommandBufferExt is the extension's name.
const CommandBufferExt = "cl_khr_command_buffer"

const (
	deviceExtensionsWithVersion = 0x1060 // CL_DEVICE_EXTENSIONS_WITH_VERSION (OpenCL 3.0)
	deviceCommandBufferCaps     = 0x12A9 // CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR
	commandBufferSimultaneous   = 1 << 2 // CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR
)

// ExtensionVersion is the version (major, minor, patch) d reports for
// extension name; false where it reports none (OpenCL before 3.0, or no
// such extension).
func (d DeviceID) ExtensionVersion(name string) (v [3]int, ok bool) {
	b, err := infoBytes("clGetDeviceInfo", kindDevice, d.id, 0, deviceExtensionsWithVersion)
	if err != nil {
		return v, false
	}
	const entry = 4 + 64 // cl_name_version: cl_version, char[64]
	for i := 0; i+entry <= len(b); i += entry {
		n := b[i+4 : i+entry]
		if k := indexByte(n, 0); k >= 0 {
			n = n[:k]
		}
		if string(n) == name {
			x := binary.LittleEndian.Uint32(b[i:])
			return [3]int{int(x >> 22), int(x >> 12 & 0x3ff), int(x & 0xfff)}, true
		}
	}
	return v, false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// CommandBuffers reports whether d has a cl_khr_command_buffer this
// binding calls (0.9.0 to 0.9.4) and, if so, whether one buffer may be
// pending more than once (simultaneous use); the error says why not.
func CommandBuffers(d DeviceID) (simultaneous bool, err error) {
	v, ok := d.ExtensionVersion(CommandBufferExt)
	if !ok {
		return false, errors.New("opencl: the device lists no " + CommandBufferExt)
	}
	if v[0] != 0 || v[1] != 9 || v[2] > 4 {
		return false, fmt.Errorf("opencl: %s %d.%d.%d: this binding declares 0.9.0 to 0.9.4", CommandBufferExt, v[0], v[1], v[2])
	}
	if clCmdBufLoad(d.Platform().id) != 0 {
		return false, errors.New("opencl: the platform has no " + CommandBufferExt + " entry points")
	}
	caps, err := infoUint("clGetDeviceInfo", kindDevice, d.id, 0, deviceCommandBufferCaps)
	return err == nil && caps&commandBufferSimultaneous != 0, nil
}

// NewCommandBuffer makes an empty command buffer for q (CommandBuffers
// first); simultaneous asks that it may be pending more than once.
func NewCommandBuffer(q *CommandQueue, simultaneous bool) (*CommandBuffer, error) {
	h, code := clCmdBufCreate(q.h, simultaneous)
	if err := check("clCreateCommandBufferKHR", code); err != nil {
		return nil, err
	}
	return &CommandBuffer{h: h}, nil
}

// NDRange records k over global (local nil: the device picks) with the
// arguments k has now.
func (b *CommandBuffer) NDRange(k *Kernel, global, local []int) error {
	var g, l [3]int
	copy(g[:], global)
	var lp *[3]int
	if local != nil {
		copy(l[:], local)
		lp = &l
	}
	code := clCmdBufNDRange(b.h, k.h, len(global), &g, lp, b.synced, &b.sync)
	b.synced = b.synced || code == 0
	return check("clCommandNDRangeKernelKHR", code)
}

// CopyBuffer records a copy of n bytes between two buffers.
func (b *CommandBuffer) CopyBuffer(dst uintptr, dstOff int, src uintptr, srcOff, n int) error {
	code := clCmdBufCopy(b.h, src, dst, srcOff, dstOff, n, b.synced, &b.sync)
	b.synced = b.synced || code == 0
	return check("clCommandCopyBufferKHR", code)
}

// Finalize ends recording.
func (b *CommandBuffer) Finalize() error {
	return check("clFinalizeCommandBufferKHR", clCmdBufFinalize(b.h))
}

// Enqueue queues the buffer's commands on q after wait; ev, when not nil,
// receives an event for their completion.
func (b *CommandBuffer) Enqueue(q *CommandQueue, wait []Event, ev *Event) error {
	return check("clEnqueueCommandBufferKHR", clCmdBufEnqueue(q.h, b.h, nonZero(wait), ev))
}

// Release drops the buffer. Releasing twice is a no-op (not concurrently).
func (b *CommandBuffer) Release() error {
	if b.h == 0 {
		return nil
	}
	h := b.h
	b.h = 0
	return check("clReleaseCommandBufferKHR", clCmdBufRelease(h))
}

const kernelProgram = 0x1194 // CL_KERNEL_PROGRAM

// Twin makes a new cl_kernel of k's function from k's program, with no
// arguments set: one whose arguments no other user changes (a command
// buffer's own).
func (k *Kernel) Twin() (*Kernel, error) {
	hs, err := infoHandles("clGetKernelInfo", kindKernel, k.h, 0, kernelProgram)
	if err != nil {
		return nil, err
	}
	if len(hs) != 1 {
		return nil, fmt.Errorf("opencl: kernel %s: CL_KERNEL_PROGRAM gave %d handles", k.name, len(hs))
	}
	h, code := clCreateKernel(hs[0], k.name)
	if err := check("clCreateKernel", code); err != nil {
		return nil, err
	}
	return &Kernel{h: h, name: k.name}, nil
}
