// CUDA: Halide's CUDA runtime uses our Devices' contexts and streams.
#define _GNU_SOURCE  // RTLD_DEFAULT
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "HalideRuntimeCuda.h"
#include "cuda.h"
#include "shim.h"

// A call of a CUDA pipeline names its Device's gohl_cu in its gohl_ctx
// (cuda.go), so the strong halide_cuda_acquire_context below hands the
// runtime that Device's primary context, and halide_cuda_get_stream its
// stream: kernels queue behind the Device's own uploads and copies, in
// order, with no synchronization between them. Anything else (a C
// caller's call, the runtime's exit-time cleanup) gets what C set with
// halide_set_cuda_acquire_context and friends, else Halide's defaults.
static pthread_mutex_t cu_list_mu = PTHREAD_MUTEX_INITIALIZER;
static gohl_cu *cu_live;  // open ones
static gohl_cu *cu_free;  // retired ones, reused
static int64_t cu_acquires_total;

gohl_cu *gohl_cu_open(uintptr_t ctx, uintptr_t stream) {
    pthread_mutex_lock(&cu_list_mu);
    gohl_cu *cu = cu_free;
    if (cu) {
        cu_free = cu->next;
    } else {
        cu = calloc(1, sizeof *cu);
    }
    if (cu) {
        __atomic_store_n(&cu->acquires, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&cu->stream, (void *)stream, __ATOMIC_RELEASE);
        __atomic_store_n(&cu->ctx, (void *)ctx, __ATOMIC_RELEASE);
        cu->next = cu_live;
        cu_live = cu;
    }
    pthread_mutex_unlock(&cu_list_mu);
    return cu;
}

void gohl_cu_bind(gohl_ctx *c, gohl_cu *cu) {
    c->cu = cu;
    c->cu_gen = cu ? __atomic_load_n(&cu->gen, __ATOMIC_ACQUIRE) : 0;
}

int64_t gohl_cu_acquires(gohl_cu *cu) {
    return __atomic_load_n(cu ? &cu->acquires : &cu_acquires_total, __ATOMIC_RELAXED);
}

// gohl_cu_close releases the runtime's state for cu's context (the modules
// it loaded there, its cached allocations) while the context is still
// valid, then retires cu: a call still holding it fails its acquire.
// Devices on one GPU share its primary context, and the runtime's modules
// are per context: only the last of them to close releases them, so no
// module goes while another Device's call may be using it.
void gohl_cu_close(gohl_cu *cu) {
    void *x = __atomic_load_n(&cu->ctx, __ATOMIC_ACQUIRE);
    int shared = 0;
    pthread_mutex_lock(&cu_list_mu);
    for (gohl_cu **p = &cu_live; *p; p = &(*p)->next) {
        if (*p == cu) {
            *p = cu->next;
            break;
        }
    }
    for (gohl_cu *o = cu_live; o; o = o->next) shared |= __atomic_load_n(&o->ctx, __ATOMIC_ACQUIRE) == x;
    pthread_mutex_unlock(&cu_list_mu);
    if (!shared) {
        gohl_ctx ctx;
        gohl_ctx_init(&ctx);
        gohl_cu_bind(&ctx, cu);
        int e = gohl_ctx_enter(&ctx);  // the acquire inside must find ctx.cu
        halide_device_release(&ctx, halide_cuda_device_interface());
        if (e) gohl_ctx_leave(&ctx);
    }
    __atomic_add_fetch(&cu->gen, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&cu->ctx, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&cu->stream, NULL, __ATOMIC_RELEASE);
    pthread_mutex_lock(&cu_list_mu);
    cu->next = cu_free;
    cu_free = cu;
    pthread_mutex_unlock(&cu_list_mu);
}

int gohl_cu_buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t ptr) {
    int r = gohl_buf_detach(ctx, b);
    if (r || ptr == 0) return r;
    // Neither wrap nor detach acquires a context or allocates.
    r = halide_cuda_wrap_device_ptr(ctx, &b->b, ptr);
    if (r) return r;
    b->kind = GOHL_DEV_CUDA;
    b->mem = ptr;
    b->off = 0;
    return 0;
}

// ---- what C set, honoured for calls that are not ours ---------------------

static _Atomic(halide_cuda_acquire_context_t) c_acquire;
static _Atomic(halide_cuda_release_context_t) c_release;
static _Atomic(halide_cuda_get_stream_t) c_stream;

extern int halide_default_cuda_acquire_context(void *user_context, void **ctx, bool create);
extern int halide_default_cuda_release_context(void *user_context);
extern int halide_default_cuda_get_stream(void *user_context, void *ctx, void **stream);

halide_cuda_acquire_context_t halide_set_cuda_acquire_context(halide_cuda_acquire_context_t h) {
    halide_cuda_acquire_context_t old = atomic_exchange(&c_acquire, h);
    return old ? old : halide_default_cuda_acquire_context;
}

halide_cuda_release_context_t halide_set_cuda_release_context(halide_cuda_release_context_t h) {
    halide_cuda_release_context_t old = atomic_exchange(&c_release, h);
    return old ? old : halide_default_cuda_release_context;
}

halide_cuda_get_stream_t halide_set_cuda_get_stream(halide_cuda_get_stream_t h) {
    halide_cuda_get_stream_t old = atomic_exchange(&c_stream, h);
    return old ? old : halide_default_cuda_get_stream;
}

// ours is the CUDA device of the call uc names (or this thread's call),
// NULL when it is not a CUDA call of ours.
static gohl_ctx *ours(void *uc) {
    gohl_ctx *c = gohl_own_ctx(uc);
    return c && c->cu ? c : NULL;
}

// Strong definitions override the runtime's weak ones (Halide 14's
// signatures, HalideRuntimeCuda.h's typedefs). The runtime pairs every
// acquire with a release and pushes the context it gets on the calling
// thread; CUDA contexts are thread-safe, so no lock is held between them.
int halide_cuda_acquire_context(void *user_context, void **ctx, bool create) {
    gohl_ctx *c = ours(user_context);
    if (!c) {
        halide_cuda_acquire_context_t h = atomic_load(&c_acquire);
        return (h ? h : halide_default_cuda_acquire_context)(user_context, ctx, create);
    }
    gohl_cu *cu = c->cu;
    void *x = __atomic_load_n(&cu->ctx, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&cu->gen, __ATOMIC_ACQUIRE) != c->cu_gen || !x) {
        // The device closed since the call chose it (and cu may serve
        // another device now): refuse rather than run there.
        *ctx = NULL;
        halide_error(user_context, "CUDA: the call's device is closed");
        return -1;
    }
    __atomic_add_fetch(&cu->acquires, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&cu_acquires_total, 1, __ATOMIC_RELAXED);
    *ctx = x;
    return 0;
}

int halide_cuda_release_context(void *user_context) {
    if (ours(user_context)) return 0;
    halide_cuda_release_context_t h = atomic_load(&c_release);
    return (h ? h : halide_default_cuda_release_context)(user_context);
}

int halide_cuda_get_stream(void *user_context, void *ctx, void **stream) {
    gohl_ctx *c = ours(user_context);
    if (c && ctx && ctx == __atomic_load_n(&c->cu->ctx, __ATOMIC_ACQUIRE)) {
        *stream = __atomic_load_n(&c->cu->stream, __ATOMIC_ACQUIRE);
        return 0;
    }
    halide_cuda_get_stream_t h = atomic_load(&c_stream);
    return (h ? h : halide_default_cuda_get_stream)(user_context, ctx, stream);
}

// ---- driver entry points: the runtime resolves them here -------------------

// The runtime finds the driver through halide_cuda_get_symbol. Ours
// returns the entry points of the libcuda.so.1 that device/cuda loaded
// with RTLD_GLOBAL (Halide's own looks for the unversioned libcuda.so,
// which only the toolkit's development files install), and counts the
// copies between host and device the runtime makes by itself, which
// device.Stats cannot see, so tests can show that a call moved nothing.
typedef int (*htod_fn)(uint64_t, const void *, size_t);
typedef int (*dtoh_fn)(void *, uint64_t, size_t);
typedef int (*htod_async_fn)(uint64_t, const void *, size_t, void *);
typedef int (*dtoh_async_fn)(void *, uint64_t, size_t, void *);
typedef int (*copy3d_fn)(const void *);
static htod_fn real_htod;
static dtoh_fn real_dtoh;
static htod_async_fn real_htod_async;
static dtoh_async_fn real_dtoh_async;
static copy3d_fn real_3d;
static int64_t cu_reads, cu_writes;

static int counted_htod(uint64_t d, const void *h, size_t n) {
    __atomic_add_fetch(&cu_writes, 1, __ATOMIC_RELAXED);
    return real_htod(d, h, n);
}
static int counted_dtoh(void *h, uint64_t d, size_t n) {
    __atomic_add_fetch(&cu_reads, 1, __ATOMIC_RELAXED);
    return real_dtoh(h, d, n);
}
static int counted_htod_async(uint64_t d, const void *h, size_t n, void *s) {
    __atomic_add_fetch(&cu_writes, 1, __ATOMIC_RELAXED);
    return real_htod_async(d, h, n, s);
}
static int counted_dtoh_async(void *h, uint64_t d, size_t n, void *s) {
    __atomic_add_fetch(&cu_reads, 1, __ATOMIC_RELAXED);
    return real_dtoh_async(h, d, n, s);
}
// A 3-D copy may go either way: counted as both.
static int counted_3d(const void *p) {
    __atomic_add_fetch(&cu_reads, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&cu_writes, 1, __ATOMIC_RELAXED);
    return real_3d(p);
}

void gohl_cu_runtime_transfers(int64_t *reads, int64_t *writes) {
    *reads = __atomic_load_n(&cu_reads, __ATOMIC_RELAXED);
    *writes = __atomic_load_n(&cu_writes, __ATOMIC_RELAXED);
}

static void *cuda_lib;

void *halide_cuda_get_symbol(void *user_context, const char *name) {
    (void)user_context;
    void *sym = dlsym(RTLD_DEFAULT, name);
    if (!sym) {
        if (!cuda_lib) cuda_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (cuda_lib) sym = dlsym(cuda_lib, name);
    }
    if (!sym) return NULL;
    if (strcmp(name, "cuMemcpyHtoD_v2") == 0) {
        real_htod = (htod_fn)sym;
        return (void *)counted_htod;
    }
    if (strcmp(name, "cuMemcpyDtoH_v2") == 0) {
        real_dtoh = (dtoh_fn)sym;
        return (void *)counted_dtoh;
    }
    if (strcmp(name, "cuMemcpyHtoDAsync_v2") == 0) {
        real_htod_async = (htod_async_fn)sym;
        return (void *)counted_htod_async;
    }
    if (strcmp(name, "cuMemcpyDtoHAsync_v2") == 0) {
        real_dtoh_async = (dtoh_async_fn)sym;
        return (void *)counted_dtoh_async;
    }
    if (strcmp(name, "cuMemcpy3D_v2") == 0) {
        real_3d = (copy3d_fn)sym;
        return (void *)counted_3d;
    }
    return sym;
}
