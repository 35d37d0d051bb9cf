#define _GNU_SOURCE  // memmem, RTLD_DEFAULT
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "HalideRuntimeCuda.h"
#include "HalideRuntimeOpenCL.h"
#include "shim.h"
#include "setters.h"

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

// A user_context is opaque: a C caller passes its own (Halide's
// user_context aottest passes 0xf00dd00d), so it is never dereferenced.
// The library's own ctxs are recognized by address: every frame's ctx is
// registered for the frame's life, and a ctx on the stack for the runtime
// calls it is passed to (ctx_enter/ctx_leave). The table is read only when
// a user_context is not this thread's call: on errors, and by acquires on
// worker threads or outside calls. Duplicates are allowed (nested enters).
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static const gohl_ctx **ctxs;
static int nctxs, capctxs;

static int ctx_enter(const gohl_ctx *c) {
    pthread_mutex_lock(&ctx_mu);
    if (nctxs == capctxs) {
        int n = capctxs ? 2 * capctxs : 64;
        const gohl_ctx **t = realloc(ctxs, n * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&ctx_mu);
            return 0;  // unknown to the table: its errors go to the thread's call or stderr
        }
        ctxs = t;
        capctxs = n;
    }
    ctxs[nctxs++] = c;
    pthread_mutex_unlock(&ctx_mu);
    return 1;
}

static void ctx_leave(const gohl_ctx *c) {
    pthread_mutex_lock(&ctx_mu);
    for (int i = nctxs - 1; i >= 0; i--) {
        if (ctxs[i] == c) {
            ctxs[i] = ctxs[--nctxs];
            break;
        }
    }
    pthread_mutex_unlock(&ctx_mu);
}

int gohl_ctx_enter(const gohl_ctx *c) { return ctx_enter(c); }
void gohl_ctx_leave(const gohl_ctx *c) { ctx_leave(c); }

// own_ctx is uc when it is one of the library's live ctxs, else NULL; it
// compares addresses only.
static gohl_ctx *own_ctx(void *uc) {
    if (!uc) return NULL;
    if (uc == (void *)cur) return cur;
    int found = 0;
    pthread_mutex_lock(&ctx_mu);
    for (int i = 0; i < nctxs && !found; i++) found = (void *)ctxs[i] == uc;
    pthread_mutex_unlock(&ctx_mu);
    return found ? (gohl_ctx *)uc : NULL;
}

gohl_ctx *gohl_own_ctx(void *uc) {
    gohl_ctx *c = own_ctx(uc);
    return c ? c : cur;
}

void halide_error(void *user_context, const char *msg) {
    gohl_ctx *c = own_ctx(user_context);
    if (!c) c = cur;
    // A handler C set (halide_set_error_handler) hears every message,
    // with the user_context Halide passed; the call still returns it.
    halide_error_handler_t h = gohl_c_error_handler();
    if (h) h(user_context, msg);
    if (!c) {
        if (h) return;
        // An error outside any call (e.g. from a C caller): don't lose it.
        (void)!write(2, msg, strlen(msg));
        return;
    }
    // Each message as given, NUL-terminated: Go keeps them exact
    // (Error.HalideMsg) and tidies them for Error.Msg.
    size_t n = strlen(msg);
    int room = GOHL_MSG - 1 - c->len;
    if (room <= 0) return;
    if ((int)n > room) n = room;
    memcpy(c->msg + c->len, msg, n);
    c->len += n;
    c->msg[c->len++] = 0;
}

// ---- calls ---------------------------------------------------------------

void gohl_ctx_init(gohl_ctx *c) { memset(c, 0, sizeof *c); }

gohl_frame *gohl_frame_new(int nargs) {
    gohl_frame *f = calloc(1, sizeof(gohl_frame));
    if (!f) return NULL;
    gohl_ctx_init(&f->ctx);
    f->uc = &f->ctx;
    f->args = calloc(nargs + 1, sizeof(void *));
    f->scalars = calloc(nargs + 1, sizeof(struct halide_scalar_value_t));
    if (!f->args || !f->scalars || !ctx_enter(&f->ctx)) {
        free(f->args);
        free(f->scalars);
        free(f);
        return NULL;
    }
    return f;
}

void gohl_frame_free(gohl_frame *f) {
    if (!f) return;
    ctx_leave(&f->ctx);
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
    gohl_ctx *outer = cur;
    cur = &f->ctx;
    int r = ((int (*)(void **))argv)(f->args);
    cur = outer;
    return r;
}

// gohl_current_ctx is the ctx of the call running on this thread, NULL
// outside gohl_call: hooks.c reads it to know whether Go is reachable.
gohl_ctx *gohl_current_ctx(void) { return cur; }

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
        int e = ctx_enter(ctx);  // the runtime's errors and acquires find ctx
        r = halide_device_release_crop(ctx, &b->b);
        if (e) ctx_leave(ctx);
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
    int e = ctx_enter(ctx);  // the runtime's errors and acquires find ctx
    int r = buf_set_device(ctx, b, mem, off);
    if (e) ctx_leave(ctx);
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
    int e = ctx_enter(ctx);  // the runtime's errors and acquires find ctx
    if (b->b.flags & halide_buffer_flag_device_dirty) r = halide_copy_to_host(ctx, &b->b);
    int r2 = halide_device_free(ctx, &b->b);
    if (e) ctx_leave(ctx);
    b->b.flags &= ~(uint64_t)halide_buffer_flag_device_dirty;
    b->b.device = 0;
    b->b.device_interface = NULL;
    b->kind = GOHL_DEV_NONE;
    return r ? r : r2;
}

// ---- OpenCL: Halide uses our contexts and queues -------------------------

// Every device a pipeline has run on has a gohl_cl; a call names its device
// in its gohl_ctx, so halide_acquire_cl_context hands the runtime that
// device's context and queue. Runtime calls outside a pipeline call (the
// release of a crop handle when an Array is closed) get the fallback: the
// most recently opened live device.
static pthread_mutex_t cl_list_mu = PTHREAD_MUTEX_INITIALIZER;
static gohl_cl *cl_live;  // live devices, newest first
static gohl_cl *cl_free;  // closed ones, reused: a late acquire never touches freed memory

// held is the device this thread acquired: release unlocks exactly that.
static __thread gohl_cl *held;
// acq_ctx is the call whose acquire is in progress on this thread, for the
// program-source check below (the OpenCL entry points get no user_context).
static __thread gohl_ctx *acq_ctx;

gohl_cl *gohl_cl_open(uintptr_t ctx, uintptr_t queue) {
    pthread_mutex_lock(&cl_list_mu);
    gohl_cl *cl = cl_free;
    if (cl) {
        cl_free = cl->next;
    } else {
        cl = calloc(1, sizeof *cl);
        if (!cl) {
            pthread_mutex_unlock(&cl_list_mu);
            return NULL;
        }
        pthread_mutex_init(&cl->mu, NULL);
    }
    pthread_mutex_lock(&cl->mu);
    cl->ctx = (void *)ctx;
    cl->queue = (void *)queue;
    cl->acquires = 0;
    cl->opts[0] = 0;  // a reused cl: the closed device's build options go with it
    pthread_mutex_unlock(&cl->mu);
    cl->next = cl_live;
    cl_live = cl;
    pthread_mutex_unlock(&cl_list_mu);
    return cl;
}

static int64_t cl_acquires_total;

int64_t gohl_cl_acquires(gohl_cl *cl) {
    return __atomic_load_n(cl ? &cl->acquires : &cl_acquires_total, __ATOMIC_RELAXED);
}

// gohl_cl_close releases the runtime's state for cl's context (its compiled
// programs, which hold references to the context) while the context and
// queue are still valid, then retires cl. halide_opencl_device_release
// acquires through the override below, so it sees cl's context.
int gohl_cl_close(gohl_cl *cl) {
    pthread_mutex_lock(&cl_list_mu);
    for (gohl_cl **p = &cl_live; *p; p = &(*p)->next) {
        if (*p == cl) {
            *p = cl->next;
            break;
        }
    }
    pthread_mutex_unlock(&cl_list_mu);
    gohl_ctx ctx;
    gohl_ctx_init(&ctx);
    ctx.cl = cl;
    ctx.cl_gen = __atomic_load_n(&cl->gen, __ATOMIC_ACQUIRE);
    int e = ctx_enter(&ctx);  // the acquire inside must find ctx.cl
    halide_device_release(&ctx, halide_opencl_device_interface());
    if (e) ctx_leave(&ctx);
    int r = 0;
    pthread_mutex_lock(&cl->mu);
    cl->ctx = NULL;
    cl->queue = NULL;
    // A call still holding cl (a C caller's, or one outside the gate) must
    // not run on the next device that reuses it: its acquires fail now.
    __atomic_add_fetch(&cl->gen, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&cl->mu);
    pthread_mutex_lock(&cl_list_mu);
    cl->next = cl_free;
    cl_free = cl;
    pthread_mutex_unlock(&cl_list_mu);
    return r;
}

// Strong definitions override the runtime's weak ones. Halide pairs every
// acquire with a release (even a failed one) and never nests them, and
// expects acquire to block while another thread holds the context.
int halide_acquire_cl_context(void *user_context, void **ctx, void **q, bool create) {
    (void)create;
    gohl_ctx *c = own_ctx(user_context);  // never read a C caller's user_context
    if (!c) c = cur;
    gohl_cl *cl = c ? c->cl : NULL;
    int64_t gen = cl ? c->cl_gen : 0;
    if (!cl) {
        pthread_mutex_lock(&cl_list_mu);
        cl = cl_live;
        if (cl) gen = __atomic_load_n(&cl->gen, __ATOMIC_ACQUIRE);
        pthread_mutex_unlock(&cl_list_mu);
    }
    held = NULL;
    acq_ctx = c;
    *ctx = NULL;
    *q = NULL;
    if (!cl) return -1;
    pthread_mutex_lock(&cl->mu);
    if (__atomic_load_n(&cl->gen, __ATOMIC_ACQUIRE) != gen) {
        // cl was retired (its device closed) since the call chose it, and
        // maybe reused for another device: refuse rather than run there.
        pthread_mutex_unlock(&cl->mu);
        return -1;
    }
    held = cl;
    __atomic_add_fetch(&cl->acquires, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&cl_acquires_total, 1, __ATOMIC_RELAXED);
    *ctx = cl->ctx;
    *q = cl->queue;
    return cl->ctx && cl->queue ? 0 : -1;
}

int halide_release_cl_context(void *user_context) {
    (void)user_context;
    gohl_cl *cl = held;
    held = NULL;
    acq_ctx = NULL;
    if (cl) pthread_mutex_unlock(&cl->mu);
    return 0;
}

// ---- OpenCL entry points: the runtime resolves them here ------------------

// The runtime finds OpenCL through halide_opencl_get_symbol. Ours returns
// the entry points of the libOpenCL.so.1 that device/opencl loaded with
// RTLD_GLOBAL (so pipelines and the library use one ICD loader), except
// clCreateProgramWithSource, which goes through a check first: a kernel
// that takes an image (a buffer stored as MemoryType::GPUTexture) is
// refused before it is built, and the call is marked, so the bridge can
// name the limitation instead of the runtime failing later with -42.
typedef void *(*create_program_fn)(void *, uint32_t, const char **, const size_t *, int32_t *);
static create_program_fn real_create_program;

// uses_images reports whether the source declares image parameters, and
// appends their names to names (space-separated, at most cap bytes).
static int uses_images(uint32_t n, const char **src, const size_t *len, char *names, size_t cap) {
    static const char *types[] = {"image1d_t", "image2d_t", "image3d_t", "image1d_array_t",
                                  "image2d_array_t", "image1d_buffer_t"};
    int found = 0;
    size_t used = names ? strlen(names) : 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t l = len && len[i] ? len[i] : strlen(src[i]);
        const char *end = src[i] + l;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            size_t tl = strlen(types[t]);
            for (const char *p = src[i]; (p = memmem(p, end - p, types[t], tl)); p += tl) {
                found = 1;
                const char *q = p + tl;
                while (q < end && *q == ' ') q++;
                const char *id = q;
                while (q < end && (*q == '_' || (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))) q++;
                size_t il = q - id;
                if (!names || il == 0 || used + il + 2 > cap) continue;
                if (used) names[used++] = ' ';
                memcpy(names + used, id, il);
                used += il;
                names[used] = 0;
            }
        }
    }
    return found;
}

static void *checked_create_program(void *ctx, uint32_t n, const char **src, const size_t *len, int32_t *err) {
    gohl_ctx *c = acq_ctx;
    if (uses_images(n, src, len, c ? c->texture_args : NULL, c ? sizeof c->texture_args : 0)) {
        if (c) c->texture = 1;
        if (err) *err = -59;  // CL_INVALID_OPERATION
        return NULL;
    }
    return real_create_program(ctx, n, src, len, err);
}

// The runtime's own transfers (halide_copy_to_host / _to_device inside a
// pipeline, which device.Stats cannot see) are counted here, so tests can
// show that a call moved nothing.
typedef int32_t (*enqueue_rw_fn)(void *, void *, uint32_t, size_t, size_t, void *, uint32_t, const void *, void *);
static enqueue_rw_fn real_read, real_write;
static int64_t runtime_reads, runtime_writes;

static int32_t counted_read(void *q, void *m, uint32_t b, size_t off, size_t n, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_reads, 1, __ATOMIC_RELAXED);
    return real_read(q, m, b, off, n, p, ne, ev, e);
}

static int32_t counted_write(void *q, void *m, uint32_t b, size_t off, size_t n, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_writes, 1, __ATOMIC_RELAXED);
    return real_write(q, m, b, off, n, p, ne, ev, e);
}

typedef int32_t (*enqueue_rect_fn)(void *, void *, uint32_t, const size_t *, const size_t *, const size_t *, size_t, size_t,
                                   size_t, size_t, void *, uint32_t, const void *, void *);
static enqueue_rect_fn real_read_rect, real_write_rect;

static int32_t counted_read_rect(void *q, void *m, uint32_t b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
                                 size_t bsp, size_t hrp, size_t hsp, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_reads, 1, __ATOMIC_RELAXED);
    return real_read_rect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, ne, ev, e);
}

static int32_t counted_write_rect(void *q, void *m, uint32_t b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
                                  size_t bsp, size_t hrp, size_t hsp, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_writes, 1, __ATOMIC_RELAXED);
    return real_write_rect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, ne, ev, e);
}

void gohl_runtime_transfers(int64_t *reads, int64_t *writes) {
    *reads = __atomic_load_n(&runtime_reads, __ATOMIC_RELAXED);
    *writes = __atomic_load_n(&runtime_writes, __ATOMIC_RELAXED);
}

static void *opencl_lib;

void *halide_opencl_get_symbol(void *user_context, const char *name) {
    (void)user_context;
    void *sym = dlsym(RTLD_DEFAULT, name);
    if (!sym) {
        // Not loaded yet (a pipeline called before device/opencl): load
        // the versioned name, which every ICD loader package ships.
        if (!opencl_lib) opencl_lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (opencl_lib) sym = dlsym(opencl_lib, name);
    }
    if (sym && strcmp(name, "clEnqueueReadBuffer") == 0) {
        real_read = (enqueue_rw_fn)sym;
        return (void *)counted_read;
    }
    if (sym && strcmp(name, "clEnqueueWriteBuffer") == 0) {
        real_write = (enqueue_rw_fn)sym;
        return (void *)counted_write;
    }
    if (sym && strcmp(name, "clEnqueueReadBufferRect") == 0) {
        real_read_rect = (enqueue_rect_fn)sym;
        return (void *)counted_read_rect;
    }
    if (sym && strcmp(name, "clEnqueueWriteBufferRect") == 0) {
        real_write_rect = (enqueue_rect_fn)sym;
        return (void *)counted_write_rect;
    }
    if (sym && strcmp(name, "clCreateProgramWithSource") == 0) {
        real_create_program = (create_program_fn)sym;
        return (void *)checked_create_program;
    }
    return sym;
}

// gohl_cl_texture_probe runs argv once with f's arguments (bounds queries:
// no host, no device) so the runtime builds the pipeline's kernels, which
// it does on entry, before anything else; it reports whether a kernel
// takes an image. Nothing is computed.
int gohl_cl_texture_probe(uintptr_t argv, gohl_frame *f) {
    f->ctx.texture = 0;
    f->ctx.texture_args[0] = 0;
    gohl_call(argv, (uintptr_t)f);
    return f->ctx.texture;
}

// gohl_cl_release_mem drops one reference to a cl_mem (the one a C
// buffer's handle held, when the library takes the allocation over).
int gohl_cl_release_mem(uintptr_t mem) {
    int32_t (*rel)(void *) = (int32_t (*)(void *))halide_opencl_get_symbol(NULL, "clReleaseMemObject");
    return rel ? rel((void *)mem) : -1;
}
