package halide

import "fmt"

// Error is a failed pipeline call: the pipeline, Halide's error code
// (halide_error_code_t, negative) and the message. Msg is the runtime's own
// text for errors Halide reports, or the bridge's for arguments it refused
// before calling.
type Error struct {
	Pipeline string
	Code     int
	Msg      string

	err error // the Go error behind Msg, for errors.Is (transfer guard, OpenCL)
}

// Unwrap returns the Go error behind a bridge-side failure, if any.
func (e *Error) Unwrap() error { return e.err }

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (halide error %d, %s)", e.Pipeline, e.Msg, e.Code, CodeName(e.Code))
}

// CodeName is the symbolic name of a Halide 14 error code, e.g.
// "bad_type" for -3, as in halide_error_code_bad_type.
func CodeName(code int) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return fmt.Sprintf("unknown_%d", code)
}

// codeNames is enum halide_error_code_t of HalideRuntime.h (Halide 14).
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
}
