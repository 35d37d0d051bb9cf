// OpenCL glue of package halide (opencl.go): Halide's OpenCL runtime runs a
// call on the call's device (its context and queue), resolves OpenCL from
// the library's libOpenCL.so.1, counts the copies it makes by itself, and
// builds kernels with the device's build options.
#define _GNU_SOURCE  // memmem, RTLD_DEFAULT
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HalideRuntimeOpenCL.h"
#include "cl.h"

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
    int e = gohl_ctx_enter(&ctx);  // the acquire inside must find ctx.cl
    halide_device_release(&ctx, halide_opencl_device_interface());
    if (e) gohl_ctx_leave(&ctx);
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
    gohl_ctx *c = gohl_own_ctx(user_context);  // never read a C caller's user_context
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

// The capture recorder's hooks (clrec.c, a layer above this one).
static gohl_cl_wrap_fn wrap_hook;
static gohl_cl_note_fn note_hook;

void gohl_cl_set_hooks(gohl_cl_wrap_fn wrap, gohl_cl_note_fn note) {
    wrap_hook = wrap;
    note_hook = note;
}

static void note_transfer(const char *what) {
    if (note_hook) note_hook(what);
}

// The runtime's own transfers (halide_copy_to_host / _to_device inside a
// pipeline, which device.Stats cannot see) are counted here, so tests can
// show that a call moved nothing.
typedef int32_t (*enqueue_rw_fn)(void *, void *, uint32_t, size_t, size_t, void *, uint32_t, const void *, void *);
static enqueue_rw_fn real_read, real_write;
static int64_t runtime_reads, runtime_writes;

static int32_t counted_read(void *q, void *m, uint32_t b, size_t off, size_t n, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_reads, 1, __ATOMIC_RELAXED);
    note_transfer("the runtime read a buffer back by itself");
    return real_read(q, m, b, off, n, p, ne, ev, e);
}

static int32_t counted_write(void *q, void *m, uint32_t b, size_t off, size_t n, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_writes, 1, __ATOMIC_RELAXED);
    note_transfer("the runtime copied a buffer to the device by itself");
    return real_write(q, m, b, off, n, p, ne, ev, e);
}

typedef int32_t (*enqueue_rect_fn)(void *, void *, uint32_t, const size_t *, const size_t *, const size_t *, size_t, size_t,
                                   size_t, size_t, void *, uint32_t, const void *, void *);
static enqueue_rect_fn real_read_rect, real_write_rect;

static int32_t counted_read_rect(void *q, void *m, uint32_t b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
                                 size_t bsp, size_t hrp, size_t hsp, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_reads, 1, __ATOMIC_RELAXED);
    note_transfer("the runtime read a buffer back by itself");
    return real_read_rect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, ne, ev, e);
}

static int32_t counted_write_rect(void *q, void *m, uint32_t b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
                                  size_t bsp, size_t hrp, size_t hsp, void *p, uint32_t ne, const void *ev, void *e) {
    __atomic_add_fetch(&runtime_writes, 1, __ATOMIC_RELAXED);
    note_transfer("the runtime copied a buffer to the device by itself");
    return real_write_rect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, ne, ev, e);
}

void gohl_runtime_transfers(int64_t *reads, int64_t *writes) {
    *reads = __atomic_load_n(&runtime_reads, __ATOMIC_RELAXED);
    *writes = __atomic_load_n(&runtime_writes, __ATOMIC_RELAXED);
}

static void *opencl_lib;

gohl_ctx *gohl_cl_acquired_ctx(void) { return held ? acq_ctx : NULL; }
void *gohl_cl_acquired_queue(void) { return held ? held->queue : NULL; }

void *gohl_cl_symbol(const char *name) {
    void *sym = dlsym(RTLD_DEFAULT, name);
    if (!sym) {
        // Not loaded yet (a pipeline called before device/opencl): load
        // the versioned name, which every ICD loader package ships.
        if (!opencl_lib) opencl_lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (opencl_lib) sym = dlsym(opencl_lib, name);
    }
    return sym;
}

void *halide_opencl_get_symbol(void *user_context, const char *name) {
    (void)user_context;
    void *sym = gohl_cl_symbol(name);
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
    return wrap_hook ? wrap_hook(name, sym) : sym;
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
// the runtime has built kernels on cl, as those keep their options, or
// once other options were set: the first call to give them fixes them.
// The same options again change nothing and succeed.
int gohl_cl_set_opts(gohl_cl *cl, const char *opts) {
    pthread_mutex_lock(&cl->mu);
    int same = strcmp(cl->opts, opts) == 0;
    int built = !same && (cl->opts[0] || __atomic_load_n(&cl->acquires, __ATOMIC_RELAXED) > 0);
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
