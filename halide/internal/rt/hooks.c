// Go hooks: the entry point that may call back into Go, print and trace
// routed to Go, and the extern-stage dispatcher. See hooks.go.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "hooks.h"
#include "setters.h"
#include "_cgo_export.h"

// Go is reachable from a thread unless the thread is inside gohl_call
// entered from Go as the fast entry point (#cgo nocallback): calling Go
// from there would kill the process, so every hook falls back to C. shim.c
// keeps the running call's ctx per thread; cb_ctx is the ctx of the
// innermost call this thread entered through gohl_call_cb. A pipeline
// called by a Go extern stage through the fast entry point has a ctx of
// its own, so it is told apart from the callback call around it. Halide's
// worker threads run no call of their own (NULL): cgo lets them call Go.
static __thread gohl_ctx *cb_ctx;

static int go_reachable(void) {
    gohl_ctx *c = gohl_current_ctx();
    return c == NULL || c == cb_ctx;
}

// gohl_call_cb is the entry point that may call back into Go. It may run
// inside a Go callback of another call (an extern stage that calls a
// pipeline), so it restores the thread's state instead of clearing it.
int gohl_call_cb(uintptr_t argv, uintptr_t frame) {
    gohl_ctx *was = cb_ctx;
    cb_ctx = &((gohl_frame *)frame)->ctx;
    int r = gohl_call(argv, frame);
    cb_ctx = was;
    return r;
}

// What C set with halide_set_custom_print / _trace, else the runtime's
// defaults (setters.c): calls without a Go hook get it.
#define default_print gohl_c_print
#define default_trace gohl_c_trace

// call_hooks is the GOHL_HOOK_* bits of the call uc names (or this
// thread's call), and its Go state's slot.
static int call_hooks(void *uc, int32_t *slot) {
    gohl_ctx *c = gohl_own_ctx(uc);
    *slot = c ? c->slot : 0;
    return c ? c->hooks : 0;
}

static void hook_print(void *uc, const char *msg) {
    int32_t slot;
    int own = call_hooks(uc, &slot) & GOHL_HOOK_PRINT;
    if (!own || !go_reachable()) {
        default_print(uc, msg);
        return;
    }
    gohlPrint(slot, (char *)msg, (int)strlen(msg));
}

static int32_t hook_trace(void *uc, const struct halide_trace_event_t *e) {
    int32_t slot;
    int own = call_hooks(uc, &slot) & GOHL_HOOK_TRACE;
    if (!own || !go_reachable()) return default_trace(uc, e);
    return gohlTrace(slot, (struct halide_trace_event_t *)e);
}

int32_t gohl_default_trace(void *uc, const struct halide_trace_event_t *e) { return default_trace(uc, e); }
void gohl_default_print(void *uc, const char *msg) { default_print(uc, msg); }

// The library's halide_print and halide_trace replace the runtime's
// (whose setters setters.c replaces): for calls without a Go hook they
// pass everything to what C set, else the runtime's defaults.
void halide_print(void *uc, const char *msg) { hook_print(uc, msg); }
int32_t halide_trace(void *uc, const struct halide_trace_event_t *e) { return hook_trace(uc, e); }

// gohl_report hands a message to the error handler, which routes it to
// the running call (through user_context, or this thread's call).
void gohl_report(void *uc, const char *msg) { halide_error(uc, msg); }

int gohl_extern_dispatch(const char *name, int nargs, const uint32_t *kinds, const uint64_t *vals) {
    if (!go_reachable()) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "extern stage %s is a Go function, but the pipeline was called through the entry point that cannot call Go: "
                 "call through Pipeline.WithCallbacks (halide-gen's wrapper does it for pipelines with Go externs) or with Options.Callbacks",
                 name);
        halide_error(NULL, msg);
        return -1;
    }
    // The call's Go state: named by a leading user_context argument, else
    // this thread's call.
    void *uc = nargs > 0 && kinds[0] == ((3u << 8) | 64u) ? (void *)(uintptr_t)vals[0] : NULL;
    gohl_ctx *c = gohl_own_ctx(uc);
    return gohlExtern(c ? c->slot : 0, (char *)name, nargs, (uint32_t *)kinds, (uint64_t *)vals);
}
