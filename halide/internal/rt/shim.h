// C side of package halide: the pipeline registry, per-call frames and
// per-Array halide_buffer_t (shim.c).
#ifndef RESIDENT_HALIDE_SHIM_H
#define RESIDENT_HALIDE_SHIM_H

#include <stdint.h>
#include "HalideRuntime.h"
#include "ctx.h"

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

enum { GOHL_DEV_NONE = 0, GOHL_DEV_WRAPPED = 1, GOHL_DEV_CROP = 2, GOHL_DEV_CUDA = 3 };

int gohl_registry_len(void);
const struct halide_filter_metadata_t *gohl_registry_md(int i);
void *gohl_registry_argv(int i);

gohl_frame *gohl_frame_new(int nargs);
void gohl_frame_free(gohl_frame *f);
int gohl_call(uintptr_t argv, uintptr_t frame);
int gohl_call_loop(void *argv, gohl_frame *f, int64_t n);

gohl_buf *gohl_buf_new(int rank);
void gohl_buf_free(gohl_buf *b);
int gohl_buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off);
int gohl_buf_detach(gohl_ctx *ctx, gohl_buf *b);
int gohl_buf_reclaim(gohl_ctx *ctx, gohl_buf *b);

#endif
