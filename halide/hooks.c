// Go hooks: the entry point that may call back into Go, print and trace
// routed to Go, and the extern-stage dispatcher. See hooks.go.
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "hooks.h"
#include "_cgo_export.h"

// fast is set while this thread is inside gohl_call_fast, the entry point
// marked #cgo nocallback: calling Go from here would kill the process, so
// every hook falls back to C. Other threads (Halide's workers) are free to
// call Go: cgo's nocallback check is per goroutine.
static __thread int fast;

int gohl_call_fast(uintptr_t argv, uintptr_t frame) {
    fast = 1;
    int r = gohl_call(argv, frame);
    fast = 0;
    return r;
}

// gohl_call_cb may call back into Go. It may run inside a Go callback of
// another call (an extern stage that calls a pipeline), so it restores
// the thread's state instead of clearing it.
int gohl_call_cb(uintptr_t argv, uintptr_t frame) {
    int was = fast;
    fast = 0;
    int r = gohl_call(argv, frame);
    fast = was;
    return r;
}

static halide_print_t default_print;
static halide_trace_t default_trace;
static atomic_int go_print, go_trace;

static void hook_print(void *uc, const char *msg) {
    if (fast || !atomic_load_explicit(&go_print, memory_order_relaxed)) {
        default_print(uc, msg);
        return;
    }
    gohlPrint((char *)msg, (int)strlen(msg));
}

static int32_t hook_trace(void *uc, const struct halide_trace_event_t *e) {
    if (fast || !atomic_load_explicit(&go_trace, memory_order_relaxed)) return default_trace(uc, e);
    return gohlTrace((struct halide_trace_event_t *)e);
}

int32_t gohl_default_trace(void *uc, const struct halide_trace_event_t *e) { return default_trace(uc, e); }

// gohl_hooks_init installs the hooks once, from Go's init; until Go asks
// for a hook they pass everything to the runtime's defaults.
void gohl_hooks_init(void) {
    if (default_print) return;
    default_print = halide_set_custom_print(hook_print);
    default_trace = halide_set_custom_trace(hook_trace);
}

void gohl_hooks_enable(int print, int trace) {
    atomic_store(&go_print, print);
    atomic_store(&go_trace, trace);
}

// gohl_report hands a message to the error handler, which routes it to
// the running call (through user_context, or this thread's call).
void gohl_report(void *uc, const char *msg) { halide_error(uc, msg); }

int gohl_extern_dispatch(const char *name, int nargs, const uint32_t *kinds, const uint64_t *vals) {
    if (fast) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "extern stage %s is a Go function, but the pipeline was called through the entry point that cannot call Go: "
                 "call Pipeline.WithCallbacks (halide-gen's wrapper does it for pipelines with Go externs)",
                 name);
        halide_error(NULL, msg);
        return -1;
    }
    return gohlExtern((char *)name, nargs, (uint32_t *)kinds, (uint64_t *)vals);
}
