// Halide's runtime setters, honoured although the library overrides the
// functions they configure (setters.go has the table). The runtime reads
// what halide_set_error_handler, halide_set_custom_print and friends set
// only inside its own halide_error, halide_print, ...; the library
// replaces those, so it replaces the setters too and calls what C set.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "HalideRuntimeOpenCL.h"
#include "shim.h"
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

halide_error_handler_t gohl_c_error_handler(void) { return atomic_load(&c_error); }

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
static _Atomic uint64_t refused[GOHL_FEATURE_WORDS];  // features Go refuses (RefuseTargetFeatures)

halide_can_use_target_features_t halide_set_custom_can_use_target_features(halide_can_use_target_features_t f) {
    halide_can_use_target_features_t old = atomic_exchange(&c_can_use, f);
    return old ? old : halide_default_can_use_target_features;
}

void gohl_refuse_features(int word, uint64_t bits) { atomic_fetch_or(&refused[word], bits); }

// A multi-target pipeline calls this once per target but the last (the
// fallback), in the order listed, on the calling thread, the first time
// it runs; it keeps its choice for the process. The call's ctx records
// the features of the target chosen, for Pipeline.Target.
int halide_can_use_target_features(int count, const uint64_t *features) {
    halide_can_use_target_features_t f = atomic_load(&c_can_use);
    int ok = (f ? f : halide_default_can_use_target_features)(count, features);
    for (int i = 0; ok && i < count && i < GOHL_FEATURE_WORDS; i++) {
        if (features[i] & atomic_load(&refused[i])) ok = 0;
    }
    gohl_ctx *c = gohl_current_ctx();
    if (c) {
        c->target_asked++;
        if (ok && !c->target_chosen) {
            c->target_chosen = 1;
            for (int i = 0; i < GOHL_FEATURE_WORDS; i++) c->target_features[i] = i < count ? features[i] : 0;
        }
    }
    return ok;
}

// ---- OpenCL build options --------------------------------------------------

static pthread_mutex_t opts_mu = PTHREAD_MUTEX_INITIALIZER;
static char *c_opts;      // halide_opencl_set_build_options's copy
static int c_opts_set;

void halide_opencl_set_build_options(const char *n) {
    char *s = n ? strdup(n) : NULL;
    pthread_mutex_lock(&opts_mu);
    // The old copy is kept: a build may be reading it (Halide's own
    // "valid until the next call" is not enough with several threads).
    c_opts = s;
    c_opts_set = 1;
    pthread_mutex_unlock(&opts_mu);
}

// process_opts is C's setting, else $HL_OCL_BUILD_OPTIONS, as Halide's
// default reads them.
static const char *process_opts(void) {
    pthread_mutex_lock(&opts_mu);
    const char *s = c_opts_set ? c_opts : getenv("HL_OCL_BUILD_OPTIONS");
    pthread_mutex_unlock(&opts_mu);
    return s ? s : "";
}

// The runtime asks while it holds the call's device (acquire), so the
// device's options and buffer are stable here.
const char *halide_opencl_get_build_options(void *user_context) {
    const char *p = process_opts();
    gohl_ctx *c = gohl_own_ctx(user_context);
    gohl_cl *cl = c ? c->cl : NULL;
    if (!cl || !cl->opts[0]) return p;
    if (!p[0]) return cl->opts;
    snprintf(cl->opts_all, sizeof cl->opts_all, "%s %s", p, cl->opts);
    return cl->opts_all;
}

// gohl_cl_set_opts sets cl's own build options; it fails (returns 1) once
// the runtime has built kernels on cl, as those keep their options.
int gohl_cl_set_opts(gohl_cl *cl, const char *opts) {
    pthread_mutex_lock(&cl->mu);
    int built = __atomic_load_n(&cl->acquires, __ATOMIC_RELAXED) > 0;
    if (!built) {
        strncpy(cl->opts, opts, sizeof cl->opts - 1);
        cl->opts[sizeof cl->opts - 1] = 0;
    }
    pthread_mutex_unlock(&cl->mu);
    return built;
}

// gohl_build_options is what a build on cl gets: the process-wide
// options, then cl's (NULL: the process-wide ones), for error messages.
const char *gohl_build_options(gohl_cl *cl) {
    static __thread char buf[1024];
    const char *p = process_opts();
    pthread_mutex_lock(&cl->mu);
    snprintf(buf, sizeof buf, "%s%s%s", p, p[0] && cl->opts[0] ? " " : "", cl->opts);
    pthread_mutex_unlock(&cl->mu);
    return buf;
}
