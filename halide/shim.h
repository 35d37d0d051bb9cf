// C side of package halide: the pipeline registry, the error handler, the
// shared OpenCL context, per-call frames and per-Array halide_buffer_t.
#ifndef RESIDENT_HALIDE_SHIM_H
#define RESIDENT_HALIDE_SHIM_H

#include <pthread.h>
#include <stdint.h>
#include "HalideRuntime.h"

#define GOHL_MSG 2048
#define GOHL_FEATURE_WORDS 2  // uint64 words of Halide 14's target features

struct gohl_cl;
struct gohl_cu;

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
    int32_t slot;    // the frame's Go call state (options.go), 0: none
    int32_t hooks;   // GOHL_HOOK_*: the call has Go hooks of its own
    int32_t target_asked;   // halide_can_use_target_features calls in this call (setters.c)
    int32_t target_chosen;  // one of them answered yes: target_features are its
    uint64_t target_features[GOHL_FEATURE_WORDS];
    int32_t texture;  // set when the runtime is given a kernel that uses images
    char texture_args[256];  // their kernel parameter names, space-separated
    int32_t len;
    char msg[GOHL_MSG];  // the runtime's messages, each NUL-terminated
} gohl_ctx;

// gohl_frame is everything one call passes to NAME_argv, kept in C memory
// and reused so a call allocates nothing.
typedef struct gohl_frame {
    gohl_ctx ctx;
    void *uc;      // what args[0] points at for __user_context
    void **args;   // one entry per argument of NAME_argv
    struct halide_scalar_value_t *scalars;  // one slot per argument, scalars only
} gohl_frame;

// gohl_buf mirrors one Array: its halide_buffer_t, dims, and how the device
// handle was made (wrapped root, or crop of a root at an offset).
typedef struct gohl_buf {
    struct halide_buffer_t b;
    int32_t kind;  // GOHL_DEV_*
    uint64_t mem;
    int64_t off;
    struct halide_dimension_t dims[];
} gohl_buf;

enum { GOHL_HOOK_PRINT = 1, GOHL_HOOK_TRACE = 2 };

// gohl_own_ctx is uc when it is one of the library's live ctxs, else the
// ctx of the call running on this thread (NULL outside calls); it
// compares addresses only, never reads a C caller's user_context.
gohl_ctx *gohl_own_ctx(void *uc);
gohl_ctx *gohl_current_ctx(void);  // the call running on this thread, NULL outside calls

enum { GOHL_DEV_NONE = 0, GOHL_DEV_WRAPPED = 1, GOHL_DEV_CROP = 2, GOHL_DEV_CUDA = 3 };

// gohl_ctx_enter and gohl_ctx_leave make a ctx known to the error handler
// and the context acquires for the runtime calls it is passed to.
int gohl_ctx_enter(const gohl_ctx *c);
void gohl_ctx_leave(const gohl_ctx *c);

int gohl_registry_len(void);
const struct halide_filter_metadata_t *gohl_registry_md(int i);
void *gohl_registry_argv(int i);

void gohl_ctx_init(gohl_ctx *c);
gohl_frame *gohl_frame_new(int nargs);
void gohl_frame_free(gohl_frame *f);
int gohl_call(uintptr_t argv, uintptr_t frame);
int gohl_call_loop(void *argv, gohl_frame *f, int64_t n);

gohl_buf *gohl_buf_new(int rank);
void gohl_buf_free(gohl_buf *b);
int gohl_buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off);
int gohl_buf_detach(gohl_ctx *ctx, gohl_buf *b);
int gohl_buf_reclaim(gohl_ctx *ctx, gohl_buf *b);

// gohl_cl is one OpenCL device as the Halide runtime sees it: its context
// and in-order queue, and the lock halide_acquire_cl_context holds.
typedef struct gohl_cl {
    void *ctx, *queue;
    pthread_mutex_t mu;
    int64_t acquires;
    int64_t gen;  // bumped when the device closes (atomic): its calls' acquires fail
    char opts[512];       // the device's OpenCL build options (setters.c)
    char opts_all[1024];  // the process-wide ones, then opts
    struct gohl_cl *next;  // the list of live devices (the fallback is the head)
} gohl_cl;

gohl_cl *gohl_cl_open(uintptr_t ctx, uintptr_t queue);
int gohl_cl_close(gohl_cl *cl);
int64_t gohl_cl_acquires(gohl_cl *cl);  // NULL: all devices
int gohl_cl_texture_probe(uintptr_t argv, gohl_frame *f);
int gohl_cl_release_mem(uintptr_t mem);
void gohl_runtime_transfers(int64_t *reads, int64_t *writes);

#endif
