package blur

// C code that configures the Halide runtime with Halide's own setters, as
// a C program linked with the pipelines would: package halide's tests use
// it to show that every setter is honoured (halide/setters.go's table).
// Not generated.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "HalideRuntime.h"
#include "HalideRuntimeOpenCL.h"

static atomic_long n_errors, n_prints, n_mallocs, n_frees, n_can_use, n_traces;
static halide_trace_t old_trace;
static atomic_uintptr_t last_uc;
static char last_error[1024];
static halide_error_handler_t old_error;
static halide_print_t old_print;
static halide_malloc_t old_malloc;
static halide_free_t old_free;
static halide_can_use_target_features_t old_can_use;
static int refuse_all;

static void on_error(void *uc, const char *msg) {
    atomic_fetch_add(&n_errors, 1);
    atomic_store(&last_uc, (uintptr_t)uc);
    strncpy(last_error, msg, sizeof last_error - 1);
}
static void on_print(void *uc, const char *msg) { (void)uc; (void)msg; atomic_fetch_add(&n_prints, 1); }
static void *on_malloc(void *uc, size_t n) { atomic_fetch_add(&n_mallocs, 1); return old_malloc(uc, n); }
static void on_free(void *uc, void *p) { atomic_fetch_add(&n_frees, 1); old_free(uc, p); }
static int on_can_use(int count, const uint64_t *f) {
    atomic_fetch_add(&n_can_use, 1);
    return refuse_all ? 0 : old_can_use(count, f);
}

static void set_error(int on) {
    if (on) old_error = halide_set_error_handler(on_error);
    else halide_set_error_handler(old_error);
}
static int32_t on_trace(void *uc, const struct halide_trace_event_t *e) { (void)uc; (void)e; atomic_fetch_add(&n_traces, 1); return 0; }
static void set_trace(int on) {
    if (on) old_trace = halide_set_custom_trace(on_trace);
    else halide_set_custom_trace(old_trace);
}
static void set_print(int on) {
    if (on) old_print = halide_set_custom_print(on_print);
    else halide_set_custom_print(old_print);
}
static void set_malloc(int on) {
    if (on) {
        old_malloc = halide_set_custom_malloc(on_malloc);
        old_free = halide_set_custom_free(on_free);
    } else {
        halide_set_custom_malloc(old_malloc);
        halide_set_custom_free(old_free);
    }
}
static void set_can_use(int on, int refuse) {
    refuse_all = refuse;
    if (on) old_can_use = halide_set_custom_can_use_target_features(on_can_use);
    else halide_set_custom_can_use_target_features(old_can_use);
}
static const char *get_last_error(void) { return last_error; }
static long get_n(int which) {
    switch (which) {
    case 0: return atomic_load(&n_errors);
    case 1: return atomic_load(&n_prints);
    case 2: return atomic_load(&n_mallocs);
    case 3: return atomic_load(&n_frees);
    case 5: return atomic_load(&n_traces);
    default: return atomic_load(&n_can_use);
    }
}
static uintptr_t get_last_uc(void) { return atomic_load(&last_uc); }
*/
import "C"

import "unsafe"

// CSetErrorHandler is C calling halide_set_error_handler with a handler
// that counts the messages and keeps the last (on), or restoring the
// handler it replaced (off).
func CSetErrorHandler(on bool) { C.set_error(cint(on)) }

// CErrors is what the handler of CSetErrorHandler heard: the number of
// messages, the last one and the user_context it came with.
func CErrors() (n int, last string, uc uintptr) {
	return int(C.get_n(0)), C.GoString(C.get_last_error()), uintptr(C.get_last_uc())
}

// CSetPrint is C calling halide_set_custom_print with a counting print
// (on), or restoring the one it replaced (off).
func CSetPrint(on bool) { C.set_print(cint(on)) }

// CPrints is the number of messages CSetPrint's print got.
func CPrints() int { return int(C.get_n(1)) }

// CSetTrace is C calling halide_set_custom_trace with a counting trace
// (on), or restoring the one it replaced (off).
func CSetTrace(on bool) { C.set_trace(cint(on)) }

// CTraces is the number of events CSetTrace's trace got.
func CTraces() int { return int(C.get_n(5)) }

// CSetMalloc is C calling halide_set_custom_malloc and _free with counting
// hooks over the ones they replace (on), or restoring those (off).
func CSetMalloc(on bool) { C.set_malloc(cint(on)) }

// CMallocs is the calls CSetMalloc's hooks counted.
func CMallocs() (mallocs, frees int) {
	return int(C.get_n(2)), int(C.get_n(3))
}

// CSetCanUse is C calling halide_set_custom_can_use_target_features with a
// hook that counts and refuses every target (refuse) or asks the one it
// replaced, or restoring that one (on false).
func CSetCanUse(on, refuse bool) { C.set_can_use(cint(on), cint(refuse)) }

// CCanUses is the calls CSetCanUse's hook counted.
func CCanUses() int { return int(C.get_n(4)) }

// CSetOpenCLBuildOptions is C calling halide_opencl_set_build_options.
func CSetOpenCLBuildOptions(opts string) {
	s := C.CString(opts)
	defer C.free(unsafe.Pointer(s))
	C.halide_opencl_set_build_options(s)
}

// CSetOpenCLPlatform is C calling halide_opencl_set_platform_name and
// halide_opencl_set_device_type.
func CSetOpenCLPlatform(name, typ string) {
	n, t := C.CString(name), C.CString(typ)
	defer C.free(unsafe.Pointer(n))
	defer C.free(unsafe.Pointer(t))
	C.halide_opencl_set_platform_name(n)
	C.halide_opencl_set_device_type(t)
}

func cint(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
