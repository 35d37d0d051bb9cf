package cl

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoOpenCL is wrapped by Load's error when the ICD loader cannot be
// opened, and by Platforms' when no platform is installed.
var ErrNoOpenCL = errors.New("opencl: no OpenCL ICD loader: install ocl-icd-libopencl1 and pocl-opencl-icd, or a GPU driver")

// ErrArgType is the panic value (wrapped) for a kernel argument of a type
// SetArg cannot pass: a programmer error.
var ErrArgType = errors.New("opencl: unsupported kernel argument type")

// Error is an OpenCL call that failed with a CL error code.
type Error struct {
	Op   string // the OpenCL entry point or our operation
	Code int    // the cl_int error code, negative
}

func (e *Error) Error() string {
	return fmt.Sprintf("opencl: %s: %s (%d)", e.Op, ErrorName(e.Code), e.Code)
}

// Is makes errors.Is(err, &Error{Code: c}) match any Error with code c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Op == "" || t.Op == e.Op)
}

// check returns nil for CL_SUCCESS and an *Error otherwise.
func check(op string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(code)}
}

// Codes tested often enough to deserve names in Go.
const (
	CodeDeviceNotFound          = -1
	CodeMemObjectAllocationFail = -4
	CodeOutOfResources          = -5
	CodeOutOfHostMemory         = -6
	CodeBuildProgramFailure     = -11
	CodeMisalignedSubBufferOff  = -13
	CodeInvalidValue            = -30
	CodeInvalidMemObject        = -38
	CodeInvalidKernelName       = -46
	CodeInvalidOperation        = -59
	CodeInvalidBufferSize       = -61
	CodePlatformNotFound        = -1001
	codePlatformNotFound        = int32(CodePlatformNotFound)
	codeMemObjectAllocationFail = int32(CodeMemObjectAllocationFail)
	codeOutOfResources          = int32(CodeOutOfResources)
	codeOutOfHostMemory         = int32(CodeOutOfHostMemory)
	codeDeviceNotFound          = int32(CodeDeviceNotFound)
)

var errorNames = map[int]string{
	0:     "CL_SUCCESS",
	-1:    "CL_DEVICE_NOT_FOUND",
	-2:    "CL_DEVICE_NOT_AVAILABLE",
	-3:    "CL_COMPILER_NOT_AVAILABLE",
	-4:    "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5:    "CL_OUT_OF_RESOURCES",
	-6:    "CL_OUT_OF_HOST_MEMORY",
	-7:    "CL_PROFILING_INFO_NOT_AVAILABLE",
	-8:    "CL_MEM_COPY_OVERLAP",
	-9:    "CL_IMAGE_FORMAT_MISMATCH",
	-10:   "CL_IMAGE_FORMAT_NOT_SUPPORTED",
	-11:   "CL_BUILD_PROGRAM_FAILURE",
	-12:   "CL_MAP_FAILURE",
	-13:   "CL_MISALIGNED_SUB_BUFFER_OFFSET",
	-14:   "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	-15:   "CL_COMPILE_PROGRAM_FAILURE",
	-16:   "CL_LINKER_NOT_AVAILABLE",
	-17:   "CL_LINK_PROGRAM_FAILURE",
	-18:   "CL_DEVICE_PARTITION_FAILED",
	-19:   "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	-30:   "CL_INVALID_VALUE",
	-31:   "CL_INVALID_DEVICE_TYPE",
	-32:   "CL_INVALID_PLATFORM",
	-33:   "CL_INVALID_DEVICE",
	-34:   "CL_INVALID_CONTEXT",
	-35:   "CL_INVALID_QUEUE_PROPERTIES",
	-36:   "CL_INVALID_COMMAND_QUEUE",
	-37:   "CL_INVALID_HOST_PTR",
	-38:   "CL_INVALID_MEM_OBJECT",
	-39:   "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
	-40:   "CL_INVALID_IMAGE_SIZE",
	-41:   "CL_INVALID_SAMPLER",
	-42:   "CL_INVALID_BINARY",
	-43:   "CL_INVALID_BUILD_OPTIONS",
	-44:   "CL_INVALID_PROGRAM",
	-45:   "CL_INVALID_PROGRAM_EXECUTABLE",
	-46:   "CL_INVALID_KERNEL_NAME",
	-47:   "CL_INVALID_KERNEL_DEFINITION",
	-48:   "CL_INVALID_KERNEL",
	-49:   "CL_INVALID_ARG_INDEX",
	-50:   "CL_INVALID_ARG_VALUE",
	-51:   "CL_INVALID_ARG_SIZE",
	-52:   "CL_INVALID_KERNEL_ARGS",
	-53:   "CL_INVALID_WORK_DIMENSION",
	-54:   "CL_INVALID_WORK_GROUP_SIZE",
	-55:   "CL_INVALID_WORK_ITEM_SIZE",
	-56:   "CL_INVALID_GLOBAL_OFFSET",
	-57:   "CL_INVALID_EVENT_WAIT_LIST",
	-58:   "CL_INVALID_EVENT",
	-59:   "CL_INVALID_OPERATION",
	-60:   "CL_INVALID_GL_OBJECT",
	-61:   "CL_INVALID_BUFFER_SIZE",
	-62:   "CL_INVALID_MIP_LEVEL",
	-63:   "CL_INVALID_GLOBAL_WORK_SIZE",
	-64:   "CL_INVALID_PROPERTY",
	-65:   "CL_INVALID_IMAGE_DESCRIPTOR",
	-66:   "CL_INVALID_COMPILER_OPTIONS",
	-67:   "CL_INVALID_LINKER_OPTIONS",
	-68:   "CL_INVALID_DEVICE_PARTITION_COUNT",
	-69:   "CL_INVALID_PIPE_SIZE",
	-70:   "CL_INVALID_DEVICE_QUEUE",
	-71:   "CL_INVALID_SPEC_ID",
	-72:   "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
	-1000: "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
	-1057: "CL_DEVICE_PARTITION_FAILED_EXT",
	-1058: "CL_INVALID_PARTITION_COUNT_EXT",
	-1059: "CL_INVALID_PARTITION_NAME_EXT",
	-9999: "NVIDIA_ILLEGAL_READ_OR_WRITE_TO_A_BUFFER",
}

// ErrorName returns the symbolic name of an OpenCL error code, such as
// CL_OUT_OF_RESOURCES, or "CL_UNKNOWN_ERROR" for a code not in the spec.
func ErrorName(code int) string {
	if n, ok := errorNames[code]; ok {
		return n
	}
	return "CL_UNKNOWN_ERROR"
}

// BuildLog is one device's compiler output.
type BuildLog struct {
	Device DeviceID
	Name   string // the device's name, for messages
	Log    string
}

// BuildError is a failed clBuildProgram with the build log of every device
// the program was built for.
type BuildError struct {
	Err  *Error
	Logs []BuildLog
}

func (e *BuildError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for _, l := range e.Logs {
		fmt.Fprintf(&b, "\n--- build log for %s:\n%s", l.Name, strings.TrimRight(l.Log, "\n\x00 "))
	}
	return b.String()
}

func (e *BuildError) Unwrap() error { return e.Err }

// Log returns every device's log, joined.
func (e *BuildError) Log() string {
	var b strings.Builder
	for i, l := range e.Logs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.Log)
	}
	return b.String()
}
