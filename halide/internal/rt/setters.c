// Halide's runtime setters, honoured although the library overrides the
// functions they configure (setters.go has the table). The runtime reads
// what halide_set_error_handler, halide_set_custom_print and friends set
// only inside its own halide_error, halide_print, ...; the library
// replaces those, so it replaces the setters too and calls what C set.
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "HalideRuntime.h"
#include "ctx.h"
#include "setters.h"

// ---- error handler --------------------------------------------------------

static _Atomic(halide_error_handler_t) c_error;

// routed_error stands for the library's own handling (the message goes to
// the call that caused it) where Halide's setter would return
// halide_default_error, which aborts the process: a C handler that chains
// to the previous one, or restores it, gets no abort.
static void routed_error(void *uc, const char *msg) {
    (void)uc;
    (void)msg;
}

halide_error_handler_t halide_set_error_handler(halide_error_handler_t h) {
    if (h == routed_error || h == halide_default_error) h = NULL;
    halide_error_handler_t old = atomic_exchange(&c_error, h);
    return old ? old : routed_error;
}

void halide_error(void *user_context, const char *msg) {
    gohl_ctx *c = gohl_own_ctx(user_context);
    // A handler C set (halide_set_error_handler) hears every message,
    // with the user_context Halide passed; the call still returns it.
    halide_error_handler_t h = atomic_load(&c_error);
    if (h) h(user_context, msg);
    if (!c) {
        if (h) return;
        // An error outside any call (e.g. from a C caller): don't lose it.
        (void)!write(2, msg, strlen(msg));
        return;
    }
    gohl_ctx_append(c, msg);
}

// ---- print and trace -------------------------------------------------------

static _Atomic(halide_print_t) c_print;
static _Atomic(halide_trace_t) c_trace;

halide_print_t halide_set_custom_print(halide_print_t p) {
    halide_print_t old = atomic_exchange(&c_print, p);
    return old ? old : halide_default_print;
}

halide_trace_t halide_set_custom_trace(halide_trace_t t) {
    halide_trace_t old = atomic_exchange(&c_trace, t);
    return old ? old : halide_default_trace;
}

void gohl_c_print(void *uc, const char *msg) {
    halide_print_t p = atomic_load(&c_print);
    (p ? p : halide_default_print)(uc, msg);
}

int32_t gohl_c_trace(void *uc, const struct halide_trace_event_t *e) {
    halide_trace_t t = atomic_load(&c_trace);
    return (t ? t : halide_default_trace)(uc, e);
}

// ---- can_use_target_features ---------------------------------------------

static _Atomic(halide_can_use_target_features_t) c_can_use;

halide_can_use_target_features_t halide_set_custom_can_use_target_features(halide_can_use_target_features_t f) {
    halide_can_use_target_features_t old = atomic_exchange(&c_can_use, f);
    return old ? old : halide_default_can_use_target_features;
}

// A multi-target pipeline calls this once per target but the last (the
// fallback), in the order listed, on the calling thread, the first time
// it runs; it keeps its choice for the process. The call's ctx holds
// the features it refuses (Options.RefuseTargetFeatures) and records the
// features of the target chosen, for Pipeline.Target.
int halide_can_use_target_features(int count, const uint64_t *features) {
    halide_can_use_target_features_t f = atomic_load(&c_can_use);
    int ok = (f ? f : halide_default_can_use_target_features)(count, features);
    gohl_ctx *c = gohl_current_ctx();
    for (int i = 0; c && ok && i < count && i < GOHL_FEATURE_WORDS; i++) {
        if (features[i] & c->target_refused[i]) ok = 0;
    }
    if (c) {
        c->target_asked++;
        if (ok && !c->target_chosen) {
            c->target_chosen = 1;
            for (int i = 0; i < GOHL_FEATURE_WORDS; i++) c->target_features[i] = i < count ? features[i] : 0;
        }
    }
    return ok;
}

