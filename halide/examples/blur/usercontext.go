package blur

// C calling the blur pipelines with a user_context of its own, as Halide's
// user_context aottest does: the pointer is the caller's and opaque, so the
// library's error handler and OpenCL context hooks must never read it. The
// user_context tests of package halide use it. Not generated.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdint.h>
#include "HalideRuntime.h"
#include "blur.h"
#include "blur_opencl.h"

static int run_blur_uc(uintptr_t uc, struct halide_buffer_t *in, struct halide_buffer_t *out) {
    return blur((void *)uc, in, out);
}

// run_blur_opencl_uc marks the input's host data newer (host_dirty, so the
// runtime uploads it), runs blur_opencl, brings the output home and frees
// both device allocations, every runtime call with uc.
static int run_blur_opencl_uc(uintptr_t uc, struct halide_buffer_t *in, struct halide_buffer_t *out) {
    void *u = (void *)uc;
    in->flags |= halide_buffer_flag_host_dirty;
    int r = blur_opencl(u, in, out);
    if (r == 0) r = halide_copy_to_host(u, out);
    int r2 = halide_device_free(u, in);
    int r3 = halide_device_free(u, out);
    return r ? r : r2 ? r2 : r3;
}
*/
import "C"

import "unsafe"

// CBlurWithContext is C calling blur(uc, in, out): uc is passed as is,
// any value, mapped memory or not.
func CBlurWithContext(uc uintptr, in, out unsafe.Pointer) int {
	return int(C.run_blur_uc(C.uintptr_t(uc), (*C.struct_halide_buffer_t)(in), (*C.struct_halide_buffer_t)(out)))
}

// COpenCLBlurWithContext is C marking in host-dirty and calling
// blur_opencl(uc, in, out), then halide_copy_to_host(uc, out) and
// halide_device_free(uc, …) of both.
func COpenCLBlurWithContext(uc uintptr, in, out unsafe.Pointer) int {
	return int(C.run_blur_opencl_uc(C.uintptr_t(uc), (*C.struct_halide_buffer_t)(in), (*C.struct_halide_buffer_t)(out)))
}
