#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "HalideRuntimeOpenCL.h"
#include "shim.h"

#define GOHL_MAGIC 0x7265736964656e74ull  // "resident"

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

// ---- errors: a strong halide_error replaces the aborting default ----------

// cur is the frame of the call running on this thread, for pipelines built
// without user_context; it is only read inside the same C call.
static __thread gohl_ctx *cur;

void halide_error(void *user_context, const char *msg) {
    gohl_ctx *c = (gohl_ctx *)user_context;
    if (!c || c->magic != GOHL_MAGIC) c = cur;
    if (!c) {
        // An error outside any call (e.g. from a C caller): don't lose it.
        (void)!write(2, msg, strlen(msg));
        return;
    }
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) n--;
    if (n == 0) return;
    int room = GOHL_MSG - 1 - c->len;
    if (c->len > 0 && room > 2) {
        memcpy(c->msg + c->len, "; ", 2);
        c->len += 2;
        room -= 2;
    }
    if (room <= 0) return;
    if ((int)n > room) n = room;
    memcpy(c->msg + c->len, msg, n);
    c->len += n;
    c->msg[c->len] = 0;
}

// ---- calls ---------------------------------------------------------------

void gohl_ctx_init(gohl_ctx *c) {
    memset(c, 0, sizeof *c);
    c->magic = GOHL_MAGIC;
}

gohl_frame *gohl_frame_new(int nargs) {
    gohl_frame *f = calloc(1, sizeof(gohl_frame));
    if (!f) return NULL;
    gohl_ctx_init(&f->ctx);
    f->uc = &f->ctx;
    f->args = calloc(nargs + 1, sizeof(void *));
    f->scalars = calloc(nargs + 1, sizeof(struct halide_scalar_value_t));
    if (!f->args || !f->scalars) {
        gohl_frame_free(f);
        return NULL;
    }
    return f;
}

void gohl_frame_free(gohl_frame *f) {
    if (!f) return;
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
    cur = &f->ctx;
    int r = ((int (*)(void **))argv)(f->args);
    cur = NULL;
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
        r = halide_opencl_detach_cl_mem(ctx, &b->b);
    } else if (b->kind == GOHL_DEV_CROP) {
        r = halide_device_release_crop(ctx, &b->b);
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
int gohl_buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off) {
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
    if (b->b.flags & halide_buffer_flag_device_dirty) r = halide_copy_to_host(ctx, &b->b);
    int r2 = halide_device_free(ctx, &b->b);
    b->b.flags &= ~(uint64_t)halide_buffer_flag_device_dirty;
    b->b.device = 0;
    b->b.device_interface = NULL;
    b->kind = GOHL_DEV_NONE;
    return r ? r : r2;
}

// ---- OpenCL: Halide uses our context and queue ---------------------------

static pthread_mutex_t cl_mu = PTHREAD_MUTEX_INITIALIZER;
static void *cl_ctx, *cl_queue;
static int cl_acquires;

void gohl_set_cl(uintptr_t ctx, uintptr_t queue) {
    pthread_mutex_lock(&cl_mu);
    cl_ctx = (void *)ctx;
    cl_queue = (void *)queue;
    pthread_mutex_unlock(&cl_mu);
}

int gohl_cl_acquires(void) { return __atomic_load_n(&cl_acquires, __ATOMIC_RELAXED); }

// Strong definitions override the runtime's weak ones. Halide pairs every
// acquire with a release (even a failed one) and never nests them, and
// expects acquire to block while another thread holds the context.
int halide_acquire_cl_context(void *user_context, void **ctx, void **q, bool create) {
    (void)user_context;
    (void)create;
    pthread_mutex_lock(&cl_mu);
    __atomic_add_fetch(&cl_acquires, 1, __ATOMIC_RELAXED);
    *ctx = cl_ctx;
    *q = cl_queue;
    return cl_ctx && cl_queue ? 0 : -1;
}

int halide_release_cl_context(void *user_context) {
    (void)user_context;
    pthread_mutex_unlock(&cl_mu);
    return 0;
}
