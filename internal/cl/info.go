package cl

import (
	"encoding/binary"
	"strings"
)

// Object kinds for clInfo, clRetain and clRelease; they match shim.h.
const (
	kindPlatform = iota + 1
	kindDevice
	kindContext
	kindQueue
	kindMem
	kindProgram
	kindProgramBuild
	kindKernel
	kindKernelWorkGroup
	kindEvent
	kindEventProfiling
)

// releaseOps names the entry point clRelease calls for each kind, for errors.
var releaseOps = [...]string{
	kindContext: "clReleaseContext",
	kindQueue:   "clReleaseCommandQueue",
	kindMem:     "clReleaseMemObject",
	kindProgram: "clReleaseProgram",
	kindKernel:  "clReleaseKernel",
	kindEvent:   "clReleaseEvent",
}

// release drops one reference to the object h of the given kind.
func release(kind int, h uintptr) error { return check(releaseOps[kind], clRelease(kind, h)) }

// releaseHandle is the Release method of the handle types: it zeroes *h
// before releasing, so releasing twice is a no-op (not concurrently).
func releaseHandle(kind int, h *uintptr) error {
	if *h == 0 {
		return nil
	}
	x := *h
	*h = 0
	return release(kind, x)
}

// Info parameter names, from the OpenCL 1.2 spec.
const (
	platformProfile    = 0x0900
	platformVersion    = 0x0901
	platformName       = 0x0902
	platformVendor     = 0x0903
	platformExtensions = 0x0904

	deviceType             = 0x1000
	deviceMaxComputeUnits  = 0x1002
	deviceMaxWorkGroupSize = 0x1004
	deviceMaxClock         = 0x100C
	deviceMaxMemAllocSize  = 0x1010
	deviceMemBaseAddrAlign = 0x1019
	deviceGlobalMemSize    = 0x101F
	deviceLocalMemSize     = 0x1023
	deviceAvailable        = 0x1027
	deviceName             = 0x102B
	deviceVendor           = 0x102C
	deviceDriverVersion    = 0x102D
	deviceVersion          = 0x102F
	deviceExtensions       = 0x1030
	devicePlatform         = 0x1031
	deviceHostUnifiedMem   = 0x1035
	deviceOpenCLCVersion   = 0x103D
	deviceParentDevice     = 0x1042

	programDevices  = 0x1163
	programBuildLog = 0x1183

	kernelNumArgs       = 0x1191
	kernelWorkGroupSize = 0x11B0

	eventExecutionStatus = 0x11D3
	profilingStart       = 0x1282
	profilingEnd         = 0x1283
)

// infoBytes runs the two-step size-then-value query.
func infoBytes(op string, kind int, obj, obj2 uintptr, param uint32) ([]byte, error) {
	n, code := clInfo(kind, obj, obj2, param, nil)
	if err := check(op, code); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	buf := make([]byte, n)
	if _, code := clInfo(kind, obj, obj2, param, buf); code != 0 {
		return nil, check(op, code)
	}
	return buf, nil
}

func infoString(op string, kind int, obj, obj2 uintptr, param uint32) (string, error) {
	b, err := infoBytes(op, kind, obj, obj2, param)
	return strings.TrimRight(string(b), "\x00"), err
}

// infoUint reads a cl_uint, cl_ulong, size_t or cl_bool value.
func infoUint(op string, kind int, obj, obj2 uintptr, param uint32) (uint64, error) {
	var buf [8]byte
	n, code := clInfo(kind, obj, obj2, param, buf[:])
	if err := check(op, code); err != nil {
		return 0, err
	}
	switch n {
	case 4:
		return uint64(binary.NativeEndian.Uint32(buf[:4])), nil
	case 8:
		return binary.NativeEndian.Uint64(buf[:]), nil
	}
	return 0, &Error{Op: op, Code: CodeInvalidValue}
}

// infoHandles reads an array of handles (cl_device_id[], …).
func infoHandles(op string, kind int, obj, obj2 uintptr, param uint32) ([]uintptr, error) {
	b, err := infoBytes(op, kind, obj, obj2, param)
	if err != nil {
		return nil, err
	}
	h := make([]uintptr, len(b)/8)
	for i := range h {
		h[i] = uintptr(binary.NativeEndian.Uint64(b[8*i:]))
	}
	return h, nil
}
