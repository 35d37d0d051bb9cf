package halide

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// Error is a failed pipeline call: the pipeline, the error code and the
// message. Code is Halide's halide_error_code_t (negative) for errors the
// runtime reports, with Msg the runtime's own text (and what the bridge
// adds, such as the OpenCL build options); for the bridge's own refusals
// it is one of the codes below -1000 (ErrNoDevice, …) with the bridge's
// text. Match codes with errors.Is:
//
//	if errors.Is(err, halide.ErrAccessOutOfBounds) { … }
//
// and Halide's exact text with HalideMsg, as Halide's own tests do.
type Error struct {
	Pipeline string
	Code     int
	Msg      string
	// HalideMsg is exactly what Halide's error handler got during the
	// call (several messages, rare, joined by newlines; up to 2 KiB):
	// the runtime's text alone, without the bridge's. When the bridge
	// refused a mismatch in Go that Halide checks too (argument type,
	// dimensions, a NULL buffer: codes -3, -43, -12), it is the sentence
	// Halide 14 gives for it, which Msg carries in parentheses. Empty when
	// Halide said nothing.
	HalideMsg string

	err error // the Go error behind Msg, for errors.Is (transfer guard, OpenCL)
}

// Unwrap returns the Go error behind a bridge-side failure, if any.
func (e *Error) Unwrap() error { return e.err }

// Is matches a Code: errors.Is(err, halide.ErrBadType) holds for every
// *Error whose Code is -3. The bridge's codes for a closed device, a
// foreign device and the transfer guard also match the module's sentinels
// (device.ErrClosed, device.ErrForeign, device.ErrTransferGuard).
func (e *Error) Is(target error) bool {
	if c, ok := target.(Code); ok {
		return int(c) == e.Code
	}
	switch Code(e.Code) {
	case ErrDeviceClosed:
		return target == device.ErrClosed
	case ErrForeignDevice:
		return target == device.ErrForeign
	case ErrTransferGuard:
		return target == device.ErrTransferGuard
	}
	return false
}

func (e *Error) Error() string {
	what := "halide error"
	if e.Code <= bridgeCodes {
		what = "halide bridge error"
	}
	return fmt.Sprintf("%s: %s (%s %d, %s)", e.Pipeline, e.Msg, what, e.Code, codeName(e.Code))
}

// Code is an error code as an error value, for errors.Is: Halide's
// halide_error_code_t values (Err*), and the bridge's own refusals, which
// never reach the runtime. A Code compares equal to the Code field of
// every *Error that carries it.
type Code int

func (c Code) Error() string { return fmt.Sprintf("halide: %s (%d)", codeName(int(c)), int(c)) }

// Halide 14's error codes (enum halide_error_code_t in HalideRuntime.h).
const (
	ErrGeneric                              Code = -1
	ErrExplicitBoundsTooSmall               Code = -2
	ErrBadType                              Code = -3
	ErrAccessOutOfBounds                    Code = -4
	ErrBufferAllocationTooLarge             Code = -5
	ErrBufferExtentsTooLarge                Code = -6
	ErrConstraintsMakeRequiredRegionSmaller Code = -7
	ErrConstraintViolated                   Code = -8
	ErrParamTooSmall                        Code = -9
	ErrParamTooLarge                        Code = -10
	ErrOutOfMemory                          Code = -11
	ErrBufferArgumentIsNull                 Code = -12
	ErrDebugToFileFailed                    Code = -13
	ErrCopyToHostFailed                     Code = -14
	ErrCopyToDeviceFailed                   Code = -15
	ErrDeviceMallocFailed                   Code = -16
	ErrDeviceSyncFailed                     Code = -17
	ErrDeviceFreeFailed                     Code = -18
	ErrNoDeviceInterface                    Code = -19
	ErrInternal                             Code = -22
	ErrDeviceRunFailed                      Code = -23
	ErrUnalignedHostPtr                     Code = -24
	ErrBadFold                              Code = -25
	ErrFoldFactorTooSmall                   Code = -26
	ErrRequirementFailed                    Code = -27
	ErrBufferExtentsNegative                Code = -28
	ErrSpecializeFail                       Code = -31
	ErrDeviceWrapNativeFailed               Code = -32
	ErrDeviceDetachNativeFailed             Code = -33
	ErrHostIsNull                           Code = -34
	ErrBadExternFold                        Code = -35
	ErrDeviceInterfaceNoDevice              Code = -36
	ErrHostAndDeviceDirty                   Code = -37
	ErrBufferIsNull                         Code = -38
	ErrDeviceBufferCopyFailed               Code = -39
	ErrDeviceCropUnsupported                Code = -40
	ErrDeviceCropFailed                     Code = -41
	ErrIncompatibleDeviceInterface          Code = -42
	ErrBadDimensions                        Code = -43
	ErrDeviceDirtyWithNoDeviceSupport       Code = -44
	ErrStorageBoundTooSmall                 Code = -45
)

// The bridge's own refusals: the call never reached the runtime (or, for
// ErrTransfer, a transfer the bridge makes around it failed). They sit
// below bridgeCodes so they never collide with Halide's codes.
const (
	// ErrArgCount: Call got the wrong number of arguments.
	ErrArgCount Code = -1001
	// ErrNoDevice: an OpenCL pipeline found no OpenCL device (no ICD
	// loader, no platform, or the one selected by the environment is
	// missing). The *Error wraps the device error.
	ErrNoDevice Code = -1002
	// ErrDeviceClosed: the device chosen for the call was closed.
	ErrDeviceClosed Code = -1003
	// ErrForeignDevice: an argument is resident on a device other than
	// the call's and the caller did not opt in to moving it.
	ErrForeignDevice Code = -1004
	// ErrTransferGuard: a transfer the call would make is refused by the
	// transfer guard (device.Guarded). The *Error also wraps
	// device.ErrTransferGuard.
	ErrTransferGuard Code = -1005
	// -1006 was ErrUnalignedCrop: unaligned crops now run on an aligned
	// device temporary instead.
	// ErrTransfer: an upload, download or device allocation the bridge
	// makes for the call failed. The *Error wraps the device error.
	ErrTransfer Code = -1007
	// ErrTexture: the pipeline stores a buffer argument in GPU texture
	// memory (MemoryType::GPUTexture, an OpenCL image), which Arrays
	// cannot provide.
	ErrTexture Code = -1008
	// ErrBoundsQuery: a bounds query got an argument it cannot use.
	ErrBoundsQuery Code = -1009
	// ErrReadOnlyOutput: an output argument is a read-only view
	// (array.Array.BroadcastTo, whose elements repeat), which a pipeline
	// cannot write. The *Error wraps array.ErrReadOnly.
	ErrReadOnlyOutput Code = -1010
	// ErrCanceled: the call's context was done before the pipeline ran
	// (CallContext). The *Error wraps ctx.Err().
	ErrCanceled Code = -1011
)

// bridgeCodes is the largest code of the bridge's own range.
const bridgeCodes = -1000

// codeName is the symbolic name of an error code, e.g. "bad_type" for -3,
// as in halide_error_code_bad_type, or "no_device" for ErrNoDevice.
func codeName(code int) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return fmt.Sprintf("unknown_%d", code)
}

// codeNames is enum halide_error_code_t of HalideRuntime.h (Halide 14),
// then the bridge's codes.
var codeNames = map[int]string{
	0:   "success",
	-1:  "generic_error",
	-2:  "explicit_bounds_too_small",
	-3:  "bad_type",
	-4:  "access_out_of_bounds",
	-5:  "buffer_allocation_too_large",
	-6:  "buffer_extents_too_large",
	-7:  "constraints_make_required_region_smaller",
	-8:  "constraint_violated",
	-9:  "param_too_small",
	-10: "param_too_large",
	-11: "out_of_memory",
	-12: "buffer_argument_is_null",
	-13: "debug_to_file_failed",
	-14: "copy_to_host_failed",
	-15: "copy_to_device_failed",
	-16: "device_malloc_failed",
	-17: "device_sync_failed",
	-18: "device_free_failed",
	-19: "no_device_interface",
	-20: "matlab_init_failed",
	-21: "matlab_bad_param_type",
	-22: "internal_error",
	-23: "device_run_failed",
	-24: "unaligned_host_ptr",
	-25: "bad_fold",
	-26: "fold_factor_too_small",
	-27: "requirement_failed",
	-28: "buffer_extents_negative",
	-29: "unused_29",
	-30: "unused_30",
	-31: "specialize_fail",
	-32: "device_wrap_native_failed",
	-33: "device_detach_native_failed",
	-34: "host_is_null",
	-35: "bad_extern_fold",
	-36: "device_interface_no_device",
	-37: "host_and_device_dirty",
	-38: "buffer_is_null",
	-39: "device_buffer_copy_failed",
	-40: "device_crop_unsupported",
	-41: "device_crop_failed",
	-42: "incompatible_device_interface",
	-43: "bad_dimensions",
	-44: "device_dirty_with_no_device_support",
	-45: "storage_bound_too_small",

	int(ErrArgCount):       "arg_count",
	int(ErrNoDevice):       "no_device",
	int(ErrDeviceClosed):   "device_closed",
	int(ErrForeignDevice):  "foreign_device",
	int(ErrTransferGuard):  "transfer_guard",
	int(ErrTransfer):       "transfer_failed",
	int(ErrTexture):        "gpu_texture_unsupported",
	int(ErrBoundsQuery):    "bounds_query",
	int(ErrReadOnlyOutput): "read_only_output",
	int(ErrCanceled):       "canceled",
}
