#include <pthread.h>
#include <stddef.h>

#include "frame.h"

// A call frame's buffer gets its device handle for one call
// (gohl_fbuf_set_device, in prepare) and drops it at the end of the call
// (gohl_bufs_detach, in finish). Meanwhile the handle holds a reference on
// its cl_mem, so memory freed by a concurrent Close of the Array, or by
// its device closing (Arrays let go of their allocations then), stays
// valid until the pipeline is done with it: OpenCL frees a cl_mem at its
// last release.

void *halide_opencl_get_symbol(void *user_context, const char *name);  // shim.c

typedef int32_t (*mem_ref_fn)(void *);
static mem_ref_fn retain_mem, release_mem;
static pthread_once_t refs_once = PTHREAD_ONCE_INIT;

static void load_refs(void) {
    retain_mem = (mem_ref_fn)halide_opencl_get_symbol(NULL, "clRetainMemObject");
    release_mem = (mem_ref_fn)halide_opencl_get_symbol(NULL, "clReleaseMemObject");
}

int gohl_fbuf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off) {
    int r = gohl_buf_set_device(ctx, b, mem, off);
    if (r || b->kind == GOHL_DEV_NONE) return r;
    pthread_once(&refs_once, load_refs);
    if (!retain_mem || !release_mem || retain_mem((void *)(uintptr_t)mem) != 0) {
        gohl_buf_detach(ctx, b);
        return -1;
    }
    return 0;
}

int gohl_bufs_detach(gohl_ctx *ctx, gohl_buf **bufs, int n) {
    int first = 0;
    for (int i = 0; i < n; i++) {
        gohl_buf *b = bufs[i];
        if (b->kind == GOHL_DEV_NONE) continue;
        uint64_t mem = b->mem;
        int r = gohl_buf_detach(ctx, b);
        release_mem((void *)(uintptr_t)mem);
        if (r && !first) first = r;
    }
    return first;
}
