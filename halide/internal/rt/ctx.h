// The call contexts of package halide's C side: a call's gohl_ctx is its
// user_context, which the runtime's hooks (errors, context acquires,
// print, trace, target choice) get back. This unit depends on no other of
// the package: shim.c, cl.c, cuda.c, setters.c and hooks.c all build on it.
#ifndef RESIDENT_HALIDE_CTX_H
#define RESIDENT_HALIDE_CTX_H

#include <stdint.h>

#define GOHL_MSG 2048
#define GOHL_FEATURE_WORDS 2  // uint64 words of Halide 14's target features

struct gohl_cl;
struct gohl_cu;
struct gohl_clrec;

// gohl_ctx is the user_context of one call, which the error handler and
// halide_acquire_cl_context know by its address only (shim.c: a C caller's
// user_context is never read): the handler appends the runtime's messages
// here, so concurrent calls never mix their messages; the acquire hands
// the runtime the context and queue of cl, the call's OpenCL device (NULL:
// the fallback device).
typedef struct gohl_ctx {
    struct gohl_cl *cl;
    int64_t cl_gen;  // cl->gen when the call chose cl: a recycled cl refuses the call
    struct gohl_cu *cu;  // the call's CUDA device (cuda.c), NULL: not a CUDA call of ours
    int64_t cu_gen;      // cu->gen when the call chose cu
    struct gohl_clrec *clrec;  // non-NULL: record the call's OpenCL launches (clrec.c)
    int32_t slot;    // the frame's Go call state (options.go), 0: none
    int32_t hooks;   // GOHL_HOOK_*: the call has Go hooks of its own
    int32_t target_asked;   // halide_can_use_target_features calls in this call (setters.c)
    int32_t target_chosen;  // one of them answered yes: target_features are its
    uint64_t target_features[GOHL_FEATURE_WORDS];
    uint64_t target_refused[GOHL_FEATURE_WORDS];  // features this call refuses (Options.RefuseTargetFeatures)
    int32_t texture;  // set when the runtime is given a kernel that uses images
    char texture_args[256];  // their kernel parameter names, space-separated
    int32_t len;
    char msg[GOHL_MSG];  // the runtime's messages, each NUL-terminated
} gohl_ctx;

enum { GOHL_HOOK_PRINT = 1, GOHL_HOOK_TRACE = 2 };

void gohl_ctx_init(gohl_ctx *c);

// gohl_ctx_enter and gohl_ctx_leave make a ctx known to the error handler
// and the context acquires for the runtime calls it is passed to.
int gohl_ctx_enter(const gohl_ctx *c);
void gohl_ctx_leave(const gohl_ctx *c);

// gohl_own_ctx is uc when it is one of the library's live ctxs, else the
// ctx of the call running on this thread (NULL outside calls); it
// compares addresses only, never reads a C caller's user_context.
gohl_ctx *gohl_own_ctx(void *uc);
gohl_ctx *gohl_current_ctx(void);  // the call running on this thread, NULL outside calls
// gohl_swap_current makes c this thread's call and returns the one before.
gohl_ctx *gohl_swap_current(gohl_ctx *c);
// gohl_ctx_append appends one runtime message to c's buffer.
void gohl_ctx_append(gohl_ctx *c, const char *msg);

#endif
