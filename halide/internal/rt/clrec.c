// The capture side of OpenCL pipeline calls (clrec.h): while a call's ctx
// carries a gohl_clrec, the runtime's launches on the call's queue are
// recorded as they run. The runtime makes a kernel per launch and releases
// it after, and turns a crop into a sub-buffer it releases after the
// launch too, so the record takes a reference to each kernel, and to each
// cl_mem of the runtime's own that a launch uses, until the Graph closes.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cl.h"
#include "clrec.h"

typedef int32_t (*set_arg_fn)(void *, uint32_t, size_t, const void *);
typedef int32_t (*ndrange_fn)(void *, void *, uint32_t, const size_t *, const size_t *, const size_t *, uint32_t,
                              const void *, void *);
typedef void *(*create_buffer_fn)(void *, uint64_t, size_t, void *, int32_t *);
typedef void *(*create_sub_fn)(void *, uint64_t, uint32_t, const void *, int32_t *);
typedef int32_t (*handle_fn)(void *);

static set_arg_fn real_set_arg;
static ndrange_fn real_ndrange;
static create_buffer_fn real_create_buffer;
static create_sub_fn real_create_sub;
static handle_fn real_release_mem, real_retain_mem, real_retain_kernel, real_release_kernel;

static int64_t owned;  // references records took and nobody released (atomic)

// The cl_mems the runtime made and has not released: only these, among a
// launch's pointer-sized arguments, are taken a reference to (any other
// value may be a scalar, never dereferenced).
static pthread_mutex_t made_mu = PTHREAD_MUTEX_INITIALIZER;
static void **made;
static int nmade, capmade;

static void made_add(void *m) {
    if (!m) return;
    pthread_mutex_lock(&made_mu);
    if (nmade == capmade) {
        int n = capmade ? 2 * capmade : 32;
        void **t = realloc(made, n * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&made_mu);
            return;  // untracked: a launch that uses it is not given a reference
        }
        made = t;
        capmade = n;
    }
    made[nmade++] = m;
    pthread_mutex_unlock(&made_mu);
}

static int made_has(void *m) {
    for (int i = 0; i < nmade; i++) {
        if (made[i] == m) return 1;
    }
    return 0;
}

// The arguments the runtime set on the kernel it is about to launch on
// this thread (it sets them all, then launches).
static __thread void *arg_kernel;
static __thread int32_t arg_n;
static __thread uint32_t arg_size[GOHL_CLREC_ARGS];
static __thread uint8_t arg_has[GOHL_CLREC_ARGS];
static __thread uint64_t arg_val[GOHL_CLREC_ARGS];

// recording is this thread's call's record when the call runs on a
// capturing device and q is that device's queue.
static gohl_clrec *recording(void *q) {
    gohl_ctx *c = gohl_cl_acquired_ctx();
    if (!c || !c->clrec) return NULL;
    return q == NULL || q == gohl_cl_acquired_queue() ? c->clrec : NULL;
}

static void refuse(gohl_clrec *r, const char *why) {
    if (!r->err) {
        r->err = 1;
        strncpy(r->why, why, sizeof r->why - 1);
    }
}

static int32_t rec_set_arg(void *k, uint32_t i, size_t size, const void *v) {
    int32_t e = real_set_arg(k, i, size, v);
    if (e == 0 && recording(NULL)) {
        if (k != arg_kernel) {
            arg_kernel = k;
            arg_n = 0;
            memset(arg_has, 0, sizeof arg_has);
        }
        if (i < GOHL_CLREC_ARGS) {
            uint64_t w = 0;
            int has = v && size <= sizeof w;
            if (has) memcpy(&w, v, size);  // little-endian: the low bytes
            arg_size[i] = size;
            arg_has[i] = has;
            arg_val[i] = w;
            if ((int32_t)i >= arg_n) arg_n = i + 1;
        }
    }
    return e;
}

static int32_t rec_ndrange(void *q, void *k, uint32_t dims, const size_t *off, const size_t *global, const size_t *local,
                           uint32_t nwait, const void *wait, void *ev) {
    int32_t e = real_ndrange(q, k, dims, off, global, local, nwait, wait, ev);
    gohl_clrec *r = recording(q);
    if (e != 0 || !r) return e;
    if (off || nwait || ev || dims < 1 || dims > 3 || k != arg_kernel) {
        refuse(r, "a launch with offsets, events or arguments the recorder did not see");
        return e;
    }
    if (r->n == r->cap) {
        int n = r->cap ? 2 * r->cap : 16;
        gohl_cllaunch *t = realloc(r->l, n * sizeof *t);
        if (!t) {
            refuse(r, "out of memory");
            return e;
        }
        r->l = t;
        r->cap = n;
    }
    gohl_cllaunch *l = &r->l[r->n];
    memset(l, 0, sizeof *l);
    if (real_retain_kernel(k) != 0) {
        refuse(r, "clRetainKernel failed");
        return e;
    }
    __atomic_add_fetch(&owned, 1, __ATOMIC_RELAXED);
    r->n++;
    l->kernel = k;
    l->dims = dims;
    l->has_local = local != NULL;
    for (uint32_t d = 0; d < dims; d++) {
        l->global[d] = global[d];
        l->local[d] = local ? local[d] : 0;
    }
    l->nargs = arg_n;
    memcpy(l->size, arg_size, sizeof l->size);
    memcpy(l->has, arg_has, sizeof l->has);
    memcpy(l->val, arg_val, sizeof l->val);
    arg_kernel = NULL;  // the runtime's next kernel may get this one's address
    // a reference to each cl_mem of the runtime's own the launch uses
    pthread_mutex_lock(&made_mu);
    for (int32_t i = 0; i < arg_n; i++) {
        void *m = (void *)(uintptr_t)arg_val[i];
        if (!arg_has[i] || arg_size[i] != sizeof m || !m || !made_has(m)) continue;
        int dup = 0;
        for (int32_t j = 0; j < r->nmems; j++) dup |= r->mems[j] == m;
        if (dup) continue;
        if (r->nmems == r->capmems) {
            int n = r->capmems ? 2 * r->capmems : 8;
            void **t = realloc(r->mems, n * sizeof *t);
            if (!t) {
                refuse(r, "out of memory");
                break;
            }
            r->mems = t;
            r->capmems = n;
        }
        if (real_retain_mem(m) == 0) {
            __atomic_add_fetch(&owned, 1, __ATOMIC_RELAXED);
            r->mems[r->nmems++] = m;
        }
    }
    pthread_mutex_unlock(&made_mu);
    return e;
}

static void *rec_create_buffer(void *ctx, uint64_t flags, size_t n, void *host, int32_t *err) {
    void *m = real_create_buffer(ctx, flags, n, host, err);
    made_add(m);
    return m;
}

static void *rec_create_sub(void *m, uint64_t flags, uint32_t kind, const void *info, int32_t *err) {
    void *s = real_create_sub(m, flags, kind, info, err);
    made_add(s);
    return s;
}

static int32_t rec_release_mem(void *m) {
    pthread_mutex_lock(&made_mu);
    for (int i = 0; i < nmade; i++) {
        if (made[i] == m) {
            made[i] = made[--nmade];
            break;
        }
    }
    pthread_mutex_unlock(&made_mu);
    return real_release_mem(m);
}

static void *wrap(const char *name, void *sym) {
    static const struct {
        const char *name;
        void **real;
        void *wrap;
    } w[] = {
        {"clSetKernelArg", (void **)&real_set_arg, (void *)rec_set_arg},
        {"clEnqueueNDRangeKernel", (void **)&real_ndrange, (void *)rec_ndrange},
        {"clCreateBuffer", (void **)&real_create_buffer, (void *)rec_create_buffer},
        {"clCreateSubBuffer", (void **)&real_create_sub, (void *)rec_create_sub},
        {"clReleaseMemObject", (void **)&real_release_mem, (void *)rec_release_mem},
    };
    if (!sym) return sym;
    if (!real_retain_kernel) {
        real_retain_kernel = (handle_fn)gohl_cl_symbol("clRetainKernel");
        real_release_kernel = (handle_fn)gohl_cl_symbol("clReleaseKernel");
        real_retain_mem = (handle_fn)gohl_cl_symbol("clRetainMemObject");
    }
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        if (strcmp(name, w[i].name) == 0) {
            if (!real_retain_kernel || !real_release_kernel || !real_retain_mem) return sym;
            *w[i].real = sym;
            return w[i].wrap;
        }
    }
    return sym;
}

static void note(const char *what) {
    gohl_clrec *r = recording(NULL);
    if (r) refuse(r, what);
}

// Before any pipeline call resolves an entry point (the runtime does so
// at its first call, after every constructor).
__attribute__((constructor)) static void hook(void) { gohl_cl_set_hooks(wrap, note); }

gohl_clrec *gohl_clrec_new(void) { return calloc(1, sizeof(gohl_clrec)); }

void gohl_clrec_reset(gohl_clrec *r) {
    r->n = 0;
    r->nmems = 0;
    r->err = 0;
    r->why[0] = 0;
}

int gohl_clrec_release(uintptr_t h, int kernel) {
    handle_fn rel = kernel ? real_release_kernel : real_release_mem;
    if (!h || !rel) return -1;
    __atomic_sub_fetch(&owned, 1, __ATOMIC_RELAXED);
    return kernel ? rel((void *)h) : rec_release_mem((void *)h);
}

void gohl_clrec_free(gohl_clrec *r) {
    if (!r) return;
    for (int32_t i = 0; i < r->n; i++) gohl_clrec_release((uintptr_t)r->l[i].kernel, 1);
    for (int32_t i = 0; i < r->nmems; i++) gohl_clrec_release((uintptr_t)r->mems[i], 0);
    free(r->l);
    free(r->mems);
    free(r);
}

int64_t gohl_clrec_owned(void) { return __atomic_load_n(&owned, __ATOMIC_RELAXED); }
