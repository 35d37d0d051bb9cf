// C side of package halide: the pipeline registry, per-call frames and
// per-Array halide_buffer_t with their device handles. It builds on ctx.c
// only; the device glue (cl.c, cuda.c) and the hooks build on it.
#include <stdlib.h>
#include <string.h>

#include "HalideRuntimeCuda.h"
#include "HalideRuntimeOpenCL.h"
#include "shim.h"

// ---- registry: -e registration's static initializers call this ----------

typedef struct {
    int (*argv)(void **);
    const struct halide_filter_metadata_t *md;
} entry;

static entry *registry;
static int nregistry, capregistry;

// Registration runs before main, single-threaded; Go only reads the table.
void halide_register_argv_and_metadata(int (*argv)(void **),
                                       const struct halide_filter_metadata_t *md,
                                       const char *const *extra) {
    (void)extra;
    if (nregistry == capregistry) {
        int c = capregistry ? 2 * capregistry : 16;
        entry *r = realloc(registry, c * sizeof(entry));
        if (!r) return;
        registry = r;
        capregistry = c;
    }
    registry[nregistry].argv = argv;
    registry[nregistry].md = md;
    nregistry++;
}

int gohl_registry_len(void) { return nregistry; }
const struct halide_filter_metadata_t *gohl_registry_md(int i) { return registry[i].md; }
void *gohl_registry_argv(int i) { return (void *)registry[i].argv; }

// ---- calls ---------------------------------------------------------------

gohl_frame *gohl_frame_new(int nargs) {
    gohl_frame *f = calloc(1, sizeof(gohl_frame));
    if (!f) return NULL;
    gohl_ctx_init(&f->ctx);
    f->uc = &f->ctx;
    f->args = calloc(nargs + 1, sizeof(void *));
    f->scalars = calloc(nargs + 1, sizeof(struct halide_scalar_value_t));
    if (!f->args || !f->scalars || !gohl_ctx_enter(&f->ctx)) {
        free(f->args);
        free(f->scalars);
        free(f);
        return NULL;
    }
    return f;
}

void gohl_frame_free(gohl_frame *f) {
    if (!f) return;
    gohl_ctx_leave(&f->ctx);
    free(f->args);
    free(f->scalars);
    free(f);
}

// gohl_call takes integers, not pointers, so cgo has no pointer to check
// on the hot path: both point to C memory.
int gohl_call(uintptr_t argv, uintptr_t frame) {
    gohl_frame *f = (gohl_frame *)frame;
    f->ctx.len = 0;
    f->ctx.msg[0] = 0;
    f->ctx.target_asked = 0;
    f->ctx.target_chosen = 0;
    // A Go extern stage may call a pipeline inside another's call
    // (hooks.go): restore the outer call's ctx, don't clear it.
    gohl_ctx *outer = gohl_swap_current(&f->ctx);
    int r = ((int (*)(void **))argv)(f->args);
    gohl_swap_current(outer);
    return r;
}

// gohl_call_loop is the C baseline of the call-overhead benchmark: the same
// call n times with no Go in between.
int gohl_call_loop(void *argv, gohl_frame *f, int64_t n) {
    int r = 0;
    for (int64_t i = 0; i < n && r == 0; i++) r = gohl_call((uintptr_t)argv, (uintptr_t)f);
    return r;
}

// ---- buffers -------------------------------------------------------------

gohl_buf *gohl_buf_new(int rank) {
    gohl_buf *b = calloc(1, sizeof(gohl_buf) + rank * sizeof(struct halide_dimension_t));
    if (!b) return NULL;
    b->b.dimensions = rank;
    b->b.dim = b->dims;
    return b;
}

void gohl_buf_free(gohl_buf *b) { free(b); }

// gohl_buf_detach drops the Halide device handle without freeing our
// cl_mem: the allocation belongs to our allocator, not to Halide.
int gohl_buf_detach(gohl_ctx *ctx, gohl_buf *b) {
    int r = 0;
    if (b->kind == GOHL_DEV_WRAPPED) {
        // Frees the runtime's handle: no context acquired, so ctx need not
        // be registered (set_device's fast path relies on it).
        r = halide_opencl_detach_cl_mem(ctx, &b->b);
    } else if (b->kind == GOHL_DEV_CUDA) {
        // A CUdeviceptr of ours: the runtime drops it and frees nothing.
        r = halide_cuda_detach_device_ptr(ctx, &b->b);
    } else if (b->kind == GOHL_DEV_CROP) {
        int e = gohl_ctx_enter(ctx);  // the runtime's errors and acquires find ctx
        r = halide_device_release_crop(ctx, &b->b);
        if (e) gohl_ctx_leave(ctx);
    }
    b->kind = GOHL_DEV_NONE;
    b->mem = 0;
    b->off = 0;
    b->b.device = 0;
    b->b.device_interface = NULL;
    b->b.flags &= ~(uint64_t)halide_buffer_flag_device_dirty;
    return r;
}

// gohl_buf_set_device points the buffer at byte off of our cl_mem. Halide 14
// represents a crop as {cl_mem, offset} and makes a sub-buffer per kernel
// launch, so an offset goes through halide_device_crop of a 1-D byte view of
// the root: the public way to build that handle. The Go caller skips the call
// when mem and off are unchanged.
static int buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off);

int gohl_buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off) {
    if (off == 0 && b->kind != GOHL_DEV_CROP) {
        // Wrapping and unwrapping a cl_mem neither acquire a context nor
        // fail once the old handle is dropped: no registration needed
        // (the common case: a call frame's buffer getting another Array).
        return buf_set_device(ctx, b, mem, off);
    }
    int e = gohl_ctx_enter(ctx);  // the runtime's errors and acquires find ctx
    int r = buf_set_device(ctx, b, mem, off);
    if (e) gohl_ctx_leave(ctx);
    return r;
}

static int buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off) {
    int r = gohl_buf_detach(ctx, b);
    if (r) return r;
    if (mem == 0) return 0;
    if (off == 0) {
        r = halide_opencl_wrap_cl_mem(ctx, &b->b, mem);
        if (r) return r;
        b->kind = GOHL_DEV_WRAPPED;
    } else {
        struct halide_dimension_t sd = {0, (int32_t)(off + 1), 1, 0};
        struct halide_dimension_t dd = {(int32_t)off, 1, 1, 0};
        struct halide_buffer_t src, dst;
        memset(&src, 0, sizeof src);
        memset(&dst, 0, sizeof dst);
        src.type.code = halide_type_uint;
        src.type.bits = 8;
        src.type.lanes = 1;
        src.dimensions = 1;
        src.dim = &sd;
        dst.type = src.type;
        dst.dimensions = 1;
        dst.dim = &dd;
        r = halide_opencl_wrap_cl_mem(ctx, &src, mem);
        if (r) return r;
        r = halide_device_crop(ctx, &src, &dst);
        halide_opencl_detach_cl_mem(ctx, &src);
        if (r) return r;
        b->b.device = dst.device;
        b->b.device_interface = dst.device_interface;
        b->kind = GOHL_DEV_CROP;
    }
    b->mem = mem;
    b->off = off;
    return 0;
}

// gohl_buf_reclaim handles a device allocation Halide made by itself (it
// should not happen: every buffer arrives with ours): copy it to host and
// free it, clearing device_dirty, which Halide 14's device_free leaves set.
int gohl_buf_reclaim(gohl_ctx *ctx, gohl_buf *b) {
    int r = 0;
    int e = gohl_ctx_enter(ctx);  // the runtime's errors and acquires find ctx
    if (b->b.flags & halide_buffer_flag_device_dirty) r = halide_copy_to_host(ctx, &b->b);
    int r2 = halide_device_free(ctx, &b->b);
    if (e) gohl_ctx_leave(ctx);
    b->b.flags &= ~(uint64_t)halide_buffer_flag_device_dirty;
    b->b.device = 0;
    b->b.device_interface = NULL;
    b->kind = GOHL_DEV_NONE;
    return r ? r : r2;
}

